// A/B of read paths between two builds (issue 33, part 3: "reads no slower"): `tsx bench/abReads.ts <old checkout>`
// starts `ledger serve` from this checkout and from the other, each on its own SQLite file with the same postings, and
// measures each read's server CPU per request, A B B A, on both.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFile, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { startServer, stopChild } from './server.js';
import { cpuMeter } from './cpu.js';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

async function start(root: string, db: string): Promise<{ url: string; child: ChildProcess; key: string; tx: string; account: string }> {
  const bin = join(root, 'bin/ledger.js');
  const { stdout } = await run(process.execPath, [bin, '--db', db, 'tenants', 'create', 'ab', '--json']);
  const key = (JSON.parse(stdout) as { apiKey: { rawKey: string } }).apiKey.rawKey;
  const { url, child } = await startServer(db, { bin, stderr: 'ignore' });
  const json = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const accounts: string[] = [];
  for (let i = 0; i < 8; i++) accounts.push(((await (await fetch(`${url}/api/v1/accounts`, { method: 'POST', headers: json, body: JSON.stringify({ name: `a${i}`, currency: 'USD', type: 'ASSET' }) })).json()) as { id: string }).id);
  const line = (accountId: string, entryType: string) => ({ accountId, entryType, monetaryEntry: { type: 'FIAT', amount: '12.34', currency: 'USD', rail: 'PIX' } });
  let tx = '';
  for (let i = 0; i < 400; i++) {
    const res = await fetch(`${url}/api/v1/transactions`, { method: 'POST', headers: { ...json, 'idempotency-key': randomUUID() }, body: JSON.stringify({ lines: [line(accounts[i % 8]!, 'DEBIT'), line(accounts[(i + 1) % 8]!, 'CREDIT')], metadata: { orderId: `o-${i}` } }) });
    tx = ((await res.json()) as { transactionId: string }).transactionId;
  }
  return { url, child, key, tx, account: accounts[0]! };
}

async function measure(s: Awaited<ReturnType<typeof start>>, path: string): Promise<number> {
  const meter = cpuMeter([s.child.pid!]);
  const r = await autocannon({ url: `${s.url}${path}`, duration: SECONDS, connections: 8, headers: { authorization: `Bearer ${s.key}` } });
  if (r.non2xx + r.errors > 0) throw new Error(`${path}: ${r.non2xx} not 2xx`);
  return meter.stop(r.requests.total)!.usPerRequest;
}

const dir = mkdtempSync(join(tmpdir(), 'ledger-ab-'));
const sides = { new: resolve('.'), old: resolve(process.argv[2]!) };
const servers = { new: await start(sides.new, join(dir, 'new.db')), old: await start(sides.old, join(dir, 'old.db')) };
try {
  const reads = (s: Awaited<ReturnType<typeof start>>) => ({
    'GET a transaction': `/api/v1/transactions/${s.tx}`,
    'GET 50 transactions': '/api/v1/transactions?limit=50',
    'GET 50 events': '/api/v1/events?limit=50',
    'GET 50 entries': `/api/v1/accounts/${s.account}/entries?limit=50`,
  });
  for (const name of Object.keys(reads(servers.new)) as Array<keyof ReturnType<typeof reads>>) {
    const figures: Record<'new' | 'old', number[]> = { new: [], old: [] };
    for (const side of ['old', 'new', 'new', 'old'] as const) figures[side].push(await measure(servers[side], reads(servers[side])[name]));
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`${name}: old ${avg(figures.old).toFixed(0)} µs, new ${avg(figures.new).toFixed(0)} µs of server CPU a request (${(avg(figures.new) / avg(figures.old)).toFixed(2)}x)`);
  }
} finally {
  await stopChild(servers.new.child);
  await stopChild(servers.old.child);
  rmSync(dir, { recursive: true, force: true });
}
