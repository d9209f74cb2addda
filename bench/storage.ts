// `BENCH_ONLY=storage npm run bench`: the bytes a 2-line posting (metadata of one entry) adds, in all and per table
// and index, on SQLite (the file after a checkpoint, and dbstat's pages per table and index) and on PostgreSQL (the
// growth of every table and index, pg_relation_size) (issue 33, part 3).
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { ENGINES, freshDb, type Engine } from './engines.js';
import type { Line, Scenario, Table } from './scenario.js';
import { makeTenant, named, seed } from './seed.js';
import { startServer, stopChild } from './server.js';

const POSTINGS = Number(process.env.BENCH_STORAGE_POSTINGS ?? 5_000);
const CONNECTIONS = 16;
const ACCOUNTS = 64;
/** Bytes a 2-line posting may add (issue 33). */
const TARGET_BYTES: Record<Engine, number> = { SQLite: 2_000, PostgreSQL: 2_500 };

type Sizes = Map<string, number>;

/** Each table's and index's bytes in a SQLite file (dbstat), after a checkpoint; '(file)' is the file's size. */
function sqliteSizes(file: string): Sizes {
  const db = new BetterSqlite3(file);
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('wal_checkpoint(TRUNCATE)');
    const rows = db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name').all() as Array<{ name: string; bytes: number }>;
    const sizes: Sizes = new Map(rows.map((r) => [r.name, r.bytes]));
    sizes.set('(file)', statSync(file).size);
    return sizes;
  } finally {
    db.close();
  }
}

/** Each table's and index's bytes in a PostgreSQL database (main fork, after a checkpoint); '(all)' is their sum. */
async function postgresSizes(url: string): Promise<Sizes> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CHECKPOINT').catch(() => {});
    const { rows } = await client.query<{ name: string; bytes: string }>(
      `SELECT c.relname AS name, pg_relation_size(c.oid) + COALESCE(pg_relation_size(c.reltoastrelid), 0) AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')`,
    );
    const sizes: Sizes = new Map(rows.map((r) => [r.name, Number(r.bytes)]));
    sizes.set('(all)', [...sizes.values()].reduce((a, b) => a + b, 0));
    return sizes;
  } finally {
    await client.end();
  }
}

async function postPostings(url: string, json: Record<string, string>, accounts: string[], count: number): Promise<void> {
  const line = (accountId: string, entryType: string) => ({ accountId, entryType, monetaryEntry: { type: 'FIAT', amount: '12.34', currency: 'USD', rail: 'PIX' } });
  let sent = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (sent < count) {
        sent++;
        const a = Math.floor(Math.random() * ACCOUNTS);
        const b = (a + 1 + Math.floor(Math.random() * (ACCOUNTS - 1))) % ACCOUNTS;
        const res = await fetch(`${url}/api/v1/transactions`, {
          method: 'POST',
          headers: { ...json, 'idempotency-key': randomUUID() },
          body: JSON.stringify({ lines: [line(accounts[a]!, 'DEBIT'), line(accounts[b]!, 'CREDIT')], metadata: { orderId: `order-${sent}` } }),
        });
        if (res.status !== 201) throw new Error(`posting: ${res.status} ${await res.text()}`);
      }
    }),
  );
}

interface Growth {
  engine: Engine;
  /** Bytes a posting in all, then by table or index (largest first). */
  all: number;
  rows: Array<{ name: string; bytes: number }>;
}

function growth(engine: Engine, before: Sizes, after: Sizes): Growth {
  const total = engine === 'SQLite' ? '(file)' : '(all)';
  const rows = [...after.keys()]
    .map((name) => ({ name, bytes: ((after.get(name) ?? 0) - (before.get(name) ?? 0)) / POSTINGS }))
    .filter((r) => r.name !== total && Math.abs(r.bytes) >= 1)
    .sort((a, b) => b.bytes - a.bytes);
  const all = ((after.get(total) ?? 0) - (before.get(total) ?? 0)) / POSTINGS;
  console.error(`  ${engine}: ${Math.round(all).toLocaleString('en-US')} bytes per 2-line posting (${POSTINGS.toLocaleString('en-US')} postings, metadata of one entry)`);
  return { engine, all, rows };
}

async function measure(engine: Engine): Promise<Growth> {
  const fresh = await freshDb(engine, 'storage.db');
  const { db } = fresh;
  try {
    const { rawKey, accounts } = await seed(db, ({ ledger }) => makeTenant(ledger, 'bench', named('a', ACCOUNTS)));
    const sizes = () => (engine === 'SQLite' ? Promise.resolve(sqliteSizes(db)) : postgresSizes(db));
    const server = await startServer(db);
    try {
      // A first round, so that every table's and index's first pages are there before the measure starts.
      const json = { 'content-type': 'application/json', authorization: `Bearer ${rawKey}` };
      await postPostings(server.url, json, accounts, 500);
      const before = await sizes();
      await postPostings(server.url, json, accounts, POSTINGS);
      return growth(engine, before, await sizes());
    } finally {
      await stopChild(server.child);
    }
  } finally {
    await fresh.drop();
  }
}

const tableOf = (engine: Engine): Table => ({ title: `Storage: bytes per 2-line posting on ${engine}, by table and index`, columns: ['table or index', 'bytes/posting'], align: 'lr' });
const TABLES = { SQLite: tableOf('SQLite'), PostgreSQL: tableOf('PostgreSQL') };

/** On SQLite, then on PostgreSQL. */
export const storage: Scenario<Growth>[] = ENGINES.map((engine) => ({
  name: 'storage',
  family: 'storage',
  byDefault: false,
  run: () => measure(engine),
  print: (g): Line[] => g.rows.map((r) => ({ table: TABLES[engine], cells: [r.name, Math.round(r.bytes)] })),
  targets: [
    {
      label: (g) => `${engine}: bytes per 2-line posting <= ${TARGET_BYTES[engine].toLocaleString('en-US')} (${Math.round(g.all).toLocaleString('en-US')})`,
      met: (g) => g.all <= TARGET_BYTES[engine],
    },
  ],
}));
