// Finding a payment: GET /api/v1/transactions with filters (an account, a time window, metadata entries, the
// Idempotency-Key a transaction was posted under), newest first, each filter served by an index (store).
import type { Deps } from '../context.js';
import type { TransactionFilter } from '../ports.js';
import type { LinkedTransaction } from '../types.js';
import { invalid } from '../errors.js';
import { RawJson } from '../json.js';
import { linkedTransactionText } from '../views.js';
import { sortedEntries } from '../idempotency.js';
import { cursorSeq, pageBySeq, Rendered } from '../paging.js';
import { CursorScope } from '../cursor.js';
import { toIso } from '../time.js';
import type { TransactionsQuery } from '../schemas.js';
import { AGENT_EXECUTE_ENDPOINT } from '../commands/agents.js';
import { POST_TRANSACTION_ENDPOINT } from '../commands/transactions.js';
import { REVERSE_TRANSACTION_ENDPOINT } from '../commands/reversals.js';

/** Where a transaction may have been posted under an Idempotency-Key, in the order they are looked in. */
const POSTING_ENDPOINTS = [POST_TRANSACTION_ENDPOINT, REVERSE_TRANSACTION_ENDPOINT, AGENT_EXECUTE_ENDPOINT];

const view = (t: LinkedTransaction) => new RawJson(linkedTransactionText(t.document, t));

/** Whether a transaction passes the filters (the one an Idempotency-Key names, checked against the others). */
function passes(t: LinkedTransaction, filter: TransactionFilter): boolean {
  if ((filter.from !== null && t.createdAt < filter.from) || (filter.to !== null && t.createdAt > filter.to)) return false;
  if (filter.metadata.length === 0 && filter.accountId === null) return true;
  const document = JSON.parse(t.document) as { metadata: Record<string, string>; lines: Array<{ accountId: string }> };
  if (!filter.metadata.every(([key, value]) => Object.hasOwn(document.metadata, key) && document.metadata[key] === value)) return false;
  return filter.accountId === null || document.lines.some((line) => line.accountId === filter.accountId);
}

/** The transaction posted under the key through any posting endpoint, if it passes the other filters: one item or none. */
async function byIdempotencyKey(deps: Deps, tenantId: string, key: string, filter: TransactionFilter) {
  for (const endpoint of POSTING_ENDPOINTS) {
    const stored = await deps.store.idempotency(tenantId, endpoint, key);
    if (!stored) continue;
    const { transactionId } = JSON.parse(stored.body) as { transactionId?: string };
    const found = transactionId === undefined ? undefined : await deps.store.transaction(tenantId, transactionId);
    // An agent transaction held for approval has no posting yet; it is found once approved.
    if (!found) continue;
    if (!passes(found, filter)) return [];
    const rendered = view(found);
    return [new Rendered(rendered.text, rendered)];
  }
  return [];
}

/** Finding a payment. */
export class TransactionSearchService {
  constructor(private readonly deps: Deps) {}

  async find(tenantId: string, query: TransactionsQuery) {
    if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
      throw invalid('Invalid query: from must not be after to.', [{ path: 'from', message: 'is after to' }]);
    }
    const filter: TransactionFilter = {
      metadata: sortedEntries(query.metadata ?? {}),
      accountId: query.accountId ?? null,
      from: query.from === undefined ? null : toIso(query.from),
      to: query.to === undefined ? null : toIso(query.to),
    };
    // A cursor is sealed with every filter: reused with others, it is refused as a tampered one is.
    const scope = new CursorScope(`transactions:${tenantId}`, {
      accountId: filter.accountId,
      from: filter.from,
      to: filter.to,
      metadata: filter.metadata.length > 0 ? filter.metadata.map((entry) => JSON.stringify(entry)) : null,
      idempotencyKey: query.idempotencyKey ?? null,
    });
    if (query.idempotencyKey !== undefined) {
      // One page: a cursor of it cannot exist, so any cursor sent is another query's.
      if (query.cursor) cursorSeq(this.deps, scope, query.cursor);
      return { items: await byIdempotencyKey(this.deps, tenantId, query.idempotencyKey, filter), nextCursor: null };
    }
    const filtered = filter.metadata.length > 0 || filter.accountId !== null || filter.from !== null || filter.to !== null;
    return pageBySeq(
      this.deps,
      scope,
      query,
      (before, limit) => (filtered ? this.deps.store.transactionsFound(tenantId, filter, before, limit) : this.deps.store.transactionsPage(tenantId, before, limit)),
      view,
    );
  }
}

