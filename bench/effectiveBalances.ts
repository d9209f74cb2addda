// `BENCH_ONLY=effective-balances npm run bench`: the balance by effective instant (issue 44, section 1) against the
// account's size, on SQLite and then on a throwaway local PostgreSQL 18 (BENCH_ENGINES picks one). On each engine, one
// server on a fresh database:
//   1. a big account is seeded with BENCH_EFFECTIVE_ENTRIES (100,000) entries by atomic batches of postings, one in
//      ten back-dated by up to 30 days (`effectiveAt`), and a small account with 10 the same way;
//   2. GET /accounts/{id}/balance?asOf=<instant>&basis=effective, and its posted-basis twin, at the same random
//      instants of the last 30 days, one request at a time (BENCH_EFFECTIVE_READS each, 2,000 by default), on the big
//      account and on the small one: the mean µs per read.
// Target: an effective-basis read on the big account within 2x of one on the small account.
import { randomUUID } from 'node:crypto';
import { engineAsked, ENGINES, freshDb, type Engine } from './engines.js';
import type { Line, Scenario, Table } from './scenario.js';
import { makeTenant, seed } from './seed.js';
import { startServer, stopChild, type BenchServer } from './server.js';

const ENTRIES = Number(process.env.BENCH_EFFECTIVE_ENTRIES ?? 100_000);
const READS = Number(process.env.BENCH_EFFECTIVE_READS ?? 2_000);
const SMALL_ENTRIES = 10;
const SEED_BATCH = 500;
const SEED_CONCURRENCY = 4;
const BACKDATED_EVERY = 10;
const WINDOW_MS = 30 * 86_400_000;
const RATIO_TARGET = 2;

interface Figures {
  engine: Engine;
  entries: number;
  seedSeconds: number;
  /** Mean µs per read: [big posted, big effective, small posted, small effective]. */
  bigPosted: number;
  bigEffective: number;
  smallPosted: number;
  smallEffective: number;
}

