// `npm run bench:writer`: what a posting costs the SQLite writer, statement by statement, without HTTP or threads.
// The ledger posts 2-line transactions in process (local writer) in groups of BENCH_GROUP (default 16, as group commit
// gathers them under load), BENCH_POSTINGS in all (default 4,000). Prints the CPU per posting of the whole path, the
// time of each statement per posting, the commit's own CPU, and the WAL pages each commit writes (every page a
// posting's rows and index entries touch is written whole at its commit, and costs the commit's CPU).
// BENCH_RAW_STATEMENTS=1 prints the raw writes' statements the same way, beside the ledger's.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { BetterSqlite3 } from '../src/store/sqlite/driver.js';
import { openLedger } from '../src/store/open.js';
import { JsonNumber } from '../src/core/money.js';
import type { SqliteStore } from '../src/store/sqlite/sqliteStore.js';
import { rawWrites } from './rawWrites.js';
import { actor, makeTenant, named, seed } from './seed.js';

const POSTINGS = Number(process.env.BENCH_POSTINGS ?? 4000);
const GROUP = Number(process.env.BENCH_GROUP ?? 16);
const ACCOUNTS = 64;

// Every statement's run/get/all is timed by its SQL; COMMIT's CPU is read around it (this process has one JS thread).
const timings = new Map<string, { calls: number; ns: bigint }>();
let commitCpuUs = 0;
const statementPrototype = Object.getPrototypeOf(new BetterSqlite3(':memory:').prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
for (const method of ['run', 'get', 'all']) {
  const original = statementPrototype[method]!;
  statementPrototype[method] = function (this: { source: string }, ...args: unknown[]) {
    const began = process.hrtime.bigint();
    const cpu = this.source === 'COMMIT' ? process.cpuUsage() : undefined;
    try {
      return original.apply(this, args);
    } finally {
      if (cpu) {
        const used = process.cpuUsage(cpu);
        commitCpuUs += used.user + used.system;
      }
      const key = `${method} ${this.source.replace(/\s+/g, ' ').slice(0, 100)}`;
      const t = timings.get(key) ?? { calls: 0, ns: 0n };
      t.calls++;
      t.ns += process.hrtime.bigint() - began;
      timings.set(key, t);
    }
  };
}

const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-writer-'));
const { ledger, store, close } = await openLedger(join(dir, 'writer.db'), { writer: 'local' });
try {
  const { tenantId, accounts } = await makeTenant(ledger, 'bench', named('a', ACCOUNTS));
  const line = (accountId: string, entryType: 'DEBIT' | 'CREDIT') => ({
    accountId,
    entryType,
    monetaryEntry: { type: 'FIAT' as const, amount: new JsonNumber('12.34'), currency: 'USD' as const, rail: 'ACH' as const },
  });

  // The WAL emptied and left to grow, so that its frame count at the end is what the postings wrote.
  const sqlite = (store as SqliteStore).sqlite;
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  sqlite.pragma('wal_autocheckpoint = 0');
  timings.clear();
  commitCpuUs = 0;

  const began = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let n = 0; n < POSTINGS; n += GROUP) {
    await Promise.all(
      Array.from({ length: Math.min(GROUP, POSTINGS - n) }, (_, i) => {
        const k = n + i;
        return ledger.transactions.post(tenantId, actor, `k-${k}`, { lines: [line(accounts[k % ACCOUNTS]!, 'DEBIT'), line(accounts[(k + 1) % ACCOUNTS]!, 'CREDIT')] });
      }),
    );
  }
  const used = process.cpuUsage(cpu);
  const wallUs = Number(process.hrtime.bigint() - began) / 1e3;
  const frames = Number((sqlite.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number | bigint }>)[0]!.log);
  const commits = Math.ceil(POSTINGS / GROUP);
  for (const key of timings.keys()) if (key.includes('wal_checkpoint')) timings.delete(key);

  const per = (x: number) => (x / POSTINGS).toFixed(1);
  console.log(`${POSTINGS} postings of 2 lines in groups of ${GROUP}, in process (${process.version})`);
  console.log(`per posting: CPU ${per(used.user + used.system)} µs (all of it: validation, rendering, the writer, the commit), wall ${per(wallUs)} µs`);
  console.log(`commit: ${per(commitCpuUs)} µs of CPU per posting; ${(frames / commits).toFixed(1)} WAL pages per commit (${per(frames)} per posting)`);
  console.log('\n| µs per posting | calls per posting | statement |');
  console.log('|---:|---:|---|');
  let total = 0n;
  for (const [key, t] of [...timings].sort((a, b) => Number(b[1].ns - a[1].ns))) {
    total += t.ns;
    console.log(`| ${per(Number(t.ns) / 1e3)} | ${(t.calls / POSTINGS).toFixed(2)} | \`${key}\` |`);
  }
  console.log(`\nall statements: ${per(Number(total) / 1e3)} µs per posting (wall, COMMIT's fsync included)`);
  const ledgerUs = (used.user + used.system) / POSTINGS;

  // The raw writes of the same postings on a fresh file of the same schema, in groups of GROUP and of 100.
  console.log('\n| path | group | CPU µs per posting | postings/s (wall) |');
  console.log('|---|---:|---:|---:|');
  console.log(`| the ledger, in process | ${GROUP} | ${ledgerUs.toFixed(1)} | ${Math.round(1e6 / (wallUs / POSTINGS))} |`);
  for (const group of [GROUP, 100]) {
    const rawFile = join(dir, `raw-${group}.db`);
    const { tenantId: rawTenant, accounts: rawAccounts } = await seed(rawFile, ({ ledger }) => makeTenant(ledger, 'raw', named('a', ACCOUNTS)));
    timings.clear();
    const raw = rawWrites(rawFile, rawTenant, rawAccounts, POSTINGS, group);
    if (process.env.BENCH_RAW_STATEMENTS) console.log(`\nthe raw writes' statements, groups of ${group}:\n\n| µs per posting | calls per posting | statement |\n|---:|---:|---|`);
    if (process.env.BENCH_RAW_STATEMENTS) for (const [key, t] of [...timings].sort((a, b) => Number(b[1].ns - a[1].ns))) console.log(`| ${per(Number(t.ns) / 1e3)} | ${(t.calls / POSTINGS).toFixed(2)} | \`${key}\` |`);
    console.log(`| raw writes (bench/rawWrites.ts) | ${group} | ${raw.cpuUsPerPosting.toFixed(1)} | ${Math.round(1e6 / raw.wallUsPerPosting)} |`);
    if (group === GROUP) console.log(`\nthe ledger's path: ${(ledgerUs / raw.cpuUsPerPosting).toFixed(2)}x the raw writes' CPU at groups of ${GROUP}`);
  }
} finally {
  await close();
  rmSync(dir, { recursive: true, force: true });
}
