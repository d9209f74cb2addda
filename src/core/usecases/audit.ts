// The audit log read back: the NDJSON export of a time window, and verification of a tenant's whole hash chain.
import type { Deps } from '../context.js';
import type { ReadStore, StoredAuditRecord } from '../ports.js';
import { invalid } from '../errors.js';
import { auditLine, ChainVerifier, checkStoredRecord, type ActorType, type ChainBreak } from '../audit.js';
import { parseJsonObject } from '../json.js';
import { toIso } from '../time.js';
import { ANSWER_SIZE_MAX_BYTES, AUDIT_PAGE_ROWS, SCAN_ROWS_MAX } from '../limits.js';
import type { AuditExportQuery } from '../schemas.js';

/** The audit log: the export of a window, and the check of a tenant's whole chain. */
export class AuditService {
  constructor(private readonly deps: Deps) {}

  /**
   * The export as chunks of NDJSON text, oldest first, one page of records per chunk: read lazily, so memory stays flat
   * however large the window. The query is checked before the first chunk is asked for.
   */
  export(tenantId: string, query: AuditExportQuery): AsyncIterable<string> {
    if (query.from >= query.to) throw invalid('Invalid query: to must be after from.', [{ path: 'to', message: 'must be after from' }]);
    const type = query.type === undefined || query.type === 'ALL' ? null : query.type;
    return exportPages(this.deps.store, tenantId, { from: toIso(query.from), to: toIso(query.to) }, type);
  }

  /** Recomputes a tenant's chain from its first record; the first break found, or how many records hold. */
  async verifyChain(tenantId: string): Promise<ChainReport> {
    const verifier = new ChainVerifier(true);
    let afterSeq = 0;
    for (;;) {
      const rows = await this.deps.store.auditChainPage(tenantId, afterSeq, AUDIT_PAGE_ROWS);
      for (const row of rows) {
        const broken = checkStoredRecord(verifier, row);
        if (broken) return { ok: false, count: verifier.count, ...broken };
      }
      if (rows.length < AUDIT_PAGE_ROWS) return { ok: true, count: verifier.count };
      afterSeq = rows[rows.length - 1]!.seq;
    }
  }
}

/**
 * Pages of at most AUDIT_PAGE_ROWS records, and never more than ANSWER_SIZE_MAX_BYTES of text in memory: a page that
 * would pass it ends early, and the next one starts right after its last record. Of one actor type, a page reads at
 * most SCAN_ROWS_MAX records of every type and keeps that type's (the HTTP thread is not held while a rare type is
 * looked for among millions of others); the next goes on after the last one read.
 */
async function* exportPages(store: ReadStore, tenantId: string, range: Parameters<ReadStore['auditPage']>[1], type: ActorType | null): AsyncGenerator<string> {
  const rowsRead = type === null ? AUDIT_PAGE_ROWS : SCAN_ROWS_MAX;
  let after: { occurredAt: string; seq: number } | null = null;
  for (;;) {
    const lines: string[] = [];
    let bytes = 0;
    let full = false;
    let read = 0;
    let lastRead: StoredAuditRecord | undefined;
    let lastKept: StoredAuditRecord | undefined;
    for await (const row of store.auditPage(tenantId, range, after, rowsRead)) {
      if (type !== null && row.type !== type) {
        read++;
        lastRead = row;
        continue;
      }
      const line = auditLine(row);
      bytes += Buffer.byteLength(line);
      if (lines.length > 0 && bytes > ANSWER_SIZE_MAX_BYTES) {
        full = true;
        break;
      }
      lines.push(line);
      read++;
      lastRead = lastKept = row;
    }
    // Yielded only once the rows are read: the store runs nothing else while a read is open.
    if (lines.length > 0) yield lines.join('');
    const next = full ? lastKept : lastRead;
    if (!next || (!full && read < rowsRead)) return;
    after = { occurredAt: next.occurredAt, seq: next.seq };
  }
}

export type ChainReport = { ok: true; count: number } | ({ ok: false; count: number } & ChainBreak);

