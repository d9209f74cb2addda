// Two-phase holds: reserve a balanced set of lines now (counted in pending, available and limits, posting nothing),
// then capture it (whole or in part), void it, or let it expire; each step is one command against committed state.
import type { Deps } from '../context.js';
import { invalid, notFound } from '../errors.js';
import type { Actor } from '../audit.js';
import { toTransactionInput, fingerprint } from '../posting.js';
import { once, requestHash, type StoredResponse } from '../idempotency.js';
import { amountValue } from '../money.js';
import { uuidV7 } from '../ids.js';
import { pageBySeq, type PageQuery } from '../paging.js';
import { CursorScope } from '../cursor.js';
import { policyViolation } from './agents.js';
import type { CaptureHoldBody, CreateHoldBody } from '../schemas.js';
import { HOLD_EXPIRY_MAX_MS, HOLD_SWEEP_ROWS_MAX } from '../limits.js';
import { releaseRows } from '../writeRows.js';
import type { HoldStatus } from '../enums.js';
import { holdView } from '../views.js';
import { CREATE_HOLD_ENDPOINT, holdExpired, type AgentHolder } from '../commands/holds.js';
import type { DueHold } from '../hold.js';

/**
 * The sweep's parts, in the order read: each one tenant's holds whose release writes at most `rowsMax` rows in all (a
 * hold with more goes alone), so that holds expiring together are large writes that take turns with other writes.
 */
export function sweepParts(due: readonly DueHold[], rowsMax: number): Array<{ tenantId: string; holds: Array<{ id: string; lines: number }> }> {
  const parts: Array<{ tenantId: string; holds: Array<{ id: string; lines: number }>; rows: number }> = [];
  for (const { tenantId, id, lines } of due) {
    const last = parts[parts.length - 1];
    const rows = releaseRows(lines);
    if (last && last.tenantId === tenantId && last.rows + rows <= rowsMax) {
      last.holds.push({ id, lines });
      last.rows += rows;
    } else {
      parts.push({ tenantId, holds: [{ id, lines }], rows });
    }
  }
  return parts.map(({ tenantId, holds }) => ({ tenantId, holds }));
}

/** When a hold expires: as asked (in the future, within the maximum), else the default after now. */
function expiryOf(deps: Deps, expiresAt: number | undefined): string | null {
  if (expiresAt === undefined) return null;
  const now = deps.clock.now().getTime();
  if (expiresAt <= now) throw invalid('expiresAt must be in the future.', [{ path: 'expiresAt', message: 'must be in the future' }]);
  if (expiresAt > now + HOLD_EXPIRY_MAX_MS) {
    throw invalid(`expiresAt must be within ${HOLD_EXPIRY_MAX_MS / 86_400_000} days.`, [{ path: 'expiresAt', message: `must be within ${HOLD_EXPIRY_MAX_MS / 86_400_000} days` }]);
  }
  return new Date(expiresAt).toISOString();
}

export class HoldService {

  constructor(private readonly deps: Deps) {}

  async create(tenantId: string, actor: Actor, key: string, body: CreateHoldBody, agent: AgentHolder | null = null): Promise<StoredResponse> {
    const input = toTransactionInput(body);
    const expiresAt = expiryOf(this.deps, body.expiresAt);
    const hash = requestHash(`${fingerprint(input)}\u0000${expiresAt ?? ''}\u0000${agent?.sessionId ?? ''}`);
    return once(this.deps.inFlight, { tenantId, endpoint: CREATE_HOLD_ENDPOINT, key, hash }, async () => {
      const result = await this.deps.writer.run('createHold', { tenantId, actor, holdId: uuidV7.next(), input, expiresAt, key, hash, agent });
      if ('refused' in result) throw policyViolation(result.refused);
      return result;
    });
  }

  /** A hold's line count, read before its step is queued: the step's weight (see Command.weight). */
  private async linesOf(tenantId: string, holdId: string): Promise<number> {
    const lines = await this.deps.store.holdLineCount(tenantId, holdId);
    if (lines === undefined) throw notFound(`Hold ${holdId}`);
    return lines;
  }

  /** The amount is checked here as far as it can be without the hold (its asset's places are checked when captured). */
  async capture(tenantId: string, actor: Actor, holdId: string, body: CaptureHoldBody, key: string | null): Promise<StoredResponse> {
    let amount: string | null = null;
    if (body.amount !== undefined) {
      const checked = amountValue(body.amount);
      if (!checked.ok) throw invalid(`amount ${checked.message}.`, [{ path: 'amount', message: checked.message }]);
      amount = checked.text;
    }
    const lines = await this.linesOf(tenantId, holdId);
    const result = await this.deps.writer.run('captureHold', { tenantId, actor, holdId, amount, ...(body.effectiveAt === undefined ? {} : { effectiveAt: body.effectiveAt }), key, lines });
    if ('expired' in result) throw holdExpired(result.expired);
    return result;
  }

  async void(tenantId: string, actor: Actor, holdId: string, key: string | null): Promise<StoredResponse> {
    const lines = await this.linesOf(tenantId, holdId);
    const result = await this.deps.writer.run('voidHold', { tenantId, actor, holdId, key, lines });
    if ('expired' in result) throw holdExpired(result.expired);
    return result;
  }

  /**
   * Expires what is due: up to `limit` holds read (a server with nothing due commits nothing, and wakes no one), then
   * released in parts of at most HOLD_SWEEP_ROWS_MAX rows (sweepParts), each its own write, one after another, so
   * that other tenants' writes pass between them. Answers how many were read.
   */
  async expireDue(limit: number): Promise<number> {
    const due = await this.deps.store.expiredHolds(this.deps.clock.now().toISOString(), limit);
    for (const part of sweepParts(due, HOLD_SWEEP_ROWS_MAX)) await this.deps.writer.run('expireHolds', part);
    return due.length;
  }

  async get(tenantId: string, holdId: string) {
    const hold = await this.deps.store.hold(tenantId, holdId);
    if (!hold) throw notFound(`Hold ${holdId}`);
    return holdView(hold);
  }

  list(tenantId: string, query: PageQuery & { status?: HoldStatus; accountId?: string }) {
    const filter = { status: query.status ?? null, accountId: query.accountId ?? null };
    return pageBySeq(
      this.deps,
      new CursorScope(`holds:${tenantId}`, filter),
      query,
      (before, limit) => this.deps.store.holdsPage(tenantId, filter, before, limit),
      (hold) => holdView(hold),
    );
  }
}
