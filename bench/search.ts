// `BENCH_ONLY=search npm run bench`: finding a payment (issue 31), on SQLite, or on PostgreSQL with
// BENCH_SEARCH_ENGINE=postgres (the filters' part; the posting cost and storage are measured on SQLite). A tenant of 1,000 transactions and one of
// 1,000,000 (BENCH_SEARCH_BIG), each with 10 that carry `order=needle`, 10 on a rarely used account and 10 in a
// narrow time window; the first page of each filter is timed on both, over HTTP against the real server, and must
// stay within 2x. Then, on a fresh database: the server CPU of a posting with 3 metadata entries against one with
// none (at most 10% more), and the bytes a metadata entry adds to the file.
import autocannon from 'autocannon';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLedger } from '../src/store/open.js';
import { CLI_ACTOR_ID } from '../src/core/audit.js';
import { JsonNumber } from '../src/core/money.js';
import type { Clock } from '../src/core/time.js';
import { BetterSqlite3 } from '../src/store/sqlite/driver.js';
import { startServer, stopChild } from './server.js';
import { freshDatabaseUrl, startTestPostgres } from '../test/helpers/postgres.js';
import { cpuMeter } from './cpu.js';

const BIG = Number(process.env.BENCH_SEARCH_BIG ?? 1_000_000);
const SMALL = 1_000;
/** Transactions of each tenant that a filter finds. */
const FOUND = 10;
/** First-page requests timed per filter and tenant (the median is compared). */
const SAMPLES = 60;
/** Postings per side of the posting-cost comparison. */
const COST_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const actor = { type: 'HUMAN' as const, keyId: CLI_ACTOR_ID };

const fiatLine = (accountId: string, entryType: 'DEBIT' | 'CREDIT') => ({
  accountId,
  entryType,
  monetaryEntry: { type: 'FIAT' as const, amount: new JsonNumber('1.00'), currency: 'USD' as const, rail: 'ACH' as const },
});

/** A clock that moves 1 s a call: the time window of the `from`/`to` filter holds exactly the transactions posted in it. */
const steppingClock = (startMs: number): Clock => {
  let t = startMs;
  return { now: () => new Date((t += 1000)) };
};

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
  const opened = await openLedger(dbPath, { writer: 'local', clock });
  const { ledger } = opened;
  try {
    const tenant = await ledger.tenants.create(name, actor);
    const make = async (account: string) => (await ledger.accounts.create(tenant.tenantId, { name: account, currency: 'USD', type: 'ASSET' }, actor)).id;
    const [a, b, rare] = [await make('a'), await make('b'), await make('rare')];
    const every = Math.floor(count / FOUND);
    const windowAt = Math.floor(count / 2);
    let from = '';
    let to = '';
    const BATCH = 500;
    for (let n = 0; n < count; n += BATCH) {
      await Promise.all(
        Array.from({ length: Math.min(BATCH, count - n) }, async (_, i) => {
          const k = n + i;
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
        }),
      );
      if (count >= 100_000 && (n / BATCH) % 200 === 0) console.error(`  seeding ${name}: ${n.toLocaleString()} of ${count.toLocaleString()}`);
    }
    return { rawKey: tenant.apiKey.rawKey, common: a, rare, from, to };
  } finally {
    await opened.close();
  }
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
  times.sort((x, y) => x - y);
  return { ms: times[Math.floor(times.length / 2)]!, items };
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

