// Examples of the document, taken from the README's quickstart (the same bodies it sends, the answers it prints, with
// ids and times fixed): `test/server/quickstart.test.ts` runs the quickstart and checks that they still agree.
const CASH = '0193a5f0-6c1e-7b3a-9d42-1f5e8c7a2b10';
const SALES = '0193a5f0-6c40-7d15-8e63-2a6f9d8b3c21';
const TRANSACTION = '0193a5f0-7a02-7c48-b1d5-3b7a0e9c4d32';
const AT = '2026-01-15T09:30:00.000Z';

const usd = (accountId: string, entryType: 'DEBIT' | 'CREDIT') => ({
  accountId,
  entryType,
  monetaryEntry: { type: 'FIAT', amount: '125.50', currency: 'USD', rail: 'PIX' },
});

export interface OperationExample {
  request?: unknown;
  response?: { status: number; body: unknown };
}

/** By operationId. */
export const QUICKSTART_EXAMPLES: Record<string, OperationExample> = {
  createAccount: {
    request: { name: 'Cash', currency: 'USD', type: 'ASSET' },
    response: { status: 201, body: { id: CASH, name: 'Cash', description: null, currency: 'USD', type: 'ASSET', normalBalance: 'DEBIT', createdAt: AT } },
  },
  postTransaction: {
    request: { lines: [usd(CASH, 'DEBIT'), usd(SALES, 'CREDIT')], metadata: { order: '1001' } },
    response: { status: 201, body: { transactionId: TRANSACTION } },
  },
  getBalance: {
    response: { status: 200, body: { accountId: CASH, currency: 'USD', amount: 125.5, pending: 0, available: 125.5, normalBalance: 'DEBIT', computedAt: AT, onChainBalances: [] } },
  },
  getStatement: {
    response: {
      status: 200,
      body: {
        accountId: SALES,
        currency: 'USD',
        from: '2000-01-01T00:00:00.000Z',
        to: '2100-01-01T00:00:00.000Z',
        openingBalance: 0,
        movements: [{ transactionId: TRANSACTION, type: 'CREDIT', amount: 125.5, occurredAt: AT, effectiveAt: AT }],
        closingBalance: 125.5,
      },
    },
  },
};

/** The example ids, as the quickstart's shell names them. */
export const EXAMPLE_IDS = { CASH, SALES, TRANSACTION } as const;

const STATEMENT = '0193a5f1-0a11-7e42-9c30-4b8d1e2f3a40';
const LINE = '0193a5f1-0a11-7e42-9c30-4b8d1e2f3a41';
const FEE_LINE = '0193a5f1-0a11-7e42-9c30-4b8d1e2f3a42';
const ENTRY = '0193a5f0-7a02-7c48-b1d5-3b7a0e9c4d33';

const statementExample = {
  statementId: STATEMENT,
  accountId: CASH,
  format: 'CAMT053',
  externalId: 'EXAMPLE-STMT-2026-12-01',
  currency: 'USD',
  from: '2026-12-01T00:00:00.000Z',
  to: '2026-12-01T23:59:59.000Z',
  openingBalance: 0,
  closingBalance: 247.5,
  lineCount: 2,
  importedAt: AT,
  summary: { matched: 1, unmatched: 1, ignored: 0, duplicates: 0, ledgerBalanceAtEnd: 250, difference: -2.5 },
};

const feeLine = {
  lineId: FEE_LINE,
  statementId: STATEMENT,
  index: 1,
  bankLineId: 'BANK-0002',
  bookingDate: '2026-12-01',
  valueDate: '2026-12-01',
  amount: 2.5,
  direction: 'OUT',
  currency: 'USD',
  references: ['BANK-0002'],
  counterparty: { name: null, account: null },
  description: 'Wire fee',
  status: 'IGNORED',
  matchedEntryIds: [],
  matchedBy: null,
  matchRule: null,
  matchedAt: null,
  candidates: [],
  note: 'wire fee, booked with the December fees',
};

/**
 * Bank reconciliation's examples, from the README's section (docs/examples/camt053-statement.xml imported after the
 * 250.00 payment of reference INV-1001, the fee ignored): `test/server/bank-statements.test.ts` runs it.
 */
export const RECONCILIATION_EXAMPLES: Record<string, OperationExample> = {
  importBankStatement: { response: { status: 201, body: statementExample } },
  getBankStatement: { response: { status: 200, body: statementExample } },
  listBankStatements: { response: { status: 200, body: { items: [statementExample], nextCursor: null } } },
  listBankStatementLines: {
    response: {
      status: 200,
      body: {
        items: [
          { ...feeLine, lineId: LINE, index: 0, bankLineId: 'BANK-0001', amount: 250, direction: 'IN', references: ['BANK-0001', 'INV-1001'], counterparty: { name: 'Acme Customer Inc', account: 'US00CUSTOMER000000002' }, description: 'Invoice 1001', status: 'MATCHED', matchedEntryIds: [ENTRY], matchedBy: 'AUTO', matchRule: 'REFERENCE', matchedAt: AT, note: null },
          feeLine,
        ],
        nextCursor: null,
      },
    },
  },
  matchBankStatementLine: { request: { entryIds: [ENTRY], note: 'paid with invoice 1001' } },
  ignoreBankStatementLine: { request: { note: 'wire fee, booked with the December fees' }, response: { status: 200, body: feeLine } },
  setReconciliationSettings: { request: { dateWindowDays: 3 }, response: { status: 200, body: { accountId: CASH, dateWindowDays: 3 } } },
};

/** Every operation's example, by operationId. */
export const OPERATION_EXAMPLES: Record<string, OperationExample> = { ...QUICKSTART_EXAMPLES, ...RECONCILIATION_EXAMPLES };
