// `BENCH_ONLY=fairness`: what one tenant's burst of heavy writes costs another tenant (issue 29). On each engine
// (SQLite, then a throwaway local PostgreSQL 18), a second tenant posts 2-line transactions in a few loops, one request
// in flight each, while the first, at once:
//   - posts BENCH_BURST (60) transactions of 1000 lines;
//   - captures 60 holds of 1000 lines;
//   - voids 60 such holds;
//   - lets 60 such holds expire together;
//   - posts 60 batches of 500 2-line postings (POST /api/v1/transactions/batch, not atomic: each item its own write);
//   - posts 8 batches of 500 20-line postings (10,000 lines each, the most a batch takes), not atomic;
//   - posts 8 atomic batches of 500 2-line postings with 3 metadata entries each.
// Reads are measured beside the same load by bench/readFairness.ts.
// The figure is the second tenant's worst wait (and p99) over the burst, judged against FAIRNESS_TARGET_MS (500 ms).
// Beside it, the worst GET /healthz over the same time: slow too, the HTTP thread was busy; quick, the writes waited.
// BENCH_FAIR=postings,captures picks scenarios; BENCH_ENGINES=sqlite (or postgres) picks an engine. Every scenario
// meets a server that has made large writes before (BENCH_FAIR_COLD=1: the postings burst, a fresh one).
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLedger } from '../src/store/open.js';
import { CLI_ACTOR_ID } from '../src/core/audit.js';
import { freshDatabaseUrl, startTestPostgres } from '../test/helpers/postgres.js';
import { heavyBody, HEAVY_LINES } from './requests.js';
import { startServer, stopChild, type BenchServer } from './server.js';
import { during, percentile, startLightLoad, type Sample } from './lightLoad.js';

const BURST = Number(process.env.BENCH_BURST ?? 60);
/** BENCH_FAIR_COLD=1: the postings burst meets a server that has made no large write yet. */
const WARM = process.env.BENCH_FAIR_COLD !== '1';
/** The other tenant's posting loops (one request in flight each). */
const LIGHT_LOOPS = 4;
const FAIRNESS_TARGET_MS = 500;
/** The light load runs alone this long before a burst, and this long after it. */
const LEAD_MS = 2000;
const TAIL_MS = 500;
/** Holds are made this many at a time before a burst (not measured). */
const SETUP_CONCURRENCY = 4;
const actor = { type: 'HUMAN' as const, keyId: CLI_ACTOR_ID };

type Scenario = 'postings' | 'captures' | 'voids' | 'expiries' | 'batches' | 'large-batches' | 'atomic-batches';
const SCENARIOS: readonly Scenario[] = ['postings', 'captures', 'voids', 'expiries', 'batches', 'large-batches', 'atomic-batches'];
/** Postings in each batch of the batches scenarios: the most a batch takes. */
const BATCH_ITEMS = 500;
/** Batches sent at once in the large-batches and atomic-batches scenarios (issue 41), and their postings' shapes. */
const LARGE_BATCHES = 8;
const LARGE_BATCH_LINES = 20;
const ATOMIC_BATCH_METADATA = { order: 'o-1001', customer: 'c-42', channel: 'web' };

export interface Tenants {
  heavy: { rawKey: string; debit: string; credit: string };
  light: { rawKey: string; accounts: string[] };
}

export interface FairnessRow {
  engine: string;
  scenario: string;
  burstMs: number;
  /** Statuses of the burst's requests (or holds expired, for expiries). */
  heavy: string;
  count: number;
  p50: number;
  p99: number;
  worst: number;
  healthWorst: number;
  errors: number;
  /** The same postings' p99 and worst over the lead, before the burst: what this machine gives with no burst at all. */
  aloneP99: number;
  aloneWorst: number;
}

async function seed(db: string): Promise<Tenants> {
  const opened = await openLedger(db, { writer: 'local' });
  try {
    const { ledger } = opened;
    const heavy = await ledger.tenants.create('heavy', actor);
    const light = await ledger.tenants.create('light', actor);
    const account = (tenantId: string, name: string, type: 'ASSET') => ledger.accounts.create(tenantId, { name, currency: 'USD', type }, actor).then((a) => a.id);
    const accounts: string[] = [];
    for (let i = 0; i < 8; i++) accounts.push(await account(light.tenantId, `light-${i}`, 'ASSET'));
    return {
      // Both ASSET: a hold's CREDIT lines on `credit` show in its pending amount until the hold ends.
      heavy: { rawKey: heavy.apiKey.rawKey, debit: await account(heavy.tenantId, 'debit', 'ASSET'), credit: await account(heavy.tenantId, 'credit', 'ASSET') },
      light: { rawKey: light.apiKey.rawKey, accounts },
    };
  } finally {
    await opened.close();
  }
}

