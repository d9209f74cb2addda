// `BENCH_ONLY=read-fairness`: what one tenant's reads with filters cost another tenant's postings (issue 41). On each
// engine (BENCH_ENGINES), a tenant of BENCH_READ_POSTINGS (100,000) postings that all carry `k0=A`, with accounts,
// holds and settlements in their thousands, sends BENCH_READ_CLIENTS (16) loops of one kind of filtered read at once
// for BENCH_READ_SECONDS, beside another tenant's 2-line postings (bench/beside.ts). Each kind prints
// the other tenant's worst posting and the reads' own median and worst; BENCH_READS=searches,accounts picks kinds.
//   - searches: two-filter transaction searches: a wide filter with a narrow one (1 match), a wide one with a rare
//     account, two wide ones that never meet, and an account with two metadata entries;
//   - accounts: accounts by two metadata entries (one narrow), by columns with a narrow entry, and a wide entry with a
//     type none has;
//   - holds: an account's PENDING holds among thousands it had, voided;
//   - settlements: by status within a window, and with `to` before all of them;
//   - reports: the trial balance as of before every posting (thousands of accounts with none yet), and a balance history
//     of the most points over the busiest account.
import { fairnessLine, fairnessTarget, LIGHT_LOAD, measureBeside, type FairnessRow, type Light } from './beside.js';
import { engineAsked, ENGINES, freshDb, type Engine, type FreshDb } from './engines.js';
import { sleep, type Fixture, type Scenario } from './scenario.js';
import { actor, fiatLine, inChunks, makeAccounts, makeTenant, named, seed } from './seed.js';
import { startServer, stopChild, type BenchServer } from './server.js';
import { percentile } from './stats.js';

const POSTINGS = Number(process.env.BENCH_READ_POSTINGS ?? 100_000);
const ACCOUNTS = Number(process.env.BENCH_READ_ACCOUNTS ?? 20_000);
const HOLDS = Number(process.env.BENCH_READ_HOLDS ?? 10_000);
const SETTLEMENTS = Number(process.env.BENCH_READ_SETTLEMENTS ?? 10_000);
const CLIENTS = Number(process.env.BENCH_READ_CLIENTS ?? 16);
const SECONDS = Number(process.env.BENCH_READ_SECONDS ?? 5);
/** Postings of one atomic batch while seeding (2 lines each: an atomic batch takes 1,000 lines). */
const SEED_BATCH = 500;
/** Writes made at once while seeding. */
const SEED_CONCURRENCY = 50;

type Kind = 'searches' | 'accounts' | 'holds' | 'settlements' | 'reports';
const KINDS: readonly Kind[] = ['searches', 'accounts', 'holds', 'settlements', 'reports'];

interface Reader {
  rawKey: string;
  /** Paths (with their queries) of each kind, sent in turn by every client. */
  reads: Record<Kind, string[]>;
}

const line = (accountId: string, entryType: 'DEBIT' | 'CREDIT') => fiatLine(accountId, entryType);

/** The reading tenant and the light one, seeded through the ledger itself before the server starts. */
async function seedReader(db: string): Promise<{ reader: Reader; light: Light }> {
  return seed(db, async ({ ledger }) => {
    const began = Date.now();
    const light = await makeTenant(ledger, 'light', named('light-', 8));
    const tenant = await makeTenant(ledger, 'reader', ['debit', 'credit', 'rare'].map((name) => ({ name, metadata: {} })));
    const t = tenant.tenantId;
    const [debit, credit, rare] = tenant.accounts as [string, string, string];
    // Postings: every one carries k0=A; evens side=L, odds other=R (two wide filters that never meet); the middle one
    // also needle=B and debits the rare account.
    const middle = Math.floor(POSTINGS / 2);
    const posting = (i: number) => ({
      idempotencyKey: `seed-${i}`,
      lines: [line(i === middle ? rare : debit, 'DEBIT'), line(credit, 'CREDIT')],
      metadata: { k0: 'A', ...(i % 2 === 0 ? { side: 'L' } : { other: 'R' }), ...(i === middle ? { needle: 'B' } : {}) },
    });
    await inChunks(Math.ceil(POSTINGS / SEED_BATCH), 4, (b) =>
      ledger.batches.post(t, actor, { atomic: true, transactions: Array.from({ length: Math.min(SEED_BATCH, POSTINGS - b * SEED_BATCH) }, (_, i) => posting(b * SEED_BATCH + i)) }),
    );
    // Accounts: every one kind=bulk, one also vip=yes; each has a balance (one posting of its own).
    const bulk = await makeAccounts(
      ledger,
      t,
      named('bulk-', ACCOUNTS).map((name, i) => ({ name, metadata: { kind: 'bulk', ...(i === ACCOUNTS >> 1 ? { vip: 'yes' } : {}) } })),
      SEED_CONCURRENCY,
    );
    await inChunks(Math.ceil(bulk.length / SEED_BATCH), 4, (b) =>
      ledger.batches.post(t, actor, {
        atomic: true,
        transactions: bulk.slice(b * SEED_BATCH, (b + 1) * SEED_BATCH).map((id, i) => ({ idempotencyKey: `bulk-${b}-${i}`, lines: [line(id, 'DEBIT'), line(credit, 'CREDIT')] })),
      }),
    );
    // Holds on the debit account, each voided: none PENDING among thousands.
    const holds = await inChunks(HOLDS, SEED_CONCURRENCY, async (i) => {
      const made = await ledger.holds.create(t, actor, `hold-${i}`, { lines: [line(debit, 'DEBIT'), line(credit, 'CREDIT')] } as never);
      return (JSON.parse(made.body) as { holdId: string }).holdId;
    });
    await inChunks(holds.length, SEED_CONCURRENCY, (i) => ledger.holds.void(t, actor, holds[i]!, `void-${i}`));
    const settlementsFrom = new Date().toISOString();
    await inChunks(SETTLEMENTS, SEED_CONCURRENCY, (i) =>
      ledger.settlements.register(t, actor, `settle-${i}`, {
        accountId: debit,
        expectedToken: 'USDC',
        expectedAmount: `${1 + (i % 100)}.00`,
        expectedWalletAddress: '0x00000000000000000000000000000000000b3a7c',
        expectedChainId: 'EVM',
      } as never),
    );
    console.error(`  seeded ${POSTINGS.toLocaleString()} postings, ${ACCOUNTS.toLocaleString()} accounts, ${HOLDS.toLocaleString()} holds, ${SETTLEMENTS.toLocaleString()} settlements in ${((Date.now() - began) / 1000).toFixed(0)} s`);
    const day = 86_400_000;
    return {
      light: { rawKey: light.rawKey, accounts: light.accounts },
      reader: {
        rawKey: tenant.rawKey,
        reads: {
          searches: [
            '/api/v1/transactions?metadata[k0]=A&metadata[needle]=B',
            `/api/v1/transactions?metadata[k0]=A&accountId=${rare}`,
            '/api/v1/transactions?metadata[other]=R&metadata[side]=L',
            `/api/v1/transactions?accountId=${debit}&metadata[k0]=A&metadata[needle]=B`,
          ],
          accounts: ['/api/v1/accounts?metadata[kind]=bulk&metadata[vip]=yes', '/api/v1/accounts?type=ASSET&currency=USD&metadata[vip]=yes', '/api/v1/accounts?type=LIABILITY&metadata[kind]=bulk'],
          holds: [`/api/v1/holds?accountId=${debit}&status=PENDING`],
          settlements: [`/api/v1/settlements?status=CANCELLED&from=${settlementsFrom}`, '/api/v1/settlements?to=2000-01-01T00:00:00Z', '/api/v1/settlements?status=PENDING&to=2000-01-01T00:00:00Z'],
          reports: [
            '/api/v1/reports/trial-balance?asOf=2000-01-01T00:00:00Z',
            `/api/v1/accounts/${debit}/balance-history?from=${new Date(Date.now() - 999 * day).toISOString()}&to=${new Date().toISOString()}&interval=day`,
          ],
        },
      },
    };
  });
}

