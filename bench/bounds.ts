// Another tenant beside hostile connections (issue 29), on SQLite and on PostgreSQL: `BENCH_ONLY=stream-flood`,
// `BENCH_ONLY=silent-connections` and `BENCH_ONLY=cap-flood` (`BENCH_ONLY=bounds` runs all three). The other tenant ("victim") posts one 2-line
// transaction at a time, each on a new connection, as a client that is not already connected must: a connection the
// server closes at once (a cap) is tried again every 50 ms, and the wait is counted from the first try, so the figure
// is the wait for a slot and an answer. First alone (the baseline, same server), then beside:
//  - a flood of 4,000 event streams of one tenant, from 20 loopback addresses (200 each: under the per-client cap, so
//    that the stream caps are what is exercised; at most 400 requests on their way at once); a stream refused with
//    429 is asked again after its Retry-After, one the server ends at once. The victim is measured while the flood's
//    first 4,000 requests are answered (the ramp), then while the flood holds what it got, for the load's length and
//    at least a Retry-After (the refused streams' second wave included);
//  - 300 connections that send nothing, with `--max-connections 300` (the issue's setting): from one address (the
//    per-client cap holds it to 256), and spread over three (each under the cap, all 300 slots taken: then
//    --headers-timeout, 5 s here, is what frees slots). Each is opened again as soon as the server closes it;
//  - a flood of connections over the per-client cap (issue 41): one address holds its 256 connections, and 64 clients
//    from it open one connection after another, each sending a request and reading until the server closes it. Since
//    issue 41 each is answered 503; before, each was closed at once (run an older build with BENCH_LEDGER_BIN to
//    compare). Beside the victim's waits: the refusals a second, how they ended, and the server's CPU time (user and
//    system, from /proc) per 1,000 of them.
// Each scenario is a row of the bench's table on SQLite, then on PostgreSQL (on one throwaway server for the three), each
// on a fresh database. BENCH_SECONDS (default 10) is the length of each load; BENCH_LEDGER_BIN runs another build's CLI
// (an older one, to compare); BENCH_PG=0 skips PostgreSQL. BENCH_BOUNDS=0 leaves them out of a full run.
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { HEADERS_TIMEOUT_MS, STREAM_RETRY_AFTER_SECONDS } from '../src/core/limits.js';
import { processCpuUs } from './cpu.js';
import { cluster, ENGINES, freshDb, type Engine } from './engines.js';
import { startCapFlood, startSilentFlood, startStreamFlood } from './floods.js';
import { SECONDS } from './load.js';
import { sleep, type Line, type Scenario, type Table } from './scenario.js';
import { makeTenant, seed } from './seed.js';
import { LEDGER_BIN, startServer, stopChild } from './server.js';
import { percentile } from './stats.js';

const FLOOD_STREAMS = 4000;
const FLOOD_ADDRESSES = Array.from({ length: 20 }, (_, i) => `127.0.1.${i + 1}`);
/** The victim is measured while the flood asks for its streams the first time, at most this long. */
const RAMP_MAX_MS = 180_000;
const SILENT = 300;
const SILENT_MAX_CONNECTIONS = 300;
const SILENT_SPREAD_HEADERS_TIMEOUT_S = 5;
const RETRY_CONNECT_MS = 50;
/** The cap flood: the connections its address holds (the default --max-connections-per-client), and its clients. */
const CAP_HELD = 256;
const CAP_FLOOD_CLIENTS = 64;
const CAP_FLOOD_ADDRESS = '127.0.3.1';
const FAIRNESS_TARGET_MS = 500;
const REQUEST_TIMEOUT_MS = 60_000;

interface Victim {
  rawKey: string;
  accounts: [string, string];
}

interface Tenants {
  victim: Victim;
  flooder: string;
}