export const json = (rawKey: string) => ({ authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' });

/** Runs `work` over `items`, `concurrency` at a time. */
async function inParallel<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/** Makes `count` holds of HEAVY_LINES lines for the heavy tenant; answers their ids. */
async function makeHolds(url: string, t: Tenants, count: number, expiresAt?: string): Promise<string[]> {
  const body = heavyBody(t.heavy.debit, t.heavy.credit, expiresAt ? { expiresAt } : {});
  const ids: string[] = [];
  await inParallel(Array.from({ length: count }, (_, i) => i), SETUP_CONCURRENCY, async () => {
    const res = await fetch(`${url}/api/v1/holds`, { method: 'POST', headers: { ...json(t.heavy.rawKey), 'idempotency-key': randomUUID() }, body });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`a hold answered ${res.status}: ${text.slice(0, 300)}`);
    ids.push((JSON.parse(text) as { holdId: string }).holdId);
  });
  return ids;
}

/**
 * One request of a burst, with node:http: no time-out, since a large write waits its share of the writer for as long
 * as it takes (fetch gives up after 300 s). Answers its status.
 */
export function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** Sends every request at once; answers the burst's span and its statuses counted. */
export async function burst(requests: ReadonlyArray<() => Promise<number>>): Promise<{ began: number; ended: number; heavy: string }> {
  const began = Date.now();
  const statuses = await Promise.all(
    requests.map(async (go) => {
      try {
        return String(await go());
      } catch (error) {
        return error instanceof Error ? error.message : 'error';
      }
    }),
  );
  const ended = Date.now();
  const counted = new Map<string, number>();
  for (const s of statuses) counted.set(s, (counted.get(s) ?? 0) + 1);
  return { began, ended, heavy: [...counted].map(([s, n]) => `${n}×${s}`).join(', ') };
}

/** The heavy tenant's credit account has nothing pending any more: every hold on it ended. */
async function untilReleased(url: string, t: Tenants): Promise<void> {
  for (;;) {
    const res = await fetch(`${url}/api/v1/accounts/${t.heavy.credit}/balance`, { headers: json(t.heavy.rawKey) });
    const body = (await res.json()) as { pending: number };
    if (body.pending === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function runScenario(engine: string, scenario: Scenario, server: BenchServer, t: Tenants): Promise<FairnessRow> {
  const { url } = server;
  const heavyHeaders = json(t.heavy.rawKey);
  const post = (body: string) => () => send(`${url}/api/v1/transactions`, 'POST', { ...heavyHeaders, 'idempotency-key': randomUUID() }, body);
  const holdStep = (id: string, step: 'capture' | 'void') => () => send(`${url}/api/v1/holds/${id}/${step}`, 'POST', { ...heavyHeaders, 'idempotency-key': randomUUID() }, step === 'capture' ? '{}' : undefined);

  // What the burst will send, made before the light load starts.
  let requests: Array<() => Promise<number>> = [];
  let expiresAt = 0;
  if (scenario === 'postings') {
    const body = heavyBody(t.heavy.debit, t.heavy.credit);
    requests = Array.from({ length: BURST }, () => post(body));
    // The server has made a large write before the burst, as in the other scenarios (they make their holds first):
    // a fresh process's first one is slower (code not yet compiled), which is not what this measures.
    if (WARM) await post(body)();
  } else if (scenario === 'batches' || scenario === 'large-batches' || scenario === 'atomic-batches') {
    const line = (accountId: string, entryType: string) => ({ accountId, entryType, monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'ACH' } });
    // A batch of BATCH_ITEMS postings: 2 lines each, or LARGE_BATCH_LINES (the 10,000 lines a batch takes in all);
    // atomic, with metadata, in the last scenario.
    const lines = scenario === 'large-batches' ? LARGE_BATCH_LINES : 2;
    const posting = () => ({
      idempotencyKey: randomUUID(),
      lines: Array.from({ length: lines }, (_, i) => line(i % 2 === 0 ? t.heavy.debit : t.heavy.credit, i % 2 === 0 ? 'DEBIT' : 'CREDIT')),
      ...(scenario === 'atomic-batches' ? { metadata: ATOMIC_BATCH_METADATA } : {}),
    });
    const batchBody = () => JSON.stringify({ ...(scenario === 'atomic-batches' ? { atomic: true } : {}), transactions: Array.from({ length: BATCH_ITEMS }, posting) });
    requests = Array.from({ length: scenario === 'batches' ? BURST : LARGE_BATCHES }, () => {
      const body = batchBody();
      return () => send(`${url}/api/v1/transactions/batch`, 'POST', heavyHeaders, body);
    });
  } else if (scenario === 'captures' || scenario === 'voids') {
    const ids = await makeHolds(url, t, BURST);
    requests = ids.map((id) => holdStep(id, scenario === 'captures' ? 'capture' : 'void'));
  } else {
    // Long enough to make them all first: twice what making as many took, measured now on a few.
    const began = Date.now();
    const measured = await makeHolds(url, t, SETUP_CONCURRENCY);
    const perHold = (Date.now() - began) / SETUP_CONCURRENCY;
    expiresAt = Date.now() + Math.max(5_000, 2 * perHold * BURST + LEAD_MS);
    // Those end now, so that nothing is pending on the account but the holds that will expire.
    for (const id of measured) await holdStep(id, 'void')();
    await makeHolds(url, t, BURST, new Date(expiresAt).toISOString());
    if (Date.now() > expiresAt - LEAD_MS) throw new Error('the holds took longer to make than their expiry allowed');
  }

  return measureBeside(engine, describe(scenario), url, t.light, async () => {
    if (scenario !== 'expiries') return burst(requests);
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now())));
    await untilReleased(url, t);
    return { began: expiresAt, ended: Date.now(), heavy: `${BURST} expired` };
  });
}

