// `BENCH_ONLY=storage npm run bench`: the bytes a 2-line posting (metadata of one entry) adds, in all and per table
// and index, on SQLite (the file after a checkpoint, and dbstat's pages per table and index) and on PostgreSQL (the
// growth of every table and index, pg_relation_size) (issue 33, part 3).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { startServer, stopChild } from './server.js';
import { freshDatabaseUrl, startTestPostgres } from '../test/helpers/postgres.js';

const POSTINGS = Number(process.env.BENCH_STORAGE_POSTINGS ?? 5_000);
const CONNECTIONS = 16;
const ACCOUNTS = 64;
const run = promisify(execFile);

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

async function makeAccounts(url: string, json: Record<string, string>): Promise<string[]> {
  const accounts: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) {
    const res = await fetch(`${url}/api/v1/accounts`, { method: 'POST', headers: json, body: JSON.stringify({ name: `a${i}`, currency: 'USD', type: 'ASSET' }) });
    accounts.push(((await res.json()) as { id: string }).id);
  }
  return accounts;
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

function printGrowth(engine: string, before: Sizes, after: Sizes, total: string): number {
  const rows = [...after.keys()]
    .map((name) => ({ name, bytes: ((after.get(name) ?? 0) - (before.get(name) ?? 0)) / POSTINGS }))
    .filter((r) => r.name !== total && Math.abs(r.bytes) >= 1)
    .sort((a, b) => b.bytes - a.bytes);
  const all = ((after.get(total) ?? 0) - (before.get(total) ?? 0)) / POSTINGS;
  console.error(`  ${engine}: ${Math.round(all).toLocaleString('en-US')} bytes per 2-line posting (${POSTINGS.toLocaleString('en-US')} postings, metadata of one entry)`);
  console.error('  | table or index | bytes/posting |');
  console.error('  |---|---:|');
  for (const r of rows) console.error(`  | ${r.name} | ${Math.round(r.bytes)} |`);
  return all;
}

async function measure(engine: 'sqlite' | 'postgres', db: string, sizes: () => Promise<Sizes>): Promise<number> {
  const { stdout } = await run(process.execPath, ['bin/ledger.js', '--db', db, 'tenants', 'create', 'bench', '--json']);
  const rawKey = (JSON.parse(stdout) as { apiKey: { rawKey: string } }).apiKey.rawKey;
  const server = await startServer(db);
  try {
    // A first round, so that every table's and index's first pages are there before the measure starts.
    const json = { 'content-type': 'application/json', authorization: `Bearer ${rawKey}` };
    const accounts = await makeAccounts(server.url, json);
    await postPostings(server.url, json, accounts, 500);
    const before = await sizes();
    await postPostings(server.url, json, accounts, POSTINGS);
    const after = await sizes();
    return printGrowth(engine === 'sqlite' ? 'SQLite' : 'PostgreSQL', before, after, engine === 'sqlite' ? '(file)' : '(all)');
  } finally {
    await stopChild(server.child);
  }
}

export async function benchStorage(): Promise<{ sqlite: number; postgres: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-storage-'));
  const postgres = await startTestPostgres();
  try {
    const file = join(dir, 'storage.db');
    const sqlite = await measure('sqlite', file, async () => sqliteSizes(file));
    const url = await freshDatabaseUrl(postgres.url);
    const onPostgres = await measure('postgres', url, () => postgresSizes(url));
    const verdict = (bytes: number, target: number) => `${Math.round(bytes).toLocaleString('en-US')} bytes, target ≤ ${target.toLocaleString('en-US')}: ${bytes <= target ? 'met' : 'MISSED'}`;
    console.error(`  SQLite ${verdict(sqlite, 2_000)}; PostgreSQL ${verdict(onPostgres, 2_500)}`);
    return { sqlite, postgres: onPostgres };
  } finally {
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
