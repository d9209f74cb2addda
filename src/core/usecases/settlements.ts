// Settlement expectations: registering (once per Idempotency-Key), reading, cancelling, expiring, and settling on a match.
import type { Deps } from '../context.js';
import { invalid, notFound } from '../errors.js';
import type { Actor } from '../audit.js';
import { parseAmount } from '../money.js';
import type { RegisterSettlementBody, SettlementsQuery } from '../schemas.js';
import { once, requestHash, type StoredResponse } from '../idempotency.js';
import { toIso } from '../time.js';
import { pageBySeq } from '../paging.js';
import { CursorScope } from '../cursor.js';
import { SETTLEMENT_DUE_REREAD_MS } from '../limits.js';
import { settlementView } from '../views.js';
import { REGISTER_SETTLEMENT_ENDPOINT, type SettlementInput } from '../commands/settlements.js';

/** The expected amount in minor units of the token; a 400 when it has more places than the token or is not above zero. */
function toSettlementInput(body: RegisterSettlementBody): SettlementInput {
  const amount = parseAmount(body.expectedAmount, body.expectedToken);
  if (!amount.ok) {
    throw invalid(`Invalid request body: expectedAmount ${amount.message}.`, [{ path: 'expectedAmount', message: amount.message }]);
  }
  return {
    accountId: body.accountId,
    token: body.expectedToken,
    amountText: body.expectedAmount,
    amountMinor: amount.minor,
    chain: body.expectedChainId,
    walletAddress: body.expectedWalletAddress,
    fromAddress: body.expectedFromAddress ?? null,
  };
}

/** What makes two registrations the same request: the amount by value ("10.5" and "10.50"), as for transactions. */
const fingerprint = (i: SettlementInput): string =>
  JSON.stringify([i.accountId, i.token, i.amountMinor.toString(), i.chain, i.walletAddress, i.fromAddress]);

export class SettlementService {
  /** The earliest expiry among PENDING settlements as last read (null: none; undefined: to be read). */
  private dueAt: string | null | undefined;
  private dueReadAtMs = 0;

  constructor(private readonly deps: Deps) {}

  async register(tenantId: string, actor: Actor, key: string, body: RegisterSettlementBody): Promise<StoredResponse> {
    const input = toSettlementInput(body);
    const hash = requestHash(fingerprint(input));
    return once(this.deps.inFlight, { tenantId, endpoint: REGISTER_SETTLEMENT_ENDPOINT, key, hash }, async () => {
      const stored = await this.deps.writer.run('registerSettlement', { tenantId, actor, input, key, hash, ttlMs: this.deps.settlementTtlMs });
      this.noteExpiry((JSON.parse(stored.body) as { expiresAt: string }).expiresAt);
      return stored;
    });
  }

  private noteExpiry(expiresAt: string): void {
    if (this.dueAt === null || (this.dueAt !== undefined && expiresAt < this.dueAt)) this.dueAt = expiresAt;
  }

  async get(tenantId: string, settlementId: string) {
    const settlement = await this.deps.store.settlement(tenantId, settlementId);
    if (!settlement) throw notFound(`Settlement ${settlementId}`);
    return settlementView(settlement);
  }

  async list(tenantId: string, query: SettlementsQuery) {
    if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
      throw invalid('Invalid query: from must not be after to.', [{ path: 'from', message: 'is after to' }]);
    }
    const filter = {
      status: query.status ?? null,
      from: query.from === undefined ? null : toIso(query.from),
      to: query.to === undefined ? null : toIso(query.to),
    };
    return pageBySeq(this.deps, new CursorScope(`settlements:${tenantId}`, filter), query, (before, limit) => this.deps.store.settlementsPage(tenantId, filter, before, limit), (s) => settlementView(s));
  }

  cancel(tenantId: string, actor: Actor, settlementId: string) {
    return this.deps.writer.run('cancelSettlement', { tenantId, actor, settlementId });
  }

  /**
   * Expires what is due, when anything is. The earliest expiry is kept in memory (registrations here lower it) and read
   * again after each sweep and every few seconds (for settlements registered by another process), so an idle
   * server neither writes nor asks every tenant on every tick.
   */
  async expireDue(limit: number): Promise<number> {
    const now = this.deps.clock.now();
    if (this.dueAt === undefined || now.getTime() - this.dueReadAtMs >= SETTLEMENT_DUE_REREAD_MS) {
      this.dueAt = await this.deps.store.nextExpiry();
      this.dueReadAtMs = now.getTime();
    }
    if (this.dueAt === null || this.dueAt > now.toISOString()) return 0;
    const expired = await this.deps.writer.run('expireSettlements', { limit });
    this.dueAt = undefined;
    return expired;
  }
}
