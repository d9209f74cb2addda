// Bank statements: import the bank's file into an account, and read statements and their lines.
import { bankStatementImportQuery, bankStatementsQuery, statementLinesQuery } from '../../core/schemas.js';
import { BANK_STATEMENT_BYTES_MAX, BANK_STATEMENT_LINES_MAX } from '../../core/limits.js';
import type { StatementFile } from '../../core/usecases/bankStatements.js';
import { defineRoute } from '../route.js';

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
];
