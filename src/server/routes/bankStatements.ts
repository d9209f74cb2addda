// Bank statements: import the bank's file into an account, and read statements and their lines.
import { bankStatementImportQuery, bankStatementsQuery, ignoreLineBody, matchLineBody, reconciliationSettingsBody, statementLinesQuery, unmatchLineBody, unreconciledEntriesQuery } from '../../core/schemas.js';
import { BANK_STATEMENT_BYTES_MAX, BANK_STATEMENT_LINES_MAX } from '../../core/limits.js';
import type { StatementFile } from '../../core/usecases/bankStatements.js';
import { defineRoute, IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf } from '../route.js';

const STATEMENT_TYPES = { 'application/xml': 'CAMT053', 'text/xml': 'CAMT053', 'text/csv': 'CSV' };

export const bankStatementRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v1/accounts/:accountId/bank-statements',
    summary: 'Import a bank statement (ISO 20022 camt.053 or CSV) into an ASSET account, and match its lines to the books',
    operationId: 'importBankStatement',
    scope: 'RECONCILIATION_WRITE',
    query: bankStatementImportQuery,
    fileBody: {
      types: STATEMENT_TYPES,
      maxBytes: BANK_STATEMENT_BYTES_MAX,
      description: `The bank's file as it sent it: camt.053.001.02 to .13 (application/xml, text/xml) or CSV (text/csv); at most ${BANK_STATEMENT_BYTES_MAX} bytes and ${BANK_STATEMENT_LINES_MAX} booked lines`,
    },
    responses: {
      200: { description: 'The same statement, imported before: as it is now', schema: 'BankStatement' },
      201: { description: 'The statement, with its lines matched automatically', schema: 'BankStatement' },
      400: 'A malformed file (the line and element named), a DTD or entity, a bad amount or date, or several statements without ?statement=',
      404: 'No such account for the tenant',
      409: 'The same statement id with other content (STATEMENT_CONFLICT), or an import of it still being written',
      413: 'Larger than the file or line limit',
      422: 'Not an ASSET account, or another currency',
    },
    handle: async ({ ledger, principal, actor, params, query, body }) => {
      const file = body as unknown as { kind: StatementFile['format']; bytes: Buffer };
      const stored = await ledger.bankStatements.import(principal.tenantId, actor, params.accountId!, { format: file.kind, bytes: file.bytes }, query);
      return { status: stored.status, raw: stored.body };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/bank-statements',
    summary: 'List imported bank statements, newest import first',
    operationId: 'listBankStatements',
    scope: 'RECONCILIATION_READ',
    query: bankStatementsQuery,
    responses: { 200: { description: 'A page of statements', schema: 'BankStatementsPage' }, 400: 'Invalid accountId, date range, limit or cursor' },
    handle: async ({ ledger, principal, query }) => ({ status: 200, body: await ledger.bankStatements.list(principal.tenantId, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/bank-statements/:statementId',
    summary: 'Get a bank statement with its summary',
    operationId: 'getBankStatement',
    scope: 'RECONCILIATION_READ',
    responses: { 200: { description: 'The statement', schema: 'BankStatement' }, 404: 'Not found for the tenant' },
    handle: async ({ ledger, principal, params }) => ({ status: 200, body: await ledger.bankStatements.get(principal.tenantId, params.statementId!) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/bank-statements/:statementId/lines',
    summary: "A bank statement's lines in the file's order",
    operationId: 'listBankStatementLines',
    scope: 'RECONCILIATION_READ',
    query: statementLinesQuery,
    responses: { 200: { description: 'A page of lines', schema: 'BankStatementLinesPage' }, 400: 'Invalid status, limit or cursor', 404: 'Not found for the tenant' },
    handle: async ({ ledger, principal, params, query }) => ({ status: 200, body: await ledger.bankStatements.lines(principal.tenantId, params.statementId!, query) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/bank-statements/:statementId/reconcile',
    summary: "Match what is still UNMATCHED on a statement, by the rules, against the books as they are now",
    operationId: 'reconcileBankStatement',
    scope: 'RECONCILIATION_WRITE',
    responses: { 200: { description: 'The statement with its summary', schema: 'BankStatement' }, 404: 'Not found for the tenant' },
    handle: async ({ ledger, principal, actor, params }) => ({ status: 200, raw: await ledger.bankStatements.reconcile(principal.tenantId, actor, params.statementId!) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/bank-statements/:statementId',
    summary: 'Remove a statement imported by mistake, with its lines; their entries are free again',
    operationId: 'deleteBankStatement',
    scope: 'RECONCILIATION_WRITE',
    headers: { 'Idempotency-Key': IDEMPOTENCY_KEY_HEADER },
    responses: {
      200: { description: 'The statement as it was', schema: 'BankStatement' },
      400: 'Missing or invalid Idempotency-Key',
      404: 'Not found for the tenant',
      409: 'A line of it is matched by hand (unmatch it first), or a request with the same key is in progress',
    },
    handle: async ({ ledger, principal, actor, params, header }) => {
      const stored = await ledger.bankStatements.delete(principal.tenantId, actor, idempotencyKeyOf(header), params.statementId!);
      return { status: stored.status, raw: stored.body };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/bank-statement-lines/:lineId/match',
    summary: 'Match an UNMATCHED line by hand to entries that add up to its amount',
    operationId: 'matchBankStatementLine',
    scope: 'RECONCILIATION_WRITE',
    body: matchLineBody,
    headers: { 'Idempotency-Key': IDEMPOTENCY_KEY_HEADER },
    responses: {
      200: { description: 'The line, MATCHED by MANUAL', schema: 'BankStatementLine' },
      400: 'Missing or invalid Idempotency-Key, or a malformed body',
      404: 'Not found for the tenant',
      409: 'The line is not UNMATCHED, or a request with the same key is in progress',
      422: 'MATCH_REFUSED: an entry not on the line\'s account, side or currency, already matched, or a total that differs; or the key reused with another body',
    },
    handle: async ({ ledger, principal, actor, params, body, header }) => {
      const stored = await ledger.bankStatements.match(principal.tenantId, actor, idempotencyKeyOf(header), params.lineId!, body);
      return { status: stored.status, raw: stored.body };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/bank-statement-lines/:lineId/unmatch',
    summary: 'Set a MATCHED line back to UNMATCHED; its entries are free again',
    operationId: 'unmatchBankStatementLine',
    scope: 'RECONCILIATION_WRITE',
    body: unmatchLineBody,
    bodyOptional: true,
    headers: { 'Idempotency-Key': IDEMPOTENCY_KEY_HEADER },
    responses: {
      200: { description: 'The line, UNMATCHED', schema: 'BankStatementLine' },
      400: 'Missing or invalid Idempotency-Key, or a malformed body',
      404: 'Not found for the tenant',
      409: 'The line is not MATCHED, or a request with the same key is in progress',
      422: 'The key reused with another body',
    },
    handle: async ({ ledger, principal, actor, params, body, header }) => {
      const stored = await ledger.bankStatements.unmatch(principal.tenantId, actor, idempotencyKeyOf(header), params.lineId!, body.note ?? null);
      return { status: stored.status, raw: stored.body };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/bank-statement-lines/:lineId/ignore',
    summary: 'Set a line aside with a note (a bank fee to book later, a line that belongs elsewhere)',
    operationId: 'ignoreBankStatementLine',
    scope: 'RECONCILIATION_WRITE',
    body: ignoreLineBody,
    headers: { 'Idempotency-Key': IDEMPOTENCY_KEY_HEADER },
    responses: {
      200: { description: 'The line, IGNORED', schema: 'BankStatementLine' },
      400: 'Missing or invalid Idempotency-Key, or a missing or invalid note',
      404: 'Not found for the tenant',
      409: 'The line is MATCHED, or a request with the same key is in progress',
      422: 'The key reused with another body',
    },
    handle: async ({ ledger, principal, actor, params, body, header }) => {
      const stored = await ledger.bankStatements.ignore(principal.tenantId, actor, idempotencyKeyOf(header), params.lineId!, body.note);
      return { status: stored.status, raw: stored.body };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/accounts/:accountId/reconciliation-settings',
    summary: "An account's matching rules: the AMOUNT_DATE window in days",
    operationId: 'getReconciliationSettings',
    scope: 'RECONCILIATION_READ',
    responses: { 200: { description: 'The settings', schema: 'ReconciliationSettings' }, 404: 'No such account for the tenant' },
    handle: async ({ ledger, principal, params }) => ({ status: 200, body: await ledger.bankStatements.settings(principal.tenantId, params.accountId!) }),
  }),
  defineRoute({
    method: 'PUT',
    path: '/api/v1/accounts/:accountId/reconciliation-settings',
    summary: "Set an account's matching rules",
    operationId: 'setReconciliationSettings',
    scope: 'RECONCILIATION_WRITE',
    body: reconciliationSettingsBody,
    responses: { 200: { description: 'The settings', schema: 'ReconciliationSettings' }, 400: 'dateWindowDays not a whole number from 0 to 31', 404: 'No such account for the tenant' },
    handle: async ({ ledger, principal, actor, params, body }) => ({
      status: 200,
      body: await ledger.bankStatements.setSettings(principal.tenantId, actor, params.accountId!, body.dateWindowDays),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/accounts/:accountId/unreconciled-entries',
    summary: "The account's entries in its currency that no statement line matched, oldest first: money the books have and the bank never showed",
    operationId: 'listUnreconciledEntries',
    scope: 'RECONCILIATION_READ',
    query: unreconciledEntriesQuery,
    responses: { 200: { description: 'A page of entries', schema: 'UnreconciledEntriesPage' }, 400: 'Invalid date range, limit or cursor', 404: 'No such account for the tenant' },
    handle: async ({ ledger, principal, params, query }) => ({ status: 200, body: await ledger.bankStatements.unreconciled(principal.tenantId, params.accountId!, query) }),
  }),
];
