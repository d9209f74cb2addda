// The SQL store's audit log: each tenant's hash chain, its head held for the open write transaction.
import type { AuditInsert, Rows, StoredAuditRecord } from '../../../core/ports.js';
import { part, TIME_MIN, lazy } from '../part.js';
import * as m from '../mappers.js';
import type { AuditReads, AuditWrites } from '../../../core/ports/audit.js';

export const auditPart = part({
  auditPage(
    tenantId: string,
    range: { from: string; to: string },
    after: { occurredAt: string; seq: number } | null,
    limit: number,
  ): Rows<StoredAuditRecord> {
    return lazy(
      this.s.auditPage.iterate({
        tenantId,
        lower: after && after.occurredAt > range.from ? after.occurredAt : range.from,
        to: range.to,
        afterTime: after?.occurredAt ?? TIME_MIN,
        afterSeq: after ? BigInt(after.seq) : 0n,
        limit,
      }),
      m.toStoredAudit,
    );
  },

  async auditChainPage(tenantId: string, afterSeq: number, limit: number): Promise<StoredAuditRecord[]> {
    return (await this.s.auditChainPage.all({ tenantId, afterSeq: BigInt(afterSeq), limit })).map(m.toStoredAudit);
  },

  async lastAuditHash(tenantId: string): Promise<string | null> {
    const held = this.held.auditHeads.get(tenantId);
    if (held !== undefined) return held;
    const head = (await this.s.lastAuditHash.get({ tenantId }))?.hash;
    return head === undefined ? null : m.hexOf(head);
  },

  async appendAudit(r: AuditInsert): Promise<void> {
    await this.s.appendAudit.run({
      tenantId: r.tenantId,
      id: r.id,
      type: r.type,
      action: r.action,
      actorKeyId: r.actorKeyId,
      occurredAt: r.occurredAt,
      payload: JSON.stringify(r.payload),
      prevHash: r.prevHash === null ? null : m.digestBytes(r.prevHash),
      hash: m.digestBytes(r.hash),
    });
    this.held.auditHeads.set(r.tenantId, r.hash);
  },
}) satisfies AuditReads & AuditWrites;
