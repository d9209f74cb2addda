// What the store gives the audit domain: each tenant's hash-chained log, its pages and its head.
import type { AuditRecord } from '../auditChain.js';
import type { Rows } from './rows.js';

export interface AuditInsert extends AuditRecord {
  tenantId: string;
}

/** An audit record as stored: the payload is its JSON text. */
export interface StoredAuditRecord extends Omit<AuditRecord, 'payload'> {
  seq: number;
  payloadJson: string;
}

/** ReadStore's part for the audit log. */
export interface AuditReads {
  /** Audit records with occurredAt in [from, to), in commit order, after a keyset position. */
  auditPage(
    tenantId: string,
    range: { from: string; to: string },
    after: { occurredAt: string; seq: number } | null,
    limit: number,
  ): Rows<StoredAuditRecord>;
  /** A tenant's whole chain in commit order, a page at a time. */
  auditChainPage(tenantId: string, afterSeq: number, limit: number): Promise<StoredAuditRecord[]>;
}

/** WriteTx's part for the audit log. */
export interface AuditWrites {
  lastAuditHash(tenantId: string): Promise<string | null>;
  appendAudit(record: AuditInsert): Promise<void>;
}
