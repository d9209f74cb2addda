// The SQL store's read-ahead: what a write group's commands will read, read at its start in one go (on PostgreSQL,
// one round trip with the group's BEGIN) and held for the group.
import type { ReadAhead } from '../../../core/ports.js';
import { BALANCE_READ_AHEAD_ACCOUNTS } from '../../../core/limits.js';
import { accountsArgs, heldIdempotencyKey, heldKey, part } from '../part.js';
import type { ReadAheadWrites } from '../../../core/ports/readAhead.js';

export const readAheadPart = part({
  /**
   * Reads at the start of a write group what its commands will read (kept balances, each tenant's audit chain head,
   * the records of their Idempotency-Keys) and holds it for the group; under the write lock nobody else changes
   * them meanwhile. The reads are asked for together: an engine that batches reads sends them in one round trip.
   */
  async readAhead(hints: readonly ReadAhead[]): Promise<void> {
    const accountsByTenant = new Map<string, Set<string>>();
    for (const { tenantId, balances } of hints) {
      const accounts = accountsByTenant.get(tenantId) ?? new Set<string>();
      accountsByTenant.set(tenantId, accounts);
      for (const { accountId, asset } of balances) if (!this.held.balances.has(heldKey(tenantId, accountId, asset))) accounts.add(accountId);
    }
    const reads: Array<Promise<unknown>> = [];
    for (const [tenantId, accounts] of accountsByTenant) {
      const ids = [...accounts];
      for (let i = 0; i < ids.length; i += BALANCE_READ_AHEAD_ACCOUNTS) {
        const args = accountsArgs(tenantId, ids.slice(i, i + BALANCE_READ_AHEAD_ACCOUNTS), BALANCE_READ_AHEAD_ACCOUNTS);
        reads.push(Promise.resolve(this.s.balancesOfMany.all(args)).then((rows) => this.held.holdBalances(tenantId, rows, [])));
      }
      if (!this.held.auditHeads.has(tenantId)) reads.push(this.lastAuditHash(tenantId).then((hash) => this.held.auditHeads.set(tenantId, hash)));
    }
    for (const { tenantId, idempotency } of hints) {
      if (!idempotency) continue;
      const { endpoint, keys } = idempotency;
      for (const key of keys) {
        const recordKey = heldIdempotencyKey(tenantId, endpoint, key);
        if (!this.held.idempotency.has(recordKey)) reads.push(this.idempotency(tenantId, endpoint, key).then((stored) => this.held.idempotency.set(recordKey, stored ?? null)));
      }
    }
    await Promise.all(reads);
    // A balance with no row yet is 0.
    for (const { tenantId, balances } of hints) this.held.holdBalances(tenantId, [], balances);
  },
}) satisfies ReadAheadWrites;
