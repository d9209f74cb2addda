// `BENCH_ONLY=read-fairness`: what one tenant's reads with filters cost another tenant's postings (issue 41). On each
// engine (BENCH_ENGINES), a tenant of BENCH_READ_POSTINGS (100,000) postings that all carry `k0=A`, with accounts,
// holds and settlements in their thousands, sends BENCH_READ_CLIENTS (16) loops of one kind of filtered read at once
// for BENCH_READ_SECONDS, beside another tenant's 2-line postings (bench/fairness.ts measureBeside). Each kind prints
// the other tenant's worst posting and the reads' own median and worst; BENCH_READS=searches,accounts picks kinds.
//   - searches: two-filter transaction searches: a wide filter with a narrow one (1 match), a wide one with a rare
//     account, two wide ones that never meet, and an account with two metadata entries;
//   - accounts: accounts by two metadata entries (one narrow), by columns with a narrow entry, and a wide entry with a
//     type none has;
//   - holds: an account's PENDING holds among thousands it had, voided;
//   - settlements: by status within a window, and with `to` before all of them;
//   - reports: the trial balance as of before every posting (thousands of accounts with none yet), and a balance history
//     of the most points over the busiest account.
import { openLedger } from '../src/store/open.js';
import { CLI_ACTOR_ID } from '../src/core/audit.js';
import { JsonNumber } from '../src/core/money.js';
import { startServer, stopChild } from './server.js';
import { measureBeside, onEachEngine, printFairness, type FairnessRow, type Tenants } from './fairness.js';
import { percentile } from './lightLoad.js';

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
const actor = { type: 'HUMAN' as const, keyId: CLI_ACTOR_ID };

type Kind = 'searches' | 'accounts' | 'holds' | 'settlements' | 'reports';
const KINDS: readonly Kind[] = ['searches', 'accounts', 'holds', 'settlements', 'reports'];

interface Reader {
  rawKey: string;
  /** Paths (with their queries) of each kind, sent in turn by every client. */
  reads: Record<Kind, string[]>;
}

const usd = (amount: string) => ({ type: 'FIAT' as const, amount: new JsonNumber(amount), currency: 'USD' as const, rail: 'ACH' as const });
const line = (accountId: string, entryType: 'DEBIT' | 'CREDIT') => ({ accountId, entryType, monetaryEntry: usd('1.00') });

async function inChunks<T>(count: number, size: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const made: T[] = [];
  for (let n = 0; n < count; n += size) made.push(...(await Promise.all(Array.from({ length: Math.min(size, count - n) }, (_, i) => make(n + i)))));
  return made;
}

/** The reading tenant and the light one, seeded through the ledger itself before the server starts. */
async function seed(db: string): Promise<{ reader: Reader; light: Tenants['light'] }> {
  const opened = await openLedger(db, { writer: 'local' });
  try {
    const { ledger } = opened;
    const began = Date.now();
    const lightTenant = await ledger.tenants.create('light', actor);
    const lightAccounts: string[] = [];
    for (let i = 0; i < 8; i++) lightAccounts.push((await ledger.accounts.create(lightTenant.tenantId, { name: `light-${i}`, currency: 'USD', type: 'ASSET' }, actor)).id);
    const tenant = await ledger.tenants.create('reader', actor);
    const t = tenant.tenantId;
    const account = (name: string, metadata: Record<string, string> = {}) => ledger.accounts.create(t, { name, currency: 'USD', type: 'ASSET', metadata }, actor).then((a) => a.id);
    const [debit, credit, rare] = [await account('debit'), await account('credit'), await account('rare')];
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
    const bulk = await inChunks(ACCOUNTS, SEED_CONCURRENCY, (i) => account(`bulk-${i}`, { kind: 'bulk', ...(i === ACCOUNTS >> 1 ? { vip: 'yes' } : {}) }));
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
      light: { rawKey: lightTenant.apiKey.rawKey, accounts: lightAccounts },
      reader: {
        rawKey: tenant.apiKey.rawKey,
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
  } finally {
    await opened.close();
  }
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

async function onEngine(engine: 'SQLite' | 'PostgreSQL', db: string, kinds: readonly Kind[]): Promise<FairnessRow[]> {
  const { reader, light } = await seed(db);
  const server = await startServer(db);
  const rows: FairnessRow[] = [];
  try {
    for (const kind of kinds) {
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
      rows.push(row);
      await new Promise((r) => setTimeout(r, 1000));
    }
  } finally {
    await stopChild(server.child);
  }
  return rows;
}

export async function benchReadFairness(): Promise<FairnessRow[]> {
  const kinds = process.env.BENCH_READS ? KINDS.filter((k) => process.env.BENCH_READS!.split(',').includes(k)) : KINDS;
  const rows = await onEachEngine('ledger-read-fair-', `another tenant's postings beside one tenant's filtered reads`, (engine, db) => onEngine(engine, db, kinds));
  printFairness(rows);
  return rows;
}

