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
// Reads are measured beside the same load by bench/readFairness.ts (both through bench/beside.ts).
// The figure is the second tenant's worst wait (and p99) over the burst, judged against FAIRNESS_TARGET_MS (500 ms).
// Beside it, the worst GET /healthz over the same time: slow too, the HTTP thread was busy; quick, the writes waited.
// Each scenario is a row of the bench's table on each engine, on one server of that engine. BENCH_FAIR=postings,captures
// picks scenarios; BENCH_ENGINES=sqlite (or postgres) picks an engine. Every scenario meets a server that has made
// large writes before (BENCH_FAIR_COLD=1: the postings burst, a fresh one).
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { fairnessLine, fairnessTarget, LEAD_MS, LIGHT_LOAD, measureBeside, type FairnessRow, type Light } from './beside.js';
import { engineAsked, ENGINES, freshDb, type Engine, type FreshDb } from './engines.js';
import { heavyBody, HEAVY_LINES } from './requests.js';
import { sleep, type Fixture, type Scenario } from './scenario.js';
import { makeTenant, named, seed } from './seed.js';
import { startServer, stopChild, type BenchServer } from './server.js';

const BURST = Number(process.env.BENCH_BURST ?? 60);
/** BENCH_FAIR_COLD=1: the postings burst meets a server that has made no large write yet. */
const WARM = process.env.BENCH_FAIR_COLD !== '1';
/** Holds are made this many at a time before a burst (not measured). */
const SETUP_CONCURRENCY = 4;

type Burst = 'postings' | 'captures' | 'voids' | 'expiries' | 'batches' | 'large-batches' | 'atomic-batches';
const BURSTS: readonly Burst[] = ['postings', 'captures', 'voids', 'expiries', 'batches', 'large-batches', 'atomic-batches'];
/** Postings in each batch of the batches scenarios: the most a batch takes. */
const BATCH_ITEMS = 500;
/** Batches sent at once in the large-batches and atomic-batches scenarios (issue 41), and their postings' shapes. */
const LARGE_BATCHES = 8;
const LARGE_BATCH_LINES = 20;
const ATOMIC_BATCH_METADATA = { order: 'o-1001', customer: 'c-42', channel: 'web' };

interface Tenants {
  heavy: { rawKey: string; debit: string; credit: string };
  light: Light;
}

async function seedTenants(db: string): Promise<Tenants> {
  return seed(db, async ({ ledger }) => {
    // Both ASSET: a hold's CREDIT lines on `credit` show in its pending amount until the hold ends.
    const heavy = await makeTenant(ledger, 'heavy', ['debit', 'credit']);
    const light = await makeTenant(ledger, 'light', named('light-', 8));
    return { heavy: { rawKey: heavy.rawKey, debit: heavy.accounts[0]!, credit: heavy.accounts[1]! }, light: { rawKey: light.rawKey, accounts: light.accounts } };
  });
}

const json = (rawKey: string) => ({ authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' });

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
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<number> {
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
async function burst(requests: ReadonlyArray<() => Promise<number>>): Promise<{ began: number; ended: number; heavy: string }> {
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

async function runBurst(engine: string, scenario: Burst, server: BenchServer, t: Tenants): Promise<FairnessRow> {
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

const describe = (scenario: Burst) =>
  ({
    postings: `beside ${BURST} concurrent ${HEAVY_LINES}-line postings`,
    captures: `beside ${BURST} concurrent captures of ${HEAVY_LINES}-line holds`,
    voids: `beside ${BURST} concurrent voids of ${HEAVY_LINES}-line holds`,
    expiries: `beside ${BURST} ${HEAVY_LINES}-line holds expiring together`,
    batches: `beside ${BURST} concurrent batches of ${BATCH_ITEMS} 2-line postings`,
    'large-batches': `beside ${LARGE_BATCHES} concurrent batches of ${BATCH_ITEMS} ${LARGE_BATCH_LINES}-line postings`,
    'atomic-batches': `beside ${LARGE_BATCHES} concurrent atomic batches of ${BATCH_ITEMS} 2-line postings with metadata`,
  })[scenario];


/** The server of one engine that every burst of that engine meets, on a fresh database seeded with the two tenants. */
const serverOn = (engine: Engine): Fixture<{ fresh: FreshDb; server: BenchServer; tenants: Tenants }> => ({
  name: `the fairness server on ${engine}`,
  async start() {
    const fresh = await freshDb(engine, 'ledger.db');
    console.error(engine === 'SQLite' ? `on SQLite: ${LIGHT_LOAD} beside one tenant's bursts` : 'on PostgreSQL: the same');
    const tenants = await seedTenants(fresh.db);
    return { fresh, tenants, server: await startServer(fresh.db) };
  },
  async stop({ fresh, server }) {
    await stopChild(server.child);
    await fresh.drop();
  },
});

const asked = (burst: Burst) => !process.env.BENCH_FAIR || process.env.BENCH_FAIR.split(',').includes(burst);

/** Every burst on SQLite, then every burst on PostgreSQL; `BENCH_FAIRNESS=0` leaves them out of a full run. */
export const fairness: Scenario<FairnessRow>[] = ENGINES.flatMap((engine) => {
  const on = serverOn(engine);
  return BURSTS.map(
    (burst): Scenario<FairnessRow> => ({
      name: 'fairness',
      family: 'fairness',
      byDefault: () => process.env.BENCH_FAIRNESS !== '0',
      enabled: () => engineAsked(engine) && asked(burst),
      setup: [on],
      async run(ctx) {
        const { server, tenants } = await ctx.use(on);
        const row = await runBurst(engine, burst, server, tenants);
        await sleep(1000);
        return row;
      },
      print: (r) => [fairnessLine(r)],
      targets: [fairnessTarget],
    }),
  );
});
