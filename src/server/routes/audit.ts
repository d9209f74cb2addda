// The audit domain over HTTP: the export, NDJSON streamed from the database a page at a time, at the
// specification's /api/v1/compliance path.
import { auditExportQuery } from '../../core/schemas.js';
import { defineRoute } from '../route.js';

export const NDJSON_TYPE = 'application/x-ndjson';

export const complianceRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v1/compliance/audit-export',
    summary: 'Export the audit log of a time window as NDJSON, oldest first (from inclusive, to exclusive)',
    operationId: 'exportAudit',
    scope: 'COMPLIANCE_EXPORT',
    query: auditExportQuery,
    responses: { 200: { description: 'NDJSON, one audit record per line', schema: 'AuditRecord', contentType: 'application/x-ndjson' }, 400: 'from or to missing or invalid, from not before to, invalid type' },
    handle: ({ ledger, principal, query }) => ({
      status: 200,
      stream: ledger.audit.export(principal.tenantId, query),
      contentType: NDJSON_TYPE,
    }),
  }),
];
