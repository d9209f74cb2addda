// The SQL store's holds.
import type { Selectable } from 'kysely';
import type { FoundRows } from '../../../core/ports.js';
import type { Hold, DueHold } from '../../../core/hold.js';
import type { Database } from '../../schema.js';
import type { IndexFilter } from '../../queries/indexFilters.js';
import { scanPage } from '../scan.js';
import { part, SEQ_MAX } from '../part.js';
import * as m from '../mappers.js';
import { inputToJson } from '../../../core/agent.js';
import type { TransactionInput } from '../../../core/types.js';
import type { HoldStatus } from '../../../core/enums.js';
import type { HoldReads, HoldWrites } from '../../../core/ports/holds.js';

/** The hold list's filters: by status (its index), by account (each hold's accounts, kept by its sequence). */
const STATUS_FILTER: IndexFilter = { table: 'holds', seq: 'seq', equals: [['status', 'status']] };
const ACCOUNT_FILTER: IndexFilter = { table: 'hold_accounts', seq: 'hold_seq', equals: [['account_id', 'accountId']] };
const ALL_HOLDS: IndexFilter = { table: 'holds', seq: 'seq', equals: [] };

export const holdsPart = part({
  async hold(tenantId: string, id: string): Promise<Hold | undefined> {
    const r = await this.s.hold.get({ tenantId, id });
    return r && m.toHold(r);
  },

  async holdLineCount(tenantId: string, id: string): Promise<number | undefined> {
    const r = await this.s.holdLineCount.get({ tenantId, id });
    return r && Number(r.line_count);
  },

  holdsPage(tenantId: string, filter: { status: HoldStatus | null; accountId: string | null }, before: number | null, limit: number): FoundRows<Hold> {
    const filters: IndexFilter[] = [];
    if (filter.status !== null) filters.push(STATUS_FILTER);
    if (filter.accountId !== null) filters.push(ACCOUNT_FILTER);
    if (filters.length === 0) filters.push(ALL_HOLDS);
    const to = before === null ? SEQ_MAX : BigInt(before) - 1n;
    return scanPage(this, 'holds', filters, { from: 0n, to }, limit, { tenantId, status: filter.status, accountId: filter.accountId }, (row: Selectable<Database['holds']>) => m.toHold(row));
  },

  /** Tenant by tenant, so that every seek is on an index that tenant id leads. */
  async expiredHolds(at: string, limit: number): Promise<DueHold[]> {
    const found: DueHold[] = [];
    for (const { id: tenantId } of await this.s.tenantIds.all()) {
      if (found.length >= limit) break;
      for (const r of await this.s.expiredHolds.all({ tenantId, at, limit: limit - found.length })) found.push({ tenantId, id: r.id, lines: Number(r.line_count) });
    }
    return found;
  },

  /** A new PENDING hold, with each of its accounts once (for the listing by account). */
  async insertHold(hold: { tenantId: string; id: string; input: TransactionInput; expiresAt: string; createdAt: string }): Promise<void> {
    const { tenantId, id } = hold;
    await this.s.insertHold.run({ tenantId, id, input: inputToJson(hold.input), lineCount: BigInt(hold.input.lines.length), expiresAt: hold.expiresAt, createdAt: hold.createdAt });
    for (const accountId of new Set(hold.input.lines.map((l) => l.accountId))) await this.s.insertHoldAccount.run({ tenantId, holdId: id, accountId });
  },

  /** Ends a PENDING hold; false when it was no longer PENDING. */
  async closeHold(tenantId: string, id: string, end: { status: HoldStatus; decidedAt: string; capturedAmount: string | null; transactionId: string | null }): Promise<boolean> {
    return (await this.s.closeHold.run({ tenantId, id, ...end })) === 1;
  },
}) satisfies HoldReads & HoldWrites;
