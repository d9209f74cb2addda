// `BENCH_ONLY=search npm run bench`: finding a payment (issue 31), on SQLite, or on PostgreSQL with
// BENCH_SEARCH_ENGINE=postgres (the filters' part; the posting cost and storage are measured on SQLite). A tenant of
// 1,000 transactions and one of 1,000,000 (BENCH_SEARCH_BIG), each with 10 that carry `order=needle`, 10 on a rarely
// used account and 10 in a narrow time window; the first page of each filter is timed on both, over HTTP against the
// real server, and must stay within 2x. Then, on a fresh database: the server CPU of a posting with 3 metadata entries
// against one with none (at most 10% more), and the bytes a metadata entry adds to the file.
import autocannon from 'autocannon';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../src/core/time.js';
import { BetterSqlite3 } from '../src/store/sqlite/driver.js';
import { cpuMeter } from './cpu.js';
import { freshDb, type Engine } from './engines.js';
import type { Scenario, Target } from './scenario.js';
import { actor, fiatLine, inChunks, makeTenant, seed, steppingClock } from './seed.js';
import { startServer, stopChild, type BenchServer } from './server.js';
import { median } from './stats.js';

const BIG = Number(process.env.BENCH_SEARCH_BIG ?? 1_000_000);
const SMALL = 1_000;
/** Transactions of each tenant that a filter finds. */
const FOUND = 10;
/** First-page requests timed per filter and tenant (the median is compared). */
const SAMPLES = 60;
/** The length of each posting-cost load. */
const COST_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const THREE = { order: 'o-1001', customer: 'c-42', channel: 'web' };

interface Seeded {
  rawKey: string;
  /** The account most transactions debit (the needles among them), and one that only FOUND do. */
  common: string;
  rare: string;
  from: string;
  to: string;
}

/** A tenant of `count` transactions; FOUND of them (spread evenly) carry the needle, FOUND touch the rare account, FOUND fall in the window. */
async function seedTenant(dbPath: string, name: string, count: number, clock: Clock): Promise<Seeded> {
  return seed(
    dbPath,
    async ({ ledger }) => {
      const tenant = await makeTenant(ledger, name, ['a', 'b', 'rare']);
      const [a, b, rare] = tenant.accounts as [string, string, string];
      const every = Math.floor(count / FOUND);
      const windowAt = Math.floor(count / 2);
      let from = '';
      let to = '';
      const post = async (k: number) => {
        const needle = k % every === every - 1;
        const debit = k % every === 0 ? rare : a;
        const stored = await ledger.transactions.post(tenant.tenantId, actor, `seed-${k}`, {
          lines: [fiatLine(debit, 'DEBIT'), fiatLine(b, 'CREDIT')],
          metadata: needle ? { order: 'needle', n: String(k) } : { n: String(k) },
        });
        if (k === windowAt || k === windowAt + FOUND - 1) {
          const at = JSON.parse((await ledger.transactions.get(tenant.tenantId, JSON.parse(stored.body).transactionId as string)).text).createdAt as string;
          if (k === windowAt) from = at;
          else to = at;
        }
      };
      await inChunks(count, 500, post, (n) => count >= 100_000 && (n / 500) % 200 === 0 && console.error(`  seeding ${name}: ${n.toLocaleString()} of ${count.toLocaleString()}`));
      return { rawKey: tenant.rawKey, common: a, rare, from, to };
    },
    clock,
  );
}

