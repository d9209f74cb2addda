// `BENCH_ONLY=batch npm run bench`: postings a second and the server's CPU per posting, one posting a request (64
// connections, autocannon) against batches of BENCH_BATCH_SIZE (default 100) on BENCH_BATCH_CONNECTIONS (default 8),
// not atomic and atomic, in one run against the real server, on SQLite or on PostgreSQL with
// BENCH_BATCH_ENGINE=postgres (issue 33). Beside the server's CPU it prints PostgreSQL's and the load generator's per
// posting, and how busy the machine's cores were: on a machine whose cores are all in use, the rate of one scenario
// against another is the CPU a posting costs in all, against how fully the scenario keeps the cores busy.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { LEDGER_BIN, startServer, stopChild } from './server.js';
import { cpuMeter, machineMeter, type MachineFigures } from './cpu.js';
import { postRequestFor } from './requests.js';
import { freshDatabaseUrl, startTestPostgres } from '../test/helpers/postgres.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const BATCH_SIZE = Number(process.env.BENCH_BATCH_SIZE ?? 100);
const BATCH_CONNECTIONS = Number(process.env.BENCH_BATCH_CONNECTIONS ?? 8);
const ACCOUNTS = 64;
const run = promisify(execFile);

interface Figure {
  scenario: string;
  postingsPerSecond: number;
  cpuUsPerPosting: number;
  writerUsPerPosting: number;
  postgresUsPerPosting: number;
  clientUsPerPosting: number;
  machineBusy: number;
}

const machineFigures = (m: MachineFigures) => ({ postgresUsPerPosting: m.postgresUsPerRequest, clientUsPerPosting: m.clientUsPerRequest, machineBusy: m.machineBusy });

export async function benchBatch(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-batch-'));
  const postgres = process.env.BENCH_BATCH_ENGINE === 'postgres' ? await startTestPostgres() : undefined;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const db = postgres ? await freshDatabaseUrl(postgres.url) : join(dir, 'batch.db');
    const { stdout } = await run(process.execPath, [LEDGER_BIN, '--db', db, 'tenants', 'create', 'bench', '--json']);
    const rawKey = (JSON.parse(stdout) as { apiKey: { rawKey: string } }).apiKey.rawKey;
    server = await startServer(db);
    const { url, child } = server;
    const json = { 'content-type': 'application/json', authorization: `Bearer ${rawKey}` };
    const accounts: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const res = await fetch(`${url}/api/v1/accounts`, { method: 'POST', headers: json, body: JSON.stringify({ name: `a${i}`, currency: 'USD', type: 'ASSET' }) });
      accounts.push(((await res.json()) as { id: string }).id);
    }
    const line = (accountId: string, entryType: string) => ({ accountId, entryType, monetaryEntry: { type: 'FIAT', amount: '12.34', currency: 'USD', rail: 'PIX' } });
    const item = () => {
      const a = Math.floor(Math.random() * ACCOUNTS);
      return { idempotencyKey: randomUUID(), lines: [line(accounts[a]!, 'DEBIT'), line(accounts[(a + 1 + Math.floor(Math.random() * (ACCOUNTS - 1))) % ACCOUNTS]!, 'CREDIT')] };
    };
    const figures: Figure[] = [];

    const single = cpuMeter([child.pid!]);
    const singleMachine = machineMeter();
    const result = await autocannon({ url, duration: SECONDS, connections: 64, requests: [postRequestFor(accounts, json)] });
    if (result.non2xx + result.errors > 0) throw new Error(`single postings: ${result.non2xx} not 2xx, ${result.errors} errors`);
    const cpu = single.stop(result.requests.total)!;
    const machine = singleMachine.stop(result.requests.total)!;
    figures.push({ scenario: 'one posting a request (64 connections)', postingsPerSecond: result.requests.total / SECONDS, cpuUsPerPosting: cpu.usPerRequest, writerUsPerPosting: cpu.writerUsPerCommand, ...machineFigures(machine) });

    for (const atomic of [false, true]) {
      let postings = 0;
      const meter = cpuMeter([child.pid!]);
      const machine = machineMeter();
      const until = performance.now() + SECONDS * 1000;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: BATCH_CONNECTIONS }, async () => {
          while (performance.now() < until) {
            const res = await fetch(`${url}/api/v1/transactions/batch`, { method: 'POST', headers: json, body: JSON.stringify({ atomic, transactions: Array.from({ length: BATCH_SIZE }, item) }) });
            const body = (await res.json()) as { results: Array<{ status: number }> };
            if (res.status !== (atomic ? 201 : 200) || body.results.some((r) => r.status !== 201)) throw new Error(`batch: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
            postings += BATCH_SIZE;
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const used = meter.stop(postings)!;
      figures.push({
        scenario: `batches of ${BATCH_SIZE}${atomic ? ', atomic' : ''} (${BATCH_CONNECTIONS} connections)`,
        postingsPerSecond: postings / seconds,
        cpuUsPerPosting: used.usPerRequest,
        writerUsPerPosting: used.writerUsPerCommand,
        ...machineFigures(machine.stop(postings)!),
      });
    }
    console.error(`  engine: ${postgres ? 'PostgreSQL' : 'SQLite'}`);
    console.error('  | scenario | postings/s | server CPU µs/posting | writer µs/posting | PostgreSQL µs/posting | load generator µs/posting | machine busy |');
    console.error('  |---|---:|---:|---:|---:|---:|---:|');
    for (const f of figures) {
      // A PostgreSQL on another machine (LEDGER_TEST_PG_URL) is not seen in /proc: its CPU is not counted in all.
      const pgShown = !postgres ? '-' : f.postgresUsPerPosting > 0 ? String(Math.round(f.postgresUsPerPosting)) : 'not on this machine';
      console.error(`  | ${f.scenario} | ${Math.round(f.postingsPerSecond)} | ${Math.round(f.cpuUsPerPosting)} | ${Math.round(f.writerUsPerPosting)} | ${pgShown} | ${Math.round(f.clientUsPerPosting)} | ${Math.round(f.machineBusy * 100)}% |`);
    }
    const gain = figures[1]!.postingsPerSecond / figures[0]!.postingsPerSecond;
    // Issue 33's target for PostgreSQL: batches give at least 3x its own single-posting rate.
    const verdict = postgres ? ` (target on PostgreSQL ≥ 3x: ${gain >= 3 ? 'met' : 'MISSED'})` : '';
    console.error(`  batches against one posting a request: ${gain.toFixed(2)}x the postings a second${verdict}`);
    // What the CPU a posting costs in all allows: the rate batches would reach keeping the cores as busy as single postings do.
    const cpuInAll = (f: Figure) => f.cpuUsPerPosting + (postgres ? f.postgresUsPerPosting : 0) + f.clientUsPerPosting;
    const bound = cpuInAll(figures[0]!) / cpuInAll(figures[1]!);
    const busy = figures[1]!.machineBusy / figures[0]!.machineBusy;
    console.error(`  CPU a posting in all: ${Math.round(cpuInAll(figures[0]!))} µs single, ${Math.round(cpuInAll(figures[1]!))} µs batched: at most ${bound.toFixed(2)}x with the cores as busy (batches keep them ${Math.round(busy * 100)}% as busy)`);
    return figures;
  } finally {
    await stopChild(server?.child);
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
