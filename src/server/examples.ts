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
        movements: [{ transactionId: TRANSACTION, type: 'CREDIT', amount: 125.5, occurredAt: AT }],
        closingBalance: 125.5,
      },
    },
  },
};

/** The example ids, as the quickstart's shell names them. */
export const EXAMPLE_IDS = { CASH, SALES, TRANSACTION } as const;