/** The median time of the first page of a query, over SAMPLES requests one after another. */
async function firstPageMs(url: string, rawKey: string, query: string): Promise<{ ms: number; items: number }> {
  const times: number[] = [];
  let items = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const began = performance.now();
    const res = await fetch(`${url}/api/v1/transactions?${query}`, { headers: { authorization: `Bearer ${rawKey}` } });
    const body = (await res.json()) as { items: unknown[] };
    times.push(performance.now() - began);
    if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(body)}`);
    items = body.items.length;
  }
  return { ms: median(times), items };
}

/** Server CPU per posting over COST_SECONDS of load, with or without 3 metadata entries. */
async function postingCost(url: string, pid: number, rawKey: string, a: string, b: string, metadata: Record<string, string> | undefined) {
  let n = 0;
  const meter = cpuMeter([pid]);
  const result = await autocannon({
    url: `${url}/api/v1/transactions`,
    method: 'POST',
    duration: COST_SECONDS,
    connections: 16,
    requests: [
      {
        setupRequest: (req: Record<string, unknown>) => ({
          ...req,
          headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json', 'idempotency-key': `cost-${metadata ? 'm' : 'p'}-${n++}` },
          body: JSON.stringify({ lines: [fiatLine(a, 'DEBIT'), fiatLine(b, 'CREDIT')].map((l) => ({ ...l, monetaryEntry: { ...l.monetaryEntry, amount: '1.00' } })), ...(metadata ? { metadata } : {}) }),
        }),
      },
    ],
  });
  const cpu = meter.stop(result.requests.total);
  return { usPerPosting: cpu?.usPerRequest ?? Number.NaN, rps: Math.round(result.requests.average), errors: result.errors + result.non2xx };
}

/** The file's size once its write-ahead log is folded in. */
function fileBytes(dbPath: string): number {
  const db = new BetterSqlite3(dbPath);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return statSync(dbPath).size;
}

const FILTERS: Array<[string, (s: Seeded) => string]> = [
  ['metadata[order]=needle', () => 'metadata[order]=needle'],
  ['accountId (a rarely used account)', (s) => `accountId=${s.rare}`],
  ['from/to (a window of 10)', (s) => `from=${s.from}&to=${s.to}`],
  ['metadata and accountId', (s) => `metadata[order]=needle&accountId=${s.common}`],
];

/** The first page of each filter on both tenants: its time on the big one against the small one's. */
async function filters(engine: Engine): Promise<Record<string, number>> {
  const fresh = await freshDb(engine, 'search.db');
  let server: BenchServer | undefined;
  try {
    console.error(`  engine: ${engine}`);
    const clock = steppingClock(Date.UTC(1900, 0, 1), 1000);
    const began = Date.now();
    const small = await seedTenant(fresh.db, 'small', SMALL, clock);
    const big = await seedTenant(fresh.db, 'big', BIG, clock);
    console.error(`  seeded ${SMALL.toLocaleString()} and ${BIG.toLocaleString()} transactions in ${((Date.now() - began) / 1000).toFixed(0)} s`);
    server = await startServer(fresh.db);
    console.error(`  first page of each filter, median of ${SAMPLES}:`);
    const ratios: Record<string, number> = {};
    for (const [name, query] of FILTERS) {
      const one = await firstPageMs(server.url, small.rawKey, query(small));
      const many = await firstPageMs(server.url, big.rawKey, query(big));
      ratios[name] = many.ms / one.ms;
      console.error(`    ${name}: ${one.ms.toFixed(2)} ms on ${SMALL.toLocaleString()} (${one.items} found), ${many.ms.toFixed(2)} ms on ${BIG.toLocaleString()} (${many.items} found): ${ratios[name]!.toFixed(2)}x`);
    }
    return ratios;
  } finally {
    await stopChild(server?.child);
    await fresh.drop();
  }
}

/** The server CPU of a posting with 3 metadata entries against one without, on a fresh file; and a metadata entry's bytes. */
async function metadataCost(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-search-'));
  let server: BenchServer | undefined;
  try {
    const costDb = join(dir, 'cost.db');
    const tenant = await seed(costDb, ({ ledger }) => makeTenant(ledger, 'cost', ['a', 'b']));
    const [a, b] = tenant.accounts as [string, string];
    server = await startServer(costDb);
    const pid = server.child.pid!;
    const cost = (metadata?: Record<string, string>) => postingCost(server!.url, pid, tenant.rawKey, a, b, metadata);
    // A warm-up first (the server's code paths compiled), then each side twice in the order A B B A, so that a cost
    // that drifts over the run (a server still warming up, a busy machine) weighs on both sides alike.
    await cost();
    await cost(THREE);
    const plain = [await cost()];
    const tagged = [await cost(THREE)];
    tagged.push(await cost(THREE));
    plain.push(await cost());
    const mean = (runs: typeof plain) => runs.reduce((s, r) => s + r.usPerPosting, 0) / runs.length;
    const costRatio = mean(tagged) / mean(plain);
    const each = (runs: typeof plain) => runs.map((r) => `${r.usPerPosting.toFixed(0)} µs at ${r.rps} req/s`).join(', ');
    console.error(`  server CPU a posting, without metadata: ${each(plain)}; with 3 entries: ${each(tagged)}`);
    console.error(`  server CPU a posting: ${mean(plain).toFixed(0)} µs without metadata, ${mean(tagged).toFixed(0)} µs with 3 entries (${costRatio >= 1 ? '+' : ''}${((costRatio - 1) * 100).toFixed(1)}%)`);
    await stopChild(server.child);
    server = undefined;

    // Storage: the same postings with and without 3 entries, each in a file of its own.
    const sizes: number[] = [];
    const POSTINGS = 20_000;
    for (const metadata of [{}, THREE]) {
      const file = join(dir, `size-${sizes.length}.db`);
      await seed(file, async ({ ledger }) => {
        const t = await makeTenant(ledger, 'size', ['x', 'y']);
        const [x, y] = t.accounts as [string, string];
        await inChunks(POSTINGS, 500, async (i) => void (await ledger.transactions.post(t.tenantId, actor, `s-${i}`, { lines: [fiatLine(x, 'DEBIT'), fiatLine(y, 'CREDIT')], metadata })));
      });
      sizes.push(fileBytes(file));
    }
    const perEntry = (sizes[1]! - sizes[0]!) / (POSTINGS * Object.keys(THREE).length);
    console.error(`  storage: ${perEntry.toFixed(0)} bytes a metadata entry (${POSTINGS.toLocaleString()} postings of 3 entries, of about ${(3 * 14).toString()} characters of keys and values: in the document and in the index)`);
    return costRatio;
  } finally {
    await stopChild(server?.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

interface SearchFigures {
  ratios: Record<string, number>;
  /** A posting with 3 metadata entries against one without (on SQLite only). */
  costRatio?: number;
}

export const search: Scenario<SearchFigures> = {
  name: 'search',
  family: 'search',
  byDefault: false,
  async run() {
    const engine: Engine = process.env.BENCH_SEARCH_ENGINE === 'postgres' ? 'PostgreSQL' : 'SQLite';
    const ratios = await filters(engine);
    return engine === 'PostgreSQL' ? { ratios } : { ratios, costRatio: await metadataCost() };
  },
  targets: [
    ...FILTERS.map(([name]): Target<SearchFigures> => ({ label: (f) => `${name} flat (within 2x) (${f.ratios[name]!.toFixed(2)}x)`, met: (f) => f.ratios[name]! <= 2 })),
    {
      label: (f) => `a posting with 3 metadata entries costs at most 10% more CPU (${f.costRatio!.toFixed(2)}x)`,
      met: (f) => f.costRatio! <= 1.1,
      when: (f) => f.costRatio !== undefined,
    },
  ],
};