/**
 * Runs another tenant's light load (its postings and /healthz), and beside it, after LEAD_MS alone, `heavy`: whatever
 * one tenant does, answering when it began and ended and what it got. Answers the other tenant's figures over that span.
 */
export async function measureBeside(
  engine: string,
  scenario: string,
  url: string,
  light: Tenants['light'],
  heavy: () => Promise<{ began: number; ended: number; heavy: string }>,
): Promise<FairnessRow> {
  const load = startLightLoad(url, light.rawKey, light.accounts, LIGHT_LOOPS);
  let span: { began: number; ended: number; heavy: string };
  let samples: { postings: Sample[]; health: Sample[] };
  try {
    await new Promise((r) => setTimeout(r, LEAD_MS));
    span = await heavy();
    await new Promise((r) => setTimeout(r, TAIL_MS));
  } finally {
    samples = await load.stop();
  }
  const postings = during(samples.postings, span.began, span.ended);
  const ok = postings.filter((s) => s.status === 201).map((s) => s.ms);
  const health = during(samples.health, span.began, span.ended).map((s) => s.ms);
  const alone = samples.postings.filter((s) => s.startedAt + s.ms < span.began - TAIL_MS && s.status === 201).map((s) => s.ms);
  if (process.env.BENCH_FAIR_DEBUG) {
    const top = (list: Sample[]) => [...list].sort((a, b) => b.ms - a.ms).slice(0, 5).map((s) => `${Math.round(s.ms)} ms at +${s.startedAt - span.began} ms (${s.status})`).join('; ');
    console.error(`    slowest postings: ${top(samples.postings)}\n    slowest /healthz: ${top(samples.health)}`);
  }
  const row: FairnessRow = {
    engine,
    scenario,
    burstMs: span.ended - span.began,
    heavy: span.heavy,
    count: postings.length,
    p50: percentile(ok, 50),
    p99: percentile(ok, 99),
    worst: Math.round(most(postings.map((s) => s.ms))),
    healthWorst: Math.round(most(health)),
    errors: samples.postings.filter((s) => s.status !== 201).length,
    aloneP99: percentile(alone, 99),
    aloneWorst: Math.round(most(alone)),
  };
  console.error(
    `  ${engine}, ${row.scenario}: burst ${(row.burstMs / 1000).toFixed(1)} s (${row.heavy}); other tenant's postings during it: ${row.count}, ` +
      `p50 ${row.p50} ms, p99 ${row.p99} ms, worst ${row.worst} ms; /healthz worst ${row.healthWorst} ms; errors ${row.errors}; ` +
      `before the burst: p99 ${row.aloneP99} ms, worst ${row.aloneWorst} ms`,
  );
  return row;
}

/** The largest of many figures (Math.max(...list) overflows the stack past some 100,000). */
const most = (list: readonly number[]) => list.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);

