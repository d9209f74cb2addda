// The loads of the server on the seeded SQLite database (bench/seeded.ts), BENCH_SECONDS each at 64 connections:
// /healthz, a 2-line posting (alone, beside another tenant's 1000-line postings, beside 100 event streams, on one
// connection, beside webhook deliveries), the balance and a page of entries; with their targets.
import type autocannon from 'autocannon';
import { statSync } from 'node:fs';
import { BetterSqlite3 } from '../src/store/sqlite/driver.js';
import { besideHeavyPostings, type HeavyFigures } from './heavy.js';
import { load, pct, type LoadRow } from './load.js';
import { HEAVY_LINES, heavyBody, type postRequestFor } from './requests.js';
import type { Context, Line, Results, Scenario, Table, Target } from './scenario.js';
import { seededServer, type SeededServer } from './seeded.js';
import { openStreamClients, streamDelayAtRest } from './streams.js';

/** Event stream clients kept open beside the posting load (issue 18). */
export const STREAM_CLIENTS = 100;

/** The loads this family shares with the hot scenarios (bench/hot.ts), by the names BENCH_HOT gives them. */
export const LOADS_OF = {
  healthz: ['GET /healthz', (s) => ({ url: `${s.url}/healthz` })],
  posting: ['POST /api/v1/transactions', (s) => ({ url: s.url, requests: [s.postRequest] })],
  posting1: ['POST /api/v1/transactions (1 connection)', (s) => ({ url: s.url, requests: [s.postRequest], connections: 1 })],
  balance: ['GET balance', (s) => ({ url: `${s.url}/api/v1/accounts/${s.s.accounts[0]}/balance`, headers: s.auth })],
  entries: ['GET entries (page of 50)', (s) => ({ url: `${s.url}/api/v1/accounts/${s.s.accounts[0]}/entries?limit=50`, headers: s.auth })],
} satisfies Record<string, [string, (s: SeededServer) => autocannon.Options]>;

/** One of LOADS_OF on the seeded server. */
export async function loadOf(ctx: Context, name: keyof typeof LOADS_OF): Promise<LoadRow> {
  const s = await ctx.use(seededServer);
  const [label, options] = LOADS_OF[name];
  return load(ctx, label, options(s), s.pids);
}

/** One posting made as the load's requests are (its setupRequest), sent with fetch. */
const postOnceWith = (url: string, postRequest: ReturnType<typeof postRequestFor>) => async () => {
  const req = postRequest.setupRequest({});
  const res = await fetch(`${url}${postRequest.path}`, { method: 'POST', headers: req.headers, body: req.body });
  if (res.status !== 201) throw new Error(`posting answered ${res.status}: ${await res.text()}`);
};

export interface StreamsFigures {
  row: LoadRow;
  events: number;
  /** At rest, after the load: from a posting's answer to its event on a stream. */
  delay: { p50: number; max: number };
}

/** The posting load with STREAM_CLIENTS event streams of the same tenant open beside it, each taking every event. */
export async function besideStreams(ctx: Context): Promise<StreamsFigures> {
  const s = await ctx.use(seededServer);
  const clients = await openStreamClients(s.url, s.s.rawKey, STREAM_CLIENTS);
  let row: LoadRow;
  let events: number;
  try {
    row = await load(ctx, `POST /api/v1/transactions (${STREAM_CLIENTS} event streams beside)`, { url: s.url, requests: [s.postRequest] }, s.pids);
    events = clients.events();
    console.error(`  event streams: ${STREAM_CLIENTS} clients received ${events} events in all during the load`);
  } finally {
    clients.close();
  }
  const delay = await streamDelayAtRest(s.url, s.s.rawKey, postOnceWith(s.url, s.postRequest));
  console.error(`  event stream at rest: a commit reached the client ${delay.p50.toFixed(1)} ms after its answer (p50), ${delay.max.toFixed(1)} ms at most`);
  return { row, events, delay };
}

export interface WebhooksFigures {
  row: LoadRow;
  delivered: number;
  seconds: number;
  rate: number;
}

