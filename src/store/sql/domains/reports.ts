// The SQL store's reads for the reports (queries/reports.ts): the bounds a report starts from, every balance of a
// tenant at an instant a part at a time, a trial balance's rows of one account type, and the audit head at an instant.
import type { ReportInstant, TrialBalanceRow } from '../../../core/ports.js';
import type { Asset } from '../../../core/money.js';
import { part, TIME_MIN } from '../part.js';
import * as m from '../mappers.js';
import type { AccountType } from '../../../core/enums.js';
import type { ReportReads } from '../../../core/ports/reports.js';

const balanceOf = (value: unknown): bigint | null => (value === null || value === undefined ? null : BigInt(String(value)));
const boundArgs = (at: ReportInstant) => ({ asOf: at.asOf, transactionSeq: BigInt(at.transactionSeq) });

export const reportsPart = part({
  async reportBounds(tenantId: string): Promise<{ transactionSeq: number; auditSeq: number }> {
    const row = await this.s.reportBounds.get({ tenantId });
    return { transactionSeq: Number(row?.transaction_seq ?? 0), auditSeq: Number(row?.audit_seq ?? 0) };
  },

  async balancesAtPart(
    tenantId: string,
    at: ReportInstant,
    after: { accountId: string; asset: string } | null,
    limit: number,
  ): Promise<Array<{ accountId: string; asset: Asset; type: AccountType; balance: bigint | null }>> {
    const rows = await this.s.balancesAtPart.all({ tenantId, ...boundArgs(at), afterAccount: after?.accountId ?? TIME_MIN, afterAsset: after?.asset ?? TIME_MIN, limit });
    return rows.map((r) => ({ accountId: r.account_id, asset: r.asset as Asset, type: r.type as AccountType, balance: balanceOf(r.balance) }));
  },

  async trialBalanceRows(
    tenantId: string,
    at: ReportInstant,
    type: AccountType,
    after: { name: string; accountId: string; asset: string } | null,
    limit: number,
  ): Promise<TrialBalanceRow[]> {
    const rows = await this.s.trialBalanceRows.all({
      tenantId,
      ...boundArgs(at),
      type,
      afterName: after?.name ?? TIME_MIN,
      afterId: after?.accountId ?? TIME_MIN,
      afterAsset: after?.asset ?? TIME_MIN,
      limit,
    });
    return rows.map((r) => ({ accountId: r.id, name: r.name, asset: r.asset as Asset, balance: balanceOf(r.balance) }));
  },

  async auditHeadAt(tenantId: string, asOf: string, auditSeq: number): Promise<{ id: string; hash: string; occurredAt: string } | null> {
    const row = await this.s.auditHeadAt.get({ tenantId, asOf, auditSeq: BigInt(auditSeq) });
    return row ? { id: row.id, hash: m.hexOf(row.hash), occurredAt: row.occurred_at } : null;
  },
}) satisfies ReportReads;
