// Posting balanced transactions, exactly once per Idempotency-Key, and reading them back.
import type { Deps } from '../context.js';
import { LedgerError, notFound } from '../errors.js';
import { appendAudit, type Actor, type AuditAction, type AuditPayload } from '../audit.js';
import { assertBalanced, signedAmount, toTransactionInput } from '../posting.js';
import type { PostTransactionBody } from '../schemas.js';
import type { Entry, TransactionInput } from '../types.js';
import type { WriteContext, WriteTx } from '../ports.js';
import { InFlightKeys, once, requestHash, type StoredResponse } from '../idempotency.js';
import { RawJson, toJsonText } from '../json.js';
import { entryView, transactionView } from '../views.js';
import { pageBySeq, type PageQuery } from '../paging.js';
import type { Asset } from '../money.js';
import { onchainLinesOf } from '../settlement.js';
import { settleMatches } from './settlements.js';

export const POST_TRANSACTION_ENDPOINT = 'POST /api/v1/transactions';

/** What makes two requests the same request: amounts compare by value ("2.5" and 2.50 are equal), metadata by content. */
export const fingerprint = (input: TransactionInput): string =>
  JSON.stringify([
    Object.entries(input.metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    input.lines.map((l) => [l.accountId, l.entryType, l.asset, l.amountMinor.toString(), l.description, l.details]),
  ]);

/** Checks every line against its account: it must be the tenant's, and a fiat line must be in the account's currency. */
export function checkAccounts(tx: WriteTx, tenantId: string, input: TransactionInput): void {
  const ids = [...new Set(input.lines.map((l) => l.accountId))];
  const accounts = new Map(tx.accountsByIds(tenantId, ids).map((a) => [a.id, a]));
  input.lines.forEach((line, index) => {
    const account = accounts.get(line.accountId);
    if (!account) {
      throw new LedgerError('ACCOUNT_NOT_FOUND', `lines.${index}.accountId ${line.accountId} is not an account of this tenant.`);
    }
    if (line.details.kind === 'FIAT' && line.asset !== account.currency) {
      throw new LedgerError(
        'CURRENCY_MISMATCH',
        `lines.${index} is in ${line.asset} but account ${account.id} holds ${account.currency}.`,
      );
    }
  });
}

/** One balanced posting as a write: who posts it, under which id and time, and what its audit record says. */
export interface Posting {
  tenantId: string;
  actor: Actor;
  input: TransactionInput;
  transactionId: string;
  createdAt: string;
  audit: { action: AuditAction; payload: AuditPayload };
  /** A reversal records no expected transfer, so it settles nothing. */
  matchSettlements: boolean;
}

/**
 * Writes the transaction, its entries with running balances, the balance rows, the audit record and the
 * `transaction.committed` event, and settles what its on-chain lines match: all inside the caller's write.
 */
export function writePosting(ctx: WriteContext, p: Posting): void {
  const { tx, ids } = ctx;
  const { tenantId, actor, input, transactionId, createdAt } = p;
  checkAccounts(tx, tenantId, input);
  const running = new Map<string, { accountId: string; asset: Asset; balance: bigint }>();
  const entries: Entry[] = input.lines.map((line, lineNo) => {
    const slot = `${line.accountId}|${line.asset}`;
    let current = running.get(slot);
    if (!current) {
      current = { accountId: line.accountId, asset: line.asset, balance: tx.currentBalance(tenantId, line.accountId, line.asset) };
      running.set(slot, current);
    }
    current.balance += signedAmount(line);
    return { ...line, id: ids.next(), seq: 0, tenantId, transactionId, lineNo, createdAt, balanceAfterMinor: current.balance };
  });
  // The parent row first: entries reference it.
  const document = toJsonText(transactionView({ id: transactionId, metadata: input.metadata, createdAt }, entries));
  tx.insertTransaction({ id: transactionId, tenantId, document, createdAt });
  for (const entry of entries) {
    tx.insertEntry(entry, toJsonText(entryView(entry)));
    // By hash, so that a transfer a chain watcher sees finds the posting that records it.
    if (entry.details.kind === 'ONCHAIN') tx.insertOnchainLine(tenantId, entry.details.chainId, entry.details.txHash, transactionId, entry.lineNo);
  }
  for (const { accountId, asset, balance } of running.values()) tx.setBalance(tenantId, accountId, asset, balance);
  appendAudit(tx, ids, tenantId, actor, p.audit.action, createdAt, p.audit.payload);
  tx.insertOutbox({ id: ids.next(), tenantId, type: 'transaction.committed', payload: document, createdAt });
  if (!p.matchSettlements) return;
  // A posting that records an expected transfer settles it in this same commit.
  const matches = settleMatches(ctx, tenantId, actor, transactionId, onchainLinesOf(entries), createdAt, 'POSTING');
  for (const { settlement } of matches) {
    tx.insertReconciliationResult(tenantId, { transactionId, outcome: 'SETTLED', settlementId: settlement.id, source: 'POSTING', reconciledAt: createdAt });
  }
}

/** A posting through `POST /api/v1/transactions`: the posting and its idempotency record, one unit. */
export function postTransactionCommand(
  ctx: WriteContext,
  args: { tenantId: string; actor: Actor; input: TransactionInput; key: string; hash: string },
): StoredResponse {
  const { tenantId, key } = args;
  // No second idempotency lookup here: the in-flight guard makes this process the key's only writer, and the
  // primary key of the idempotency table refuses a duplicate outright.
  const createdAt = ctx.commitClock.next();
  const transactionId = ctx.ids.next();
  writePosting(ctx, {
    tenantId,
    actor: args.actor,
    input: args.input,
    transactionId,
    createdAt,
    audit: { action: 'POST_TRANSACTION', payload: { transactionId, lineCount: args.input.lines.length, idempotencyKey: key } },
    matchSettlements: true,
  });
  const response: StoredResponse = { status: 201, body: JSON.stringify({ transactionId }) };
  ctx.tx.insertIdempotency(tenantId, POST_TRANSACTION_ENDPOINT, key, { requestHash: args.hash, ...response }, createdAt);
  return response;
}

export class TransactionService {
  private readonly inFlight = new InFlightKeys();

  constructor(private readonly deps: Deps) {}

  /** Posts a transaction, or answers the original response for a replayed key. */
  async post(tenantId: string, actor: Actor, idempotencyKey: string, body: PostTransactionBody): Promise<StoredResponse> {
    const input = toTransactionInput(body);
    const hash = requestHash(fingerprint(input));
    const request = { tenantId, endpoint: POST_TRANSACTION_ENDPOINT, key: idempotencyKey, hash };
    return once(this.deps.store, this.inFlight, request, async () => {
      assertBalanced(input.lines);
      return this.deps.writer.run('postTransaction', { tenantId, actor, input, key: idempotencyKey, hash });
    });
  }

  get(tenantId: string, transactionId: string) {
    const record = this.deps.store.transaction(tenantId, transactionId);
    if (!record) throw notFound(`Transaction ${transactionId}`);
    return new RawJson(record.document);
  }

  list(tenantId: string, query: PageQuery) {
    const { store } = this.deps;
    return pageBySeq(
      this.deps,
      `transactions:${tenantId}`,
      query,
      (before, limit) => store.transactionsPage(tenantId, before, limit),
      (t) => new RawJson(t.document),
    );
  }
}
