// The SQL store's transactions and idempotency records.
import type { LinkedTransaction, ReversalLinks, TransactionRecord } from '../../../core/types.js';
import type { FoundRows, Rows, StoredIdempotency, TransactionFilter } from '../../../core/ports.js';
import { heldIdempotencyKey, part, SEQ_MAX, lazy } from '../part.js';
import { metadataFilters, metadataParams, type IndexFilter } from '../../queries/indexFilters.js';
import type { LinkedTransactionRow } from '../../queries/transactions.js';
import { scanPage } from '../scan.js';
import * as m from '../mappers.js';
import { IDEMPOTENT_ENDPOINTS } from '../storedNames.js';
import type { TransactionReads, TransactionWrites } from '../../../core/ports/transactions.js';

/** The filter `accountId`: the accounts a transaction's lines touch, kept by its sequence. */
const ACCOUNT_FILTER: IndexFilter = { table: 'transaction_accounts', seq: 'tx_seq', equals: [['account_id', 'accountId']] };
const ALL_TRANSACTIONS: IndexFilter = { table: 'transactions', seq: 'seq', equals: [] };

export const transactionsPart = part({
  async hasTransaction(tenantId: string, transactionId: string): Promise<boolean> {
    return (await this.s.hasTransaction.get({ tenantId, transactionId })) !== undefined;
  },

  async transaction(tenantId: string, transactionId: string): Promise<LinkedTransaction | undefined> {
    const r = await this.s.transaction.get({ tenantId, transactionId });
    return r && m.toTransaction(r);
  },

  transactionsPage(tenantId: string, before: number | null, limit: number): Rows<LinkedTransaction> {
    return lazy(this.s.transactionsPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), m.toTransaction);
  },

  async *transactionsFound(tenantId: string, filter: TransactionFilter, before: number | null, limit: number): FoundRows<LinkedTransaction> {
    // A time bound is the range of the tenant's sequences within it (its times rise with its sequence).
    const fromSeq = filter.from === null ? 0n : (await this.s.firstSeqFrom.get({ tenantId, at: filter.from }))?.seq;
    const toSeq = filter.to === null ? SEQ_MAX : (await this.s.lastSeqTo.get({ tenantId, at: filter.to }))?.seq;
    if (fromSeq === undefined || toSeq === undefined) return;
    const filters: IndexFilter[] = metadataFilters('transaction_metadata', 'tx_seq', filter.metadata.length);
    if (filter.accountId !== null) filters.push(ACCOUNT_FILTER);
    // Only a time bound: the transactions' own sequence.
    if (filters.length === 0) filters.push(ALL_TRANSACTIONS);
    // The page's position is an upper bound too: the lower of the two is the range's end.
    const end = BigInt(toSeq);
    const to = before !== null && BigInt(before) <= end ? BigInt(before) - 1n : end;
    const args = { tenantId, ...metadataParams(filter.metadata), ...(filter.accountId !== null ? { accountId: filter.accountId } : {}) };
    yield* scanPage(this, 'transactions', filters, { from: BigInt(fromSeq), to }, limit, args, (row: LinkedTransactionRow) => m.toTransaction(row));
  },

  async indexTransaction(tenantId: string, transactionId: string, metadata: Readonly<Record<string, string>>, accountIds: readonly string[]): Promise<void> {
    for (const [key, value] of Object.entries(metadata)) await this.s.insertTransactionMetadata.run({ tenantId, transactionId, key, value });
    for (const accountId of accountIds) await this.s.insertTransactionAccount.run({ tenantId, transactionId, accountId });
  },

  async insertTransaction(record: Omit<TransactionRecord, 'seq'>, backdatedTo: string | null): Promise<void> {
    await this.s.insertTransaction.run({ tenantId: record.tenantId, id: record.id, document: record.document, createdAt: record.createdAt, effectiveAt: backdatedTo });
  },

  async reversalLinks(tenantId: string, transactionId: string): Promise<ReversalLinks> {
    // One after the other: a write transaction's connection takes one statement at a time.
    const reversedBy = await this.s.reversedBy.get({ tenantId, transactionId });
    const reverses = await this.s.reverses.get({ tenantId, transactionId });
    return { reversesTransactionId: reverses?.transaction_id ?? null, reversedByTransactionId: reversedBy?.reversal_id ?? null };
  },

  async insertReversal(tenantId: string, link: { transactionId: string; reversalId: string; createdAt: string }): Promise<void> {
    await this.s.insertReversal.run({ tenantId, ...link });
  },

  /** Held in the open write transaction once read ahead or written there. */
  async idempotency(tenantId: string, endpoint: string, key: string): Promise<StoredIdempotency | undefined> {
    const held = this.held.idempotency.get(heldIdempotencyKey(tenantId, endpoint, key));
    if (held !== undefined) return held ?? undefined;
    const r = await this.s.idempotency.get({ tenantId, endpoint: IDEMPOTENT_ENDPOINTS.stored(endpoint), key });
    return r && { requestHash: m.hexOf(r.request_hash), status: Number(r.status), body: r.body };
  },

  async insertIdempotency(tenantId: string, endpoint: string, key: string, stored: StoredIdempotency, createdAt: string): Promise<void> {
    await this.s.insertIdempotency.run({
      tenantId,
      endpoint: IDEMPOTENT_ENDPOINTS.stored(endpoint),
      key,
      requestHash: m.digestBytes(stored.requestHash),
      status: BigInt(stored.status),
      body: stored.body,
      createdAt,
    });
    this.held.idempotency.set(heldIdempotencyKey(tenantId, endpoint, key), stored);
  },

  async lastCommitTime(tenantIds?: readonly string[]): Promise<string | null> {
    if (!tenantIds) return (await this.s.lastCommitTime.get())?.occurred_at ?? null;
    const times = await Promise.all(tenantIds.map(async (tenantId) => (await this.s.tenantLastCommitTime.get({ tenantId }))?.occurred_at ?? null));
    return times.reduce<string | null>((latest, at) => (at !== null && (latest === null || at > latest) ? at : latest), null);
  },
}) satisfies TransactionReads & TransactionWrites;
