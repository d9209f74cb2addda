// The SQLite database of the throughput, history, reconciliation and export scenarios, seeded through the ledger
// itself: a tenant with 64 accounts, a big account with history and a small one, on-chain postings half of which a
// settlement expects, and a second tenant for the 1000-line postings; and the server they load, with a webhook receiver.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonNumber } from '../src/core/money.js';
import { CONNECTIONS, SECONDS } from './load.js';
import { startReceiver, type Receiver } from './receiver.js';
import { postRequestFor } from './requests.js';
import type { Context, Fixture } from './scenario.js';
import { actor, fiatLine, inChunks, makeAccounts, makeTenant, named, seed, steppingClock } from './seed.js';
import { startServer, stopChild, type BenchServer } from './server.js';

const ACCOUNTS = 64;
/** On-chain postings that batch reconciliation runs over; a settlement expects every other one. */
const ONCHAIN_POSTINGS = 2000;
const WALLET = '0x00000000000000000000000000000000000b3a7c';

export interface Seeded {
  tenantId: string;
  rawKey: string;
  accounts: string[];
  big: string;
  small: string;
  /** When each of the big and small accounts' last entry was made. */
  last: Record<string, string>;
  onchainIds: string[];
  heavy: { rawKey: string; debit: string; credit: string };
}

/** Entries on the big account: BENCH_BIG_ENTRIES, else 10,000 when only the hot scenarios run and 1,000,000 otherwise. */
const bigEntries = (ctx: Context) => Number(process.env.BENCH_BIG_ENTRIES ?? (ctx.picked.every((s) => s.family === 'hot') ? 10_000 : 1_000_000));

/**
 * The seed, on a clock that steps 2.4 hours per reading: ten postings a day, so that a one-day statement has ten
 * movements on either account.
 */
async function seedHistory(dbPath: string, entries: number): Promise<Seeded> {
  return seed(
    dbPath,
    async ({ ledger, store }) => {
      const hot = await makeTenant(ledger, 'bench', [...named('hot-', ACCOUNTS), 'big', 'small', { name: 'counter', type: 'REVENUE' }]);
      const { tenantId } = hot;
      const [big, small, counter] = hot.accounts.splice(ACCOUNTS) as [string, string, string];
      const postPair = (account: string, n: number) =>
        ledger.transactions.post(tenantId, actor, `seed-${account}-${n}`, { lines: [fiatLine(account, 'DEBIT'), fiatLine(counter, 'CREDIT')] });

      const began = Date.now();
      await inChunks(
        entries,
        500,
        async (n) => void (await postPair(big, n)),
        (n) => (n / 500) % 200 === 0 && console.error(`  seeding: ${n.toLocaleString()} of ${entries.toLocaleString()} entries`),
      );
      for (let n = 0; n < 10; n++) await postPair(small, n);

      // On-chain postings for batch reconciliation, half of them expected by a settlement registered afterwards.
      const [wallet] = (await makeAccounts(ledger, tenantId, ['wallet'])) as [string];
      const onchainLine = (accountId: string, entryType: 'DEBIT' | 'CREDIT', amount: string) => ({
        accountId,
        entryType,
        monetaryEntry: {
          type: 'ONCHAIN' as const,
          amount: new JsonNumber(amount),
          token: 'USDC' as const,
          chainId: 'EVM' as const,
          txHash: `0x${randomUUID().replace(/-/g, '')}`,
          blockNumber: 1,
          walletAddress: WALLET,
          tokenContract: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
        },
      });
      const amountOf = (n: number) => `${n + 1}.000001`;
      const onchainIds: string[] = [];
      for (let n = 0; n < ONCHAIN_POSTINGS; n++) {
        const stored = await ledger.transactions.post(tenantId, actor, `chain-${n}`, {
          lines: [onchainLine(wallet, 'DEBIT', amountOf(n)), onchainLine(counter, 'CREDIT', amountOf(n))],
        });
        onchainIds.push((JSON.parse(stored.body) as { transactionId: string }).transactionId);
      }
      for (let n = 0; n < ONCHAIN_POSTINGS; n += 2) {
        await ledger.settlements.register(tenantId, actor, `expect-${n}`, {
          accountId: wallet,
          expectedToken: 'USDC',
          expectedAmount: amountOf(n),
          expectedWalletAddress: WALLET,
          expectedChainId: 'EVM',
        });
      }
      // A second tenant with two accounts of its own, for the client that sends 1000-line postings beside the posting load.
      const heavy = await makeTenant(ledger, 'heavy', ['heavy-a', 'heavy-b']);
      const seconds = (Date.now() - began) / 1000;
      console.error(`  seeded ${entries.toLocaleString()} entries in ${seconds.toFixed(1)} s (${Math.round(entries / seconds)} postings/s in-process)`);
      const lastAt = async (account: string) =>
        (JSON.parse((await store.entriesPage(tenantId, account, { from: null, to: null }, null, 1)).views[0]!) as { createdAt: string }).createdAt;
      return {
        tenantId,
        rawKey: hot.rawKey,
        accounts: hot.accounts,
        big,
        small,
        last: { [big]: await lastAt(big), [small]: await lastAt(small) },
        onchainIds,
        heavy: { rawKey: heavy.rawKey, debit: heavy.accounts[0]!, credit: heavy.accounts[1]! },
      };
    },
    steppingClock(Date.UTC(1750, 0, 1), 8_640_000),
  );
}