export async function benchSearch(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-search-'));
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  const checks: Array<[string, boolean]> = [];
  const postgres = process.env.BENCH_SEARCH_ENGINE === 'postgres' ? await startTestPostgres() : undefined;
  try {
    const dbPath = postgres ? await freshDatabaseUrl(postgres.url) : join(dir, 'search.db');
    console.error(`  engine: ${postgres ? 'PostgreSQL' : 'SQLite'}`);
    const clock = steppingClock(Date.UTC(1900, 0, 1));
    const began = Date.now();
    const small = await seedTenant(dbPath, 'small', SMALL, clock);
    const big = await seedTenant(dbPath, 'big', BIG, clock);
    console.error(`  seeded ${SMALL.toLocaleString()} and ${BIG.toLocaleString()} transactions in ${((Date.now() - began) / 1000).toFixed(0)} s`);
    server = await startServer(dbPath);
    const filters: Array<[string, (s: Seeded) => string]> = [
      ['metadata[order]=needle', () => 'metadata[order]=needle'],
      ['accountId (a rarely used account)', (s) => `accountId=${s.rare}`],
      ['from/to (a window of 10)', (s) => `from=${s.from}&to=${s.to}`],
      ['metadata and accountId', (s) => `metadata[order]=needle&accountId=${s.common}`],
    ];
    console.error(`  first page of each filter, median of ${SAMPLES}:`);
    for (const [name, query] of filters) {
      const one = await firstPageMs(server.url, small.rawKey, query(small));
      const many = await firstPageMs(server.url, big.rawKey, query(big));
      const ratio = many.ms / one.ms;
      console.error(`    ${name}: ${one.ms.toFixed(2)} ms on ${SMALL.toLocaleString()} (${one.items} found), ${many.ms.toFixed(2)} ms on ${BIG.toLocaleString()} (${many.items} found): ${ratio.toFixed(2)}x`);
      checks.push([`${name} flat (within 2x)`, ratio <= 2]);
    }
    await stopChild(server.child);
    server = undefined;
    if (postgres) return report(checks);

    // The posting cost and the storage of metadata, on a fresh file.
    const costDb = join(dir, 'cost.db');
    const opened = await openLedger(costDb, { writer: 'local' });
    const tenant = await opened.ledger.tenants.create('cost', actor);
    const a = (await opened.ledger.accounts.create(tenant.tenantId, { name: 'a', currency: 'USD', type: 'ASSET' }, actor)).id;
    const b = (await opened.ledger.accounts.create(tenant.tenantId, { name: 'b', currency: 'USD', type: 'ASSET' }, actor)).id;
    await opened.close();
    server = await startServer(costDb);
    const pid = server.child.pid!;
    const three = { order: 'o-1001', customer: 'c-42', channel: 'web' };
    // A warm-up first (the server's code paths compiled), then each side twice in the order A B B A, so that a cost
    // that drifts over the run (a server still warming up, a busy machine) weighs on both sides alike.
    await postingCost(server.url, pid, tenant.apiKey.rawKey, a, b, undefined);
    await postingCost(server.url, pid, tenant.apiKey.rawKey, a, b, three);
    const plain = [await postingCost(server.url, pid, tenant.apiKey.rawKey, a, b, undefined)];
    const tagged = [await postingCost(server.url, pid, tenant.apiKey.rawKey, a, b, three)];
    tagged.push(await postingCost(server.url, pid, tenant.apiKey.rawKey, a, b, three));
    plain.push(await postingCost(server.url, pid, tenant.apiKey.rawKey, a, b, undefined));
    const mean = (runs: typeof plain) => runs.reduce((s, r) => s + r.usPerPosting, 0) / runs.length;
    const costRatio = mean(tagged) / mean(plain);
    const each = (runs: typeof plain) => runs.map((r) => `${r.usPerPosting.toFixed(0)} µs at ${r.rps} req/s`).join(', ');
    console.error(`  server CPU a posting, without metadata: ${each(plain)}; with 3 entries: ${each(tagged)}`);
    console.error(`  server CPU a posting: ${mean(plain).toFixed(0)} µs without metadata, ${mean(tagged).toFixed(0)} µs with 3 entries (${costRatio >= 1 ? '+' : ''}${((costRatio - 1) * 100).toFixed(1)}%)`);
    checks.push(['a posting with 3 metadata entries costs at most 10% more CPU', costRatio <= 1.1]);
    await stopChild(server.child);
    server = undefined;

    // Storage: the same postings with and without 3 entries, each in a file of its own.
    const sizes: number[] = [];
    const POSTINGS = 20_000;
    for (const metadata of [{}, three]) {
      const file = join(dir, `size-${sizes.length}.db`);
      const size = await openLedger(file, { writer: 'local' });
      const t = await size.ledger.tenants.create('size', actor);
      const x = (await size.ledger.accounts.create(t.tenantId, { name: 'x', currency: 'USD', type: 'ASSET' }, actor)).id;
      const y = (await size.ledger.accounts.create(t.tenantId, { name: 'y', currency: 'USD', type: 'ASSET' }, actor)).id;
      for (let n = 0; n < POSTINGS; n += 500) {
        await Promise.all(Array.from({ length: 500 }, (_, i) => size.ledger.transactions.post(t.tenantId, actor, `s-${n + i}`, { lines: [fiatLine(x, 'DEBIT'), fiatLine(y, 'CREDIT')], metadata })));
      }
      await size.close();
      sizes.push(fileBytes(file));
    }
    const perEntry = (sizes[1]! - sizes[0]!) / (POSTINGS * Object.keys(three).length);
    console.error(`  storage: ${perEntry.toFixed(0)} bytes a metadata entry (${POSTINGS.toLocaleString()} postings of 3 entries, of about ${(3 * 14).toString()} characters of keys and values: in the document and in the index)`);
  } finally {
    await stopChild(server?.child);
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return report(checks);
}

function report(checks: ReadonlyArray<[string, boolean]>): boolean {
  for (const [name, ok] of checks) console.error(`  ${ok ? 'met' : 'MISSED'}: ${name}`);
  return checks.every(([, ok]) => ok);
}