async function seedTenants(db: string): Promise<Tenants> {
  return seed(db, async ({ ledger }) => {
    const victim = await makeTenant(ledger, 'victim', ['a', 'b']);
    const flooder = await makeTenant(ledger, 'flooder');
    return { victim: { rawKey: victim.rawKey, accounts: victim.accounts as [string, string] }, flooder: flooder.rawKey };
  });
}

/** One posting on a new connection: its status, or a thrown error when the connection was refused or reset. */
function postOnce(url: string, victim: Victim): Promise<number> {
  const body = JSON.stringify({
    lines: [
      { accountId: victim.accounts[0], entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'ACH' } },
      { accountId: victim.accounts[1], entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'ACH' } },
    ],
  });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/v1/transactions`,
      {
        method: 'POST',
        agent: false,
        timeout: REQUEST_TIMEOUT_MS,
        headers: { authorization: `Bearer ${victim.rawKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID(), connection: 'close' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

interface Waits {
  postings: number;
  p50: number;
  p99: number;
  worst: number;
  /** Connections refused or reset before an answer (each tried again). */
  refusedTries: number;
  /** Answers other than 201. */
  failed: number;
}

/**
 * The victim's loop for `ms`, or until `over` resolves: one posting at a time, each waited for from its first try
 * until its answer.
 */
async function victimFor(url: string, victim: Victim, ms: number, over?: Promise<unknown>): Promise<Waits> {
  const waits: number[] = [];
  let refusedTries = 0;
  let failed = 0;
  let end = performance.now() + ms;
  void over?.then(() => (end = performance.now()));
  while (performance.now() < end) {
    const first = performance.now();
    for (;;) {
      try {
        const status = await postOnce(url, victim);
        if (status !== 201) failed++;
        break;
      } catch {
        refusedTries++;
        // Given up only past a minute beyond the load: the wait is then the figure, not a hang.
        if (performance.now() > end + REQUEST_TIMEOUT_MS) break;
        await sleep(RETRY_CONNECT_MS);
      }
    }
    waits.push(performance.now() - first);
  }
  return { postings: waits.length, p50: percentile(waits, 50), p99: percentile(waits, 99), worst: percentile(waits, 100), refusedTries, failed };
}

interface BoundsRow {
  engine: string;
  scenario: string;
  alone: Waits;
  beside: Waits;
  /** While the hostile side was still opening its connections (the stream flood's first requests), when measured apart. */
  rampingUp?: Waits & { ms: number };
  hostile: string;
}

function report(row: BoundsRow): BoundsRow {
  const w = row.beside;
  const r = row.rampingUp;
  if (r) console.error(`  ${row.engine}, ${row.scenario}, while it ramped up (${r.ms} ms): victim ${r.postings} postings, p99 ${r.p99} ms, worst ${r.worst} ms, ${r.refusedTries} refused tries`);
  console.error(
    `  ${row.engine}, ${row.scenario}: victim ${w.postings} postings, p50 ${w.p50} ms, p99 ${w.p99} ms, worst ${w.worst} ms, ` +
      `${w.refusedTries} refused connection tries, ${w.failed} not 201 (alone: p99 ${row.alone.p99} ms, worst ${row.alone.worst} ms); ${row.hostile}`,
  );
  return row;
}

async function streamFlood(engine: string, db: string, tenants: Tenants): Promise<BoundsRow> {
  const server = await startServer(db);
  try {
    const alone = await victimFor(server.url, tenants.victim, (SECONDS * 1000) / 2);
    const flood = startStreamFlood(server.url, tenants.flooder, FLOOD_STREAMS, FLOOD_ADDRESSES);
    let beside: Waits;
    let rampingUp: Waits & { ms: number };
    try {
      // First while the flood asks for its streams the first time, then for the load's length while it holds them.
      const began = performance.now();
      const ramp = await victimFor(server.url, tenants.victim, RAMP_MAX_MS, flood.ramped);
      rampingUp = { ...ramp, ms: Math.round(performance.now() - began) };
      // Held at least one Retry-After and a little: the refused streams ask again within it.
      beside = await victimFor(server.url, tenants.victim, Math.max(SECONDS, STREAM_RETRY_AFTER_SECONDS + 5) * 1000);
    } finally {
      await flood.stop();
    }
    const f = flood.figures;
    return report({
      engine,
      scenario: `${FLOOD_STREAMS.toLocaleString('en-US')}-stream flood (one tenant, ${FLOOD_ADDRESSES.length} addresses)`,
      alone,
      beside,
      rampingUp,
      hostile: `flood: ${f.attempts} stream requests, ${f.accepted} accepted (at most ${f.maxHeld} held at once), ${f.refused429} refused 429, ${f.otherStatus} other answers, ${f.connectionErrors} connection errors`,
    });
  } finally {
    await stopChild(server.child);
  }
}

async function silentConnections(engine: string, db: string, tenants: Tenants, addresses: string[], headersTimeoutS: number, label: string): Promise<BoundsRow> {
  const server = await startServer(db, { args: ['--max-connections', String(SILENT_MAX_CONNECTIONS), '--headers-timeout', String(headersTimeoutS)] });
  try {
    const alone = await victimFor(server.url, tenants.victim, (SECONDS * 1000) / 2);
    const silent = startSilentFlood(server.url, SILENT, addresses, headersTimeoutS * 1000);
    // The silent connections are opened before the victim's first posting.
    await sleep(500);
    let beside: Waits;
    try {
      beside = await victimFor(server.url, tenants.victim, SECONDS * 1000);
    } finally {
      await silent.stop();
    }
    const f = silent.figures;
    const held = silent.closedAfterMs.length > 0 ? `, closed by the server after ${Math.round(Math.min(...silent.closedAfterMs))}-${Math.round(Math.max(...silent.closedAfterMs))} ms` : '';
    return report({
      engine,
      scenario: `${SILENT} silent connections, --max-connections ${SILENT_MAX_CONNECTIONS}, --headers-timeout ${headersTimeoutS}, ${label}`,
      alone,
      beside,
      hostile: `silent: ${f.opened} opened (at most ${f.maxOpen} open at once), ${f.closedAtOnce} closed at once, ${f.closedAfterTimeout} closed by the time-out${held}`,
    });
  } finally {
    await stopChild(server.child);
  }
}

async function capFlood(engine: string, db: string, tenants: Tenants): Promise<BoundsRow> {
  const server = await startServer(db, { args: ['--max-connections-per-client', String(CAP_HELD)] });
  const pid = server.child.pid!;
  const cpuMs = () => processCpuUs(pid) / 1000;
  try {
    const cpuAlone = cpuMs();
    const alone = await victimFor(server.url, tenants.victim, (SECONDS * 1000) / 2);
    // What the victim's postings cost the server alone, taken off the flood's figure below.
    const cpuPerPosting = (cpuMs() - cpuAlone) / alone.postings;
    const flood = startCapFlood(server.url, { clients: CAP_FLOOD_CLIENTS, held: CAP_HELD, address: CAP_FLOOD_ADDRESS, headersTimeoutMs: HEADERS_TIMEOUT_MS });
    // The held connections are opened before the victim's first posting.
    await sleep(500);
    let beside: Waits;
    const cpuBefore = cpuMs();
    const before = { ...flood.figures };
    const began = performance.now();
    try {
      beside = await victimFor(server.url, tenants.victim, SECONDS * 1000);
    } finally {
      await flood.stop();
    }
    const seconds = (performance.now() - began) / 1000;
    const f = flood.figures;
    const refused = f.refused - before.refused;
    const floodCpu = cpuMs() - cpuBefore - cpuPerPosting * beside.postings;
    const admitted = f.admitted - before.admitted;
    return report({
      engine,
      scenario: `a flood of connections over the per-client cap (${CAP_FLOOD_CLIENTS} clients of one address, ${CAP_HELD} held)`,
      alone,
      beside,
      hostile:
        `flood: ${refused} refused (${Math.round(refused / seconds)} a second): ${f.answered503 - before.answered503} answered 503, ` +
        `${f.resetOrEmpty - before.resetOrEmpty} reset or closed without an answer${admitted > 0 ? `, ${admitted} admitted` : ''}; ` +
        `server CPU ${Math.round((floodCpu / refused) * 1000)} ms per 1,000 refused (the victim's own taken off); ` +
        `worst posting ${beside.worst} ms (target ${FAIRNESS_TARGET_MS}: ${beside.worst < FAIRNESS_TARGET_MS ? 'met' : 'not met'})`,
    });
  } finally {
    await stopChild(server.child);
  }
}

const BOUNDS: Table = {
  title: `Another tenant beside hostile connections (${LEDGER_BIN}; ${SECONDS} s each; each posting on a new connection)`,
  columns: ['engine', 'beside', 'postings', 'p50 ms', 'p99 ms', 'worst wait ms', 'alone: p99 / worst ms', 'refused tries', 'the other side'],
  align: 'llrrrrrrl',
};

function lines(r: BoundsRow): Line[] {
  const w = r.rampingUp;
  const beside: Line = {
    table: BOUNDS,
    cells: [r.engine, `${r.scenario}${w ? ', then held' : ''}`, r.beside.postings, r.beside.p50, r.beside.p99, r.beside.worst, `${r.alone.p99} / ${r.alone.worst}`, r.beside.refusedTries, r.hostile],
  };
  if (!w) return [beside];
  const ramp: Line = {
    table: BOUNDS,
    cells: [r.engine, `${r.scenario}, its first ${FLOOD_STREAMS} requests (${(w.ms / 1000).toFixed(1)} s)`, w.postings, w.p50, w.p99, w.worst, `${r.alone.p99} / ${r.alone.worst}`, w.refusedTries, ''],
  };
  return [ramp, beside];
}

/** The three scenarios, each on a fresh database seeded with the victim and the flooder. */
const SCENARIOS: Array<[name: string, what: string, run: (engine: Engine, db: string, tenants: Tenants) => Promise<BoundsRow[]>]> = [
  ['stream-flood', `a ${FLOOD_STREAMS}-stream flood`, async (engine, db, tenants) => [await streamFlood(engine, db, tenants)]],
  [
    'silent-connections',
    `${SILENT} silent connections`,
    async (engine, db, tenants) => [
      await silentConnections(engine, db, tenants, ['127.0.2.1'], HEADERS_TIMEOUT_MS / 1000, 'one address'),
      await silentConnections(engine, db, tenants, ['127.0.2.1', '127.0.2.2', '127.0.2.3'], SILENT_SPREAD_HEADERS_TIMEOUT_S, 'three addresses'),
    ],
  ],
  ['cap-flood', 'a flood of connections over the per-client cap', async (engine, db, tenants) => [await capFlood(engine, db, tenants)]],
];

const postgres = cluster('the bounds PostgreSQL');

/** Every scenario on SQLite, then every scenario on PostgreSQL (BENCH_PG=0 leaves those out). */
export const bounds: Scenario<BoundsRow[]>[] = ENGINES.flatMap((engine) =>
  SCENARIOS.map(
    ([name, what, run]): Scenario<BoundsRow[]> => ({
      name,
      family: 'bounds',
      byDefault: () => process.env.BENCH_BOUNDS !== '0',
      enabled: () => engine === 'SQLite' || process.env.BENCH_PG !== '0',
      setup: engine === 'SQLite' ? [] : [postgres],
      async run(ctx) {
        console.error(`${engine}: another tenant's postings beside ${what}`);
        const fresh = await freshDb(engine, 'bounds.db', engine === 'SQLite' ? undefined : await ctx.use(postgres));
        try {
          return await run(engine, fresh.db, await seedTenants(fresh.db));
        } finally {
          await fresh.drop();
        }
      },
      print: (rows) => rows.flatMap(lines),
    }),
  ),
);