/** The posting load with every posting delivered to the local HTTPS receiver meanwhile; delivery is stopped after. */
export async function besideWebhooks(ctx: Context): Promise<WebhooksFigures> {
  const s = await ctx.use(seededServer);
  console.error('webhooks: the same posting load with every posting delivered to a local HTTPS receiver');
  const put = await fetch(`${s.url}/api/v1/tenant/webhook`, { method: 'PUT', headers: s.json, body: JSON.stringify({ webhookUrl: s.receiver.url }) });
  if (put.status !== 200) throw new Error(`webhook PUT answered ${put.status}: ${await put.text()}`);
  const before = s.receiver.received();
  const began = performance.now();
  const row = await load(ctx, 'POST /api/v1/transactions (webhook deliveries beside)', { url: s.url, requests: [s.postRequest] }, s.pids);
  const delivered = s.receiver.received() - before;
  const seconds = (performance.now() - began) / 1000;
  const rate = Math.round(delivered / seconds);
  console.error(`  deliveries: ${delivered} during the load (${rate}/s)`);
  // Stop delivering before the read scenarios: an unreachable URL parks the sender on retries.
  await fetch(`${s.url}/api/v1/tenant/webhook`, { method: 'PUT', headers: s.json, body: JSON.stringify({ webhookUrl: 'https://127.0.0.1:9/off' }) });
  return { row, delivered, seconds, rate };
}

/** The database file's size once its WAL is copied in (a checkpoint from a connection of the bench's own). */
function checkpointedSize(dbPath: string): number {
  const db = new BetterSqlite3(dbPath);
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return statSync(dbPath).size;
}

const THROUGHPUT: Table = {
  title: 'Throughput (same server, same run)',
  columns: ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs /healthz'],
  align: 'lrrrrr',
};

const family = 'throughput';
const setup = [seededServer];
const cpuOf = (r: LoadRow) => (r.cpu ? Math.round(r.cpu.usPerRequest) : Number.NaN);

export const healthz: Scenario<LoadRow> = { name: 'healthz', family, setup, run: (ctx) => loadOf(ctx, 'healthz'), print: (r, all) => [line(r, all)] };

/** A row of the throughput table, against /healthz of the same run when it ran. */
function line(r: LoadRow, all: Results, label = r.scenario): Line {
  const health = all.of(healthz);
  return { table: THROUGHPUT, cells: [label, r.rps, r.p50, r.p99, r.errors, health ? pct(r, health) : '-'] };
}

/** A share of /healthz's requests a second, judged when /healthz ran. */
const vsHealth = <F>(what: string, percent: number, row: (f: F) => LoadRow): Target<F> => ({
  label: (f, all) => `${what} >= ${percent}% of /healthz (${pct(row(f), all.of(healthz)!)})`,
  met: (f, all) => row(f).rps >= (percent / 100) * all.of(healthz)!.rps,
  when: (_, all) => all.of(healthz) !== undefined,
});

/** A share of the posting load's requests a second, judged when the posting scenario ran. */
const vsPosting = <F>(what: (f: F, ratio: string) => string, share: number, row: (f: F) => LoadRow): Target<F> => ({
  label: (f, all) => what(f, pct(row(f), all.of(posting)!.row)),
  met: (f, all) => row(f).rps >= share * all.of(posting)!.row.rps,
  when: (_, all) => all.of(posting) !== undefined,
});

/** Every load of the run (PostgreSQL's too) and every 1000-line posting beside, answered without an error. */
const errorsOf = (all: Results) => all.loads.reduce((n, r) => n + r.errors, 0) + (all.of(besideHeavy)?.heavy.errors ?? 0);

export const posting: Scenario<{ row: LoadRow; bytesPerPosting: number }> = {
  name: 'posting',
  family,
  setup,
  async run(ctx) {
    const s = await ctx.use(seededServer);
    const sizeBefore = checkpointedSize(s.dbPath);
    const row = await loadOf(ctx, 'posting');
    return { row, bytesPerPosting: (checkpointedSize(s.dbPath) - sizeBefore) / row.answered };
  },
  print: ({ row, bytesPerPosting }, all) => [
    line(row, all),
    { table: THROUGHPUT, note: `Storage: the database file grew ${Math.round(bytesPerPosting).toLocaleString('en-US')} bytes per 2-line posting over the posting scenario (after a checkpoint).` },
  ],
  targets: [
    vsHealth('posting', 15, (f) => f.row),
    { label: ({ row }) => `posting server CPU <= 160 µs per posting (${cpuOf(row)} µs)`, met: ({ row }) => cpuOf(row) <= 160 },
    { label: ({ row }) => `posting p99 <= 25 ms at 64 connections (${row.p99} ms)`, met: ({ row }) => row.p99 <= 25 },
    { label: (_, all) => `no errors (${errorsOf(all)})`, met: (_, all) => errorsOf(all) === 0 },
  ],
};

