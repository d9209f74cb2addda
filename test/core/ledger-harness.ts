// A ledger over a real SQLite file in a temporary directory, written on this thread (LocalWriter) with a clock the
// test moves: for unit tests of the use-cases in src/core/usecases, with real parts and no server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import { sqliteWriter } from '../../src/store/sqlite/writer.js';
import type { LocalWriter } from '../../src/store/writer/localWriter.js';
import { Ledger } from '../../src/core/ledger.js';
import type { Clock } from '../../src/core/time.js';
import type { Actor } from '../../src/core/audit.js';
import type { PostTransactionBody } from '../../src/core/schemas.js';
import { JsonNumber } from '../../src/core/json.js';

/** A clock that stands still until the test moves it. */
export class ManualClock implements Clock {
  constructor(public ms = Date.parse('2030-01-01T00:00:00.000Z')) {}
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(iso: string): void {
    this.ms = Date.parse(iso);
  }
}

export interface Harness {
  dir: string;
  store: SqliteStore;
  writer: LocalWriter;
  ledger: Ledger;
  clock: ManualClock;
  tenantId: string;
  adminKey: { id: string; rawKey: string; prefix: string };
  actor: Actor;
  close(): Promise<void>;
}

export async function openLedger(options: { settlementTtlSeconds?: number } = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-unit-'));
  const store = await SqliteStore.open(join(dir, 'ledger.db'));
  const clock = new ManualClock();
  const writer = await sqliteWriter(store, clock);
  const ledger = await Ledger.open(store, writer, clock, options);
  const created = await ledger.tenants.create('Acme', { type: 'HUMAN', keyId: 'cli' });
  return {
    dir,
    store,
    writer,
    ledger,
    clock,
    tenantId: created.tenantId,
    adminKey: created.apiKey,
    actor: { type: 'HUMAN', keyId: created.apiKey.id },
    close: async () => {
      await writer.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The tenant's audit records in commit order, payloads parsed. */
export async function auditOf(h: Harness, tenantId = h.tenantId) {
  return (await h.store.auditChainPage(tenantId, 0, 10_000)).map((r) => ({ ...r, payload: JSON.parse(r.payloadJson) as Record<string, unknown> }));
}

export async function account(h: Harness, fields: { currency?: 'USD' | 'BRL' | 'EUR' | 'MXN'; type?: 'ASSET' | 'LIABILITY' | 'EQUITY' | 'REVENUE' | 'EXPENSE'; name?: string } = {}, tenantId = h.tenantId) {
  const view = await h.ledger.accounts.create(tenantId, { name: fields.name ?? 'acct', currency: fields.currency ?? 'USD', type: fields.type ?? 'ASSET' }, h.actor);
  return view.id;
}

type BodyLine = PostTransactionBody['lines'][number];

export const fiatLine = (accountId: string, entryType: 'DEBIT' | 'CREDIT', amount: string, currency: 'USD' | 'BRL' | 'EUR' | 'MXN' = 'USD', extra: Partial<BodyLine> = {}): BodyLine => ({
  accountId,
  entryType,
  monetaryEntry: { type: 'FIAT', amount, currency, rail: 'ACH' },
  ...extra,
});

export const WALLET = '0x00000000000000000000000000000000000000aa';
export const SENDER = '0x00000000000000000000000000000000000000bb';

export const chainLine = (
  accountId: string,
  entryType: 'DEBIT' | 'CREDIT',
  amount: string,
  fields: { token?: 'USDC' | 'USDT' | 'BRZ' | 'PYUSD'; chainId?: 'EVM' | 'SOLANA' | 'TRON'; txHash?: string; walletAddress?: string; blockNumber?: number } = {},
): BodyLine => ({
  accountId,
  entryType,
  monetaryEntry: {
    type: 'ONCHAIN',
    amount: new JsonNumber(amount),
    token: fields.token ?? 'USDC',
    chainId: fields.chainId ?? 'EVM',
    txHash: fields.txHash ?? '0xabc',
    blockNumber: fields.blockNumber ?? 7,
    walletAddress: fields.walletAddress ?? WALLET,
    tokenContract: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
  },
});

let keyCounter = 0;
export const newKey = () => `k-${++keyCounter}`;

/** Posts lines under a fresh idempotency key; answers the parsed response body. */
export async function postLines(h: Harness, lines: BodyLine[], metadata?: Record<string, string>, tenantId = h.tenantId) {
  const res = await h.ledger.transactions.post(tenantId, h.actor, newKey(), { lines, ...(metadata ? { metadata } : {}) });
  return JSON.parse(res.body) as { transactionId: string };
}

/** The JSON text of a value that may hold RawJson and JsonNumber parts, parsed back. */
export { toJsonText } from '../../src/core/json.js';
