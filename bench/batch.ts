// `BENCH_ONLY=batch npm run bench`: postings a second and the server's CPU per posting, one posting a request (64
// connections, autocannon) against batches of BENCH_BATCH_SIZE (default 100) on BENCH_BATCH_CONNECTIONS (default 8),
// not atomic and atomic, in one run against the real server, on SQLite or on PostgreSQL with
// BENCH_BATCH_ENGINE=postgres (issue 33). Beside the server's CPU it prints PostgreSQL's and the load generator's per
// posting, and how busy the machine's cores were: on a machine whose cores are all in use, the rate of one scenario
// against another is the CPU a posting costs in all, against how fully the scenario keeps the cores busy.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { cpuMeter, machineMeter, type MachineFigures } from './cpu.js';
import { freshDb, type Engine } from './engines.js';
import { SECONDS } from './load.js';
import { postRequestFor } from './requests.js';
import type { Line, Scenario, Table } from './scenario.js';
import { makeTenant, named, seed } from './seed.js';
import { startServer, stopChild, type BenchServer } from './server.js';

const BATCH_SIZE = Number(process.env.BENCH_BATCH_SIZE ?? 100);
const BATCH_CONNECTIONS = Number(process.env.BENCH_BATCH_CONNECTIONS ?? 8);
const ACCOUNTS = 64;

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

async function measureBatches(engine: Engine): Promise<Figure[]> {
  const fresh = await freshDb(engine, 'batch.db');
  let server: BenchServer | undefined;
  try {
    const tenant = await seed(fresh.db, ({ ledger }) => makeTenant(ledger, 'bench', named('a', ACCOUNTS)));
    const { rawKey, accounts } = tenant;
    server = await startServer(fresh.db);
    const { url, child } = server;
    const json = { 'content-type': 'application/json', authorization: `Bearer ${rawKey}` };
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
    return figures;
  } finally {
    await stopChild(server?.child);
    await fresh.drop();
  }
}

const batchesOn = (engine: Engine): Table => ({
  title: `Batches against one posting a request (${engine})`,
  columns: ['scenario', 'postings/s', 'server CPU µs/posting', 'writer µs/posting', 'PostgreSQL µs/posting', 'load generator µs/posting', 'machine busy'],
  align: 'lrrrrrr',
});
const BATCHES = { SQLite: batchesOn('SQLite'), PostgreSQL: batchesOn('PostgreSQL') };

interface BatchFigures {
  engine: Engine;
  figures: Figure[];
}

/** Batches against one posting a request: their postings a second. */
const gainOf = ({ figures }: BatchFigures) => figures[1]!.postingsPerSecond / figures[0]!.postingsPerSecond;

export const batch: Scenario<BatchFigures> = {
  name: 'batch',
  family: 'batch',
  byDefault: false,
  async run() {
    const engine: Engine = process.env.BENCH_BATCH_ENGINE === 'postgres' ? 'PostgreSQL' : 'SQLite';
    console.error(`  engine: ${engine}`);
    return { engine, figures: await measureBatches(engine) };
  },
  print(f): Line[] {
    const postgres = f.engine === 'PostgreSQL';
    const table = BATCHES[f.engine];
    const rows = f.figures.map((x): Line => {
      // A PostgreSQL on another machine (LEDGER_TEST_PG_URL) is not seen in /proc: its CPU is not counted in all.
      const pgShown = !postgres ? '-' : x.postgresUsPerPosting > 0 ? String(Math.round(x.postgresUsPerPosting)) : 'not on this machine';
      return {
        table,
        cells: [x.scenario, Math.round(x.postingsPerSecond), Math.round(x.cpuUsPerPosting), Math.round(x.writerUsPerPosting), pgShown, Math.round(x.clientUsPerPosting), `${Math.round(x.machineBusy * 100)}%`],
      };
    });
    // What the CPU a posting costs in all allows: the rate batches would reach keeping the cores as busy as single postings do.
    const [single, batched] = [f.figures[0]!, f.figures[1]!];
    const cpuInAll = (x: Figure) => x.cpuUsPerPosting + (postgres ? x.postgresUsPerPosting : 0) + x.clientUsPerPosting;
    const bound = cpuInAll(single) / cpuInAll(batched);
    const busy = batched.machineBusy / single.machineBusy;
    return [
      ...rows,
      { table, note: `Batches against one posting a request: ${gainOf(f).toFixed(2)}x the postings a second.` },
      {
        table,
        note: `CPU a posting in all: ${Math.round(cpuInAll(single))} µs single, ${Math.round(cpuInAll(batched))} µs batched: at most ${bound.toFixed(2)}x with the cores as busy (batches keep them ${Math.round(busy * 100)}% as busy).`,
      },
    ];
  },
  // Issue 33's target for PostgreSQL: batches give at least 3x its own single-posting rate.
  targets: [{ label: (f) => `PostgreSQL: batches >= 3x the postings a second of one posting a request (${gainOf(f).toFixed(2)}x)`, met: (f) => gainOf(f) >= 3, when: (f) => f.engine === 'PostgreSQL' }],
};