/** The same posting load while one client of a second tenant ('heavy', seeded) posts maximum-size transactions. */
export const besideHeavy: Scenario<{ row: LoadRow; heavy: HeavyFigures }> = {
  name: 'posting-beside-heavy',
  family,
  setup,
  async run(ctx) {
    const s = await ctx.use(seededServer);
    console.error(`the same posting load while another tenant posts ${HEAVY_LINES}-line transactions, one at a time`);
    const [, options] = LOADS_OF.posting;
    return besideHeavyPostings(s.url, { authorization: `Bearer ${s.s.heavy.rawKey}`, 'content-type': 'application/json' }, heavyBody(s.s.heavy.debit, s.s.heavy.credit), () =>
      load(ctx, 'POST /api/v1/transactions (2 lines), 1000-line postings beside', options(s), s.pids),
    );
  },
  print: ({ row, heavy }, all) => [
    line(row, all),
    { table: THROUGHPUT, cells: [heavy.scenario, heavy.rate.toFixed(1), heavy.p50, heavy.p99, heavy.errors, '-'] },
    {
      table: THROUGHPUT,
      note: `${HEAVY_LINES}-line postings (another tenant, ${(heavy.bytes / 1024 / 1024).toFixed(2)} MB each) during that posting load: ${heavy.count}, p50 ${heavy.p50} ms, p99 ${heavy.p99} ms; errors ${heavy.errors} of ${heavy.total} sent in all.`,
    },
  ],
  targets: [vsPosting((_, ratio) => `posting beside 1000-line postings >= 0.7x posting alone (${ratio})`, 0.7, (f) => f.row)],
};

export const besideStreamsScenario: Scenario<StreamsFigures> = {
  name: 'posting-beside-streams',
  family,
  setup,
  run: besideStreams,
  print: (f, all) => [line(f.row, all, `POST /api/v1/transactions, ${STREAM_CLIENTS} event streams beside`)],
  targets: [
    vsPosting(
      (f, ratio) => `posting with ${STREAM_CLIENTS} event streams beside >= 80% of posting alone (${ratio}; ${f.events.toLocaleString('en-US')} events streamed)`,
      0.8,
      (f) => f.row,
    ),
    {
      label: ({ delay }) => `at rest, a commit reaches an event stream within 100 ms (${delay.p50.toFixed(1)} ms p50, ${delay.max.toFixed(1)} ms at most)`,
      met: ({ delay }) => delay.max <= 100,
    },
  ],
};

export const posting1: Scenario<LoadRow> = {
  name: 'posting1',
  family,
  setup,
  run: (ctx) => loadOf(ctx, 'posting1'),
  print: (r, all) => [line(r, all)],
  targets: [{ label: (r) => `posting p99 <= 3 ms at 1 connection (${r.p99} ms)`, met: (r) => r.p99 <= 3 }],
};

export const balance: Scenario<LoadRow> = {
  name: 'balance',
  family,
  setup,
  run: (ctx) => loadOf(ctx, 'balance'),
  print: (r, all) => [line(r, all)],
  targets: [vsHealth('balance', 40, (r) => r), { label: (r) => `balance server CPU <= 50 µs per read (${cpuOf(r)} µs)`, met: (r) => cpuOf(r) <= 50 }],
};

export const entries: Scenario<LoadRow> = {
  name: 'entries',
  family,
  setup,
  run: (ctx) => loadOf(ctx, 'entries'),
  print: (r, all) => [line(r, all)],
  targets: [vsHealth('entries page', 15, (r) => r)],
};

export const besideWebhooksScenario: Scenario<WebhooksFigures> = {
  name: 'posting-beside-webhooks',
  family,
  setup,
  run: besideWebhooks,
  print: (f, all) => [
    line(f.row, all, 'POST /api/v1/transactions, webhook deliveries beside'),
    {
      table: THROUGHPUT,
      note: `Webhook deliveries to a local HTTPS receiver during that load: ${f.delivered} in ${f.seconds.toFixed(1)} s = ${f.rate}/s (one tenant: one delivery in flight at a time, in commit order).`,
    },
  ],
  targets: [vsPosting((_, ratio) => `posting with webhook deliveries beside >= 80% of posting alone (${ratio})`, 0.8, (f) => f.row)],
};

/** In the order they run: the first loads meet the server as the seed left it. */
export const throughput: Scenario<any>[] = [healthz, posting, besideHeavy, besideStreamsScenario, posting1, balance, entries, besideWebhooksScenario];