export interface SeededDb {
  dir: string;
  dbPath: string;
  /** The entries asked of the big account (BENCH_BIG_ENTRIES). */
  entries: number;
  rawKey: string;
  /** What the seed made: absent when a kept database (BENCH_DB) is used again. */
  seeded?: Seeded;
}

/**
 * The seeded database, in a temporary folder. With BENCH_DB=<file>, when the export runs alone, the database is kept
 * there (its key beside it) and used again by the next run.
 */
export const seededDb: Fixture<SeededDb> = {
  name: 'the seeded SQLite database',
  async start(ctx) {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-'));
    const entries = bigEntries(ctx);
    const kept = ctx.picked.every((s) => s.name === 'export') ? process.env.BENCH_DB : undefined;
    const dbPath = kept ?? join(dir, 'bench.db');
    const keyFile = `${dbPath}.key`;
    if (kept && existsSync(keyFile)) return { dir, dbPath, entries, rawKey: readFileSync(keyFile, 'utf8') };
    console.error(`seeding (${entries.toLocaleString()} entries on one account)...`);
    const seeded = await seedHistory(dbPath, entries);
    if (kept) writeFileSync(keyFile, seeded.rawKey);
    return { dir, dbPath, entries, rawKey: seeded.rawKey, seeded };
  },
  async stop({ dir }) {
    rmSync(dir, { recursive: true, force: true });
  },
};

export interface SeededServer extends BenchServer {
  s: Seeded;
  dbPath: string;
  /** The server's process, whose CPU the loads measure. */
  pids: number[];
  auth: Record<string, string>;
  json: Record<string, string>;
  /** A 2-line posting between two of the 64 accounts. */
  postRequest: ReturnType<typeof postRequestFor>;
  receiver: Receiver;
}

/** `ledger serve` on the seeded database, allowed to deliver webhooks to a local receiver. */
export const seededServer: Fixture<SeededServer> = {
  name: 'the server on the seeded database',
  uses: [seededDb],
  async start(ctx) {
    const { dir, dbPath, seeded: s } = await ctx.use(seededDb);
    if (!s) throw new Error('the seeded database is a kept one (BENCH_DB): only the export runs on it');
    const receiver = await startReceiver(dir);
    const server = await startServer(dbPath, { certFile: receiver.certFile });
    const auth = { authorization: `Bearer ${s.rawKey}` };
    const json = { ...auth, 'content-type': 'application/json' };
    console.error(`server at ${server.url}; ${SECONDS} s per scenario, ${CONNECTIONS} connections`);
    return { ...server, s, dbPath, pids: [server.child.pid!], auth, json, postRequest: postRequestFor(s.accounts, json), receiver };
  },
  async stop({ child, receiver }) {
    await stopChild(child);
    await receiver.close();
  },
};