/** CLIENTS loops, each sending the kind's reads in turn for SECONDS; answers the span, the statuses and each read's time. */
async function readLoops(url: string, reader: Reader, kind: Kind) {
  const paths = reader.reads[kind];
  const headers = { authorization: `Bearer ${reader.rawKey}` };
  const statuses = new Map<number, number>();
  const times: number[] = [];
  const began = Date.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = client; Date.now() - began < SECONDS * 1000; i++) {
        const t0 = performance.now();
        const res = await fetch(`${url}${paths[i % paths.length]}`, { headers });
        await res.arrayBuffer();
        times.push(performance.now() - t0);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  return { began, ended: Date.now(), heavy: [...statuses].map(([s, n]) => `${n}×${s}`).join(', '), times };
}

/** The server of one engine that every kind of read on that engine meets, on a fresh database with its seed. */
const serverOn = (engine: Engine): Fixture<{ fresh: FreshDb; server: BenchServer; reader: Reader; light: Light }> => ({
  name: `the read-fairness server on ${engine}`,
  async start() {
    const fresh = await freshDb(engine, 'ledger.db');
    console.error(engine === 'SQLite' ? `on SQLite: ${LIGHT_LOAD} beside one tenant's filtered reads` : 'on PostgreSQL: the same');
    const { reader, light } = await seedReader(fresh.db);
    return { fresh, reader, light, server: await startServer(fresh.db) };
  },
  async stop({ fresh, server }) {
    await stopChild(server.child);
    await fresh.drop();
  },
});

async function readsBeside(engine: Engine, kind: Kind, server: BenchServer, reader: Reader, light: Light): Promise<FairnessRow> {
  // One round of each read first, unmeasured: a first read of a cold file is not what this measures.
  for (const path of reader.reads[kind]) await (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${reader.rawKey}` } })).arrayBuffer();
  let reads: number[] = [];
  const row = await measureBeside(engine, `beside ${CLIENTS} loops of filtered reads: ${kind}`, server.url, light, async () => {
    const span = await readLoops(server.url, reader, kind);
    reads = span.times;
    return span;
  });
  console.error(`    the reads themselves: ${reads.length}, p50 ${percentile(reads, 50)} ms, worst ${percentile(reads, 100)} ms`);
  row.heavy += `; reads p50 ${percentile(reads, 50)} ms, worst ${percentile(reads, 100)} ms`;
  return row;
}

const asked = (kind: Kind) => !process.env.BENCH_READS || process.env.BENCH_READS.split(',').includes(kind);

/** Every kind of read on SQLite, then on PostgreSQL (BENCH_ENGINES); not in a run without BENCH_ONLY. */
export const readFairness: Scenario<FairnessRow>[] = ENGINES.flatMap((engine) => {
  const on = serverOn(engine);
  return KINDS.map(
    (kind): Scenario<FairnessRow> => ({
      name: 'read-fairness',
      family: 'read-fairness',
      byDefault: false,
      enabled: () => engineAsked(engine) && asked(kind),
      setup: [on],
      async run(ctx) {
        const { server, reader, light } = await ctx.use(on);
        const row = await readsBeside(engine, kind, server, reader, light);
        await sleep(1000);
        return row;
      },
      print: (r) => [fairnessLine(r)],
      targets: [fairnessTarget],
    }),
  );
});