/** Seeds `count` 2-line postings of `bank` against `revenue`, one in BACKDATED_EVERY back-dated by up to 30 days. */
async function seedPostings(url: string, rawKey: string, bank: string, revenue: string, count: number): Promise<void> {
  const headers = { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' };
  const line = (accountId: string, entryType: string, cents: number) => ({ accountId, entryType, monetaryEntry: { type: 'FIAT', amount: (cents / 100).toFixed(2), currency: 'USD', rail: 'ACH' } });
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < count) {
        const first = next;
        next += SEED_BATCH;
        const transactions = Array.from({ length: Math.min(SEED_BATCH, count - first) }, (_, k) => {
          const i = first + k;
          const cents = 100 + ((i * 7919) % 999_900);
          const inward = i % 3 !== 0;
          const backdated = i % BACKDATED_EVERY === 0 ? { effectiveAt: new Date(Date.now() - Math.floor(Math.random() * WINDOW_MS)).toISOString() } : {};
          return { idempotencyKey: randomUUID(), lines: [line(bank, inward ? 'DEBIT' : 'CREDIT', cents), line(revenue, inward ? 'CREDIT' : 'DEBIT', cents)], ...backdated };
        });
        const res = await fetch(`${url}/api/v1/transactions/batch`, { method: 'POST', headers, body: JSON.stringify({ atomic: true, transactions }) });
        if (res.status !== 201) throw new Error(`a seeding batch answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        await res.arrayBuffer();
        if (count > 10_000 && Math.floor((first + SEED_BATCH) / 10_000) > Math.floor(first / 10_000)) console.error(`  seeding: ${Math.min(count, first + SEED_BATCH).toLocaleString('en-US')} of ${count.toLocaleString('en-US')}`);
      }
    }),
  );
}

/** The mean µs of a balance read at each instant, one at a time. */
async function meanReadUs(url: string, rawKey: string, account: string, basis: 'posted' | 'effective', instants: readonly string[]): Promise<number> {
  const headers = { authorization: `Bearer ${rawKey}` };
  const began = performance.now();
  for (const at of instants) {
    const res = await fetch(`${url}/api/v1/accounts/${account}/balance?asOf=${encodeURIComponent(at)}&basis=${basis}`, { headers });
    if (res.status !== 200) throw new Error(`a balance read answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer();
  }
  return ((performance.now() - began) * 1000) / instants.length;
}

async function measure(engine: Engine): Promise<Figures> {
  const fresh = await freshDb(engine, 'effective.db');
  let server: BenchServer | undefined;
  try {
    const tenant = await seed(fresh.db, ({ ledger }) => makeTenant(ledger, 'effective', ['big', 'small', { name: 'revenue', type: 'REVENUE' }]));
    const [big, small, revenue] = tenant.accounts as [string, string, string];
    server = await startServer(fresh.db);
    const { url } = server;
    console.error(`  ${engine}: seeding ${ENTRIES.toLocaleString('en-US')} entries, one posting in ${BACKDATED_EVERY} back-dated by up to 30 days`);
    const began = performance.now();
    await seedPostings(url, tenant.rawKey, big, revenue, ENTRIES);
    const seedSeconds = (performance.now() - began) / 1000;
    await seedPostings(url, tenant.rawKey, small, revenue, SMALL_ENTRIES);
    const instants = Array.from({ length: READS }, () => new Date(Date.now() - Math.floor(Math.random() * WINDOW_MS)).toISOString());
    // Once each first (warm), then timed in turn.
    for (const [account, basis] of [[big, 'posted'], [big, 'effective'], [small, 'posted'], [small, 'effective']] as const) await meanReadUs(url, tenant.rawKey, account, basis, instants.slice(0, 100));
    const figures: Figures = {
      engine,
      entries: ENTRIES,
      seedSeconds,
      bigPosted: await meanReadUs(url, tenant.rawKey, big, 'posted', instants),
      bigEffective: await meanReadUs(url, tenant.rawKey, big, 'effective', instants),
      smallPosted: await meanReadUs(url, tenant.rawKey, small, 'posted', instants),
      smallEffective: await meanReadUs(url, tenant.rawKey, small, 'effective', instants),
    };
    console.error(`  ${engine}: µs a read, big posted ${figures.bigPosted.toFixed(0)}, effective ${figures.bigEffective.toFixed(0)}; small posted ${figures.smallPosted.toFixed(0)}, effective ${figures.smallEffective.toFixed(0)}`);
    return figures;
  } finally {
    await stopChild(server?.child);
    await fresh.drop();
  }
}

const ratio = (f: Figures) => f.bigEffective / f.smallEffective;

const TABLE: Table = {
  title: `Balance by effective instant (${READS.toLocaleString('en-US')} asOf reads at random instants of the last 30 days, one at a time; one posting in ${BACKDATED_EVERY} back-dated; target: big within ${RATIO_TARGET}x of small)`,
  columns: ['engine', 'entries (big)', 'seeding s', 'big: posted µs', 'big: effective µs', `small (${SMALL_ENTRIES} entries): posted µs`, 'small: effective µs', 'effective big/small', 'target'],
  align: 'lrrrrrrrl',
};

export const effectiveBalances: Scenario<Figures>[] = ENGINES.map(
  (engine): Scenario<Figures> => ({
    name: 'effective-balances',
    family: 'effective-balances',
    byDefault: false,
    enabled: () => engineAsked(engine),
    run: () => measure(engine),
    print: (f): Line[] => [
      {
        table: TABLE,
        cells: [
          f.engine,
          f.entries.toLocaleString('en-US'),
          f.seedSeconds.toFixed(1),
          f.bigPosted.toFixed(0),
          f.bigEffective.toFixed(0),
          f.smallPosted.toFixed(0),
          f.smallEffective.toFixed(0),
          `${ratio(f).toFixed(2)}x`,
          ratio(f) <= RATIO_TARGET ? 'met' : 'MISSED',
        ],
      },
    ],
    targets: [
      {
        label: (f) => `${f.engine}: an effective-basis balance on ${f.entries.toLocaleString('en-US')} entries <= ${RATIO_TARGET}x on ${SMALL_ENTRIES} (${f.bigEffective.toFixed(0)} µs against ${f.smallEffective.toFixed(0)} µs: ${ratio(f).toFixed(2)}x)`,
        met: (f) => ratio(f) <= RATIO_TARGET,
      },
    ],
  }),
);