const describe = (scenario: Scenario) =>
  ({
    postings: `beside ${BURST} concurrent ${HEAVY_LINES}-line postings`,
    captures: `beside ${BURST} concurrent captures of ${HEAVY_LINES}-line holds`,
    voids: `beside ${BURST} concurrent voids of ${HEAVY_LINES}-line holds`,
    expiries: `beside ${BURST} ${HEAVY_LINES}-line holds expiring together`,
    batches: `beside ${BURST} concurrent batches of ${BATCH_ITEMS} 2-line postings`,
    'large-batches': `beside ${LARGE_BATCHES} concurrent batches of ${BATCH_ITEMS} ${LARGE_BATCH_LINES}-line postings`,
    'atomic-batches': `beside ${LARGE_BATCHES} concurrent atomic batches of ${BATCH_ITEMS} 2-line postings with metadata`,
  })[scenario];

async function onEngine(engine: 'SQLite' | 'PostgreSQL', db: string, scenarios: readonly Scenario[]): Promise<FairnessRow[]> {
  const tenants = await seed(db);
  const server = await startServer(db);
  const rows: FairnessRow[] = [];
  try {
    for (const scenario of scenarios) {
      rows.push(await runScenario(engine, scenario, server, tenants));
      await new Promise((r) => setTimeout(r, 1000));
    }
  } finally {
    await stopChild(server.child);
  }
  return rows;
}

/** Runs the chosen scenarios on the chosen engines; answers the rows, and prints their table unless told not to. */
export async function benchFairness(print = true): Promise<FairnessRow[]> {
  const scenarios = process.env.BENCH_FAIR ? SCENARIOS.filter((s) => process.env.BENCH_FAIR!.split(',').includes(s)) : SCENARIOS;
  const rows = await onEachEngine('ledger-fair-', `another tenant's 2-line postings (${LIGHT_LOOPS} loops) beside one tenant's bursts`, (engine, db) => onEngine(engine, db, scenarios));
  if (print) printFairness(rows);
  return rows;
}

/**
 * Runs `each` on SQLite (a file in a folder of its own) and on a throwaway PostgreSQL, as BENCH_ENGINES asks (both by
 * default), saying what it measures on each; answers their rows, SQLite's first.
 */
export async function onEachEngine(
  folder: string,
  what: string,
  each: (engine: 'SQLite' | 'PostgreSQL', db: string) => Promise<FairnessRow[]>,
): Promise<FairnessRow[]> {
  const engines = process.env.BENCH_ENGINES?.split(',') ?? ['sqlite', 'postgres'];
  const rows: FairnessRow[] = [];
  if (engines.includes('sqlite')) {
    const dir = mkdtempSync(join(tmpdir(), folder));
    try {
      console.error(`on SQLite: ${what}`);
      rows.push(...(await each('SQLite', join(dir, 'ledger.db'))));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (engines.includes('postgres')) {
    const pg = await startTestPostgres();
    try {
      console.error('on PostgreSQL: the same');
      rows.push(...(await each('PostgreSQL', await freshDatabaseUrl(pg.url))));
    } finally {
      await pg.stop();
    }
  }
  return rows;
}

/** Whether a row meets the target: the other tenant's worst wait under FAIRNESS_TARGET_MS, and no error. */
export const fairnessMet = (r: FairnessRow) => r.worst < FAIRNESS_TARGET_MS && r.errors === 0;

export const fairnessTarget = (r: FairnessRow) => `${r.engine}: another tenant's worst posting wait ${r.scenario} < ${FAIRNESS_TARGET_MS} ms (${r.worst} ms, p99 ${r.p99} ms)`;

export function printFairness(rows: readonly FairnessRow[]): void {
  console.log(`\n## Another tenant beside a burst (${LIGHT_LOOPS} loops of 2-line postings; target: worst wait < ${FAIRNESS_TARGET_MS} ms)\n`);
  console.log('| engine | scenario | burst s | burst answers | postings during | p50 ms | p99 ms | worst ms | /healthz worst ms | alone: p99, worst ms | target |');
  console.log('|---|---|---:|---|---:|---:|---:|---:|---:|---:|---|');
  for (const r of rows) {
    console.log(
      `| ${r.engine} | ${r.scenario} | ${(r.burstMs / 1000).toFixed(1)} | ${r.heavy} | ${r.count} | ${r.p50} | ${r.p99} | ${r.worst} | ${r.healthWorst} | ${r.aloneP99}, ${r.aloneWorst} | ${fairnessMet(r) ? 'met' : 'MISSED'} |`,
    );
  }
}
