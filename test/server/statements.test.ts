// GET /api/v1/accounts/{accountId}/statement — black-box, per spec and contract.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation } from '../helpers/expect.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FAR_PAST = '2000-01-01T00:00:00.000Z';
const FAR_FUTURE = '2999-01-01T00:00:00.000Z';
const plusMs = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

describe('statement', () => {
  let c: Client;
  let c2: Client;
  let s: string; // ASSET USD
  let l: string; // LIABILITY USD
  const tx: Record<'A' | 'B' | 'C' | 'D', { id: string; at: string }> = {} as any;

  const statement = (id: string, params: Record<string, string | undefined>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
    return c.get(`/api/v1/accounts/${id}/statement?${q.toString()}`);
  };

  const t = useServerWithAccounts({ accounts: { s: { name: 'cash', type: 'ASSET' }, l: { name: 'deposits', type: 'LIABILITY' } } });
  beforeAll(async () => {
    ({ client: c, accounts: { s, l } } = t);
    const plan: Array<['A' | 'B' | 'C' | 'D', unknown[]]> = [
      ['A', [{ ...fiat(s, 'DEBIT', '100.00'), description: 'opening deposit' }, fiat(l, 'CREDIT', '100.00')]],
      [
        'B',
        [
          { ...fiat(s, 'DEBIT', '30.00'), description: 'in' },
          { ...fiat(s, 'CREDIT', '10.00'), description: 'out' },
          fiat(l, 'CREDIT', '20.00'),
          onchain(s, 'DEBIT', '5', 'USDC'),
          onchain(l, 'CREDIT', '5', 'USDC'),
        ],
      ],
      ['C', [fiat(s, 'CREDIT', '25.00'), fiat(l, 'DEBIT', '25.00')]],
      ['D', [fiat(s, 'DEBIT', '1.00'), fiat(l, 'CREDIT', '1.00'), onchain(s, 'CREDIT', '1', 'USDT'), onchain(l, 'DEBIT', '1', 'USDT')]],
    ];
    for (const [name, lines] of plan) {
      if (name !== 'A') await sleep(5);
      const res = await post(c, lines);
      expect(res.status, res.text).toBe(201);
      const got = await c.get(`/api/v1/transactions/${res.body.transactionId}`);
      tx[name] = { id: res.body.transactionId, at: got.body.createdAt };
    }
    expect(Date.parse(tx.B.at)).toBeGreaterThan(Date.parse(tx.A.at) + 1);
    expect(Date.parse(tx.C.at)).toBeGreaterThan(Date.parse(tx.B.at) + 1);
    expect(Date.parse(tx.D.at)).toBeGreaterThan(Date.parse(tx.C.at) + 1);
    const other = await createTenant(t.dbPath, 'Other');
    c2 = client(t.url, other.apiKey.rawKey);
  });

  it('has accountId, currency, from, to at top level, opening and closing balances, movements', async () => {
    const res = await statement(s, { from: tx.B.at, to: tx.C.at });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['accountId', 'closingBalance', 'currency', 'from', 'movements', 'openingBalance', 'to']);
    expect(res.body).not.toHaveProperty('period');
    expect(res.body.accountId).toBe(s);
    expect(res.body.currency).toBe('USD');
    expect(Date.parse(res.body.from)).toBe(Date.parse(tx.B.at));
    expect(Date.parse(res.body.to)).toBe(Date.parse(tx.C.at));
    expect(res.body.openingBalance).toBe(100);
    expect(res.body.closingBalance).toBe(95);
  });

  it('movements: one per fiat line, ascending, unsigned, typed, with description when given; no on-chain lines', async () => {
    const res = await statement(s, { from: tx.B.at, to: tx.C.at });
    const m = res.body.movements as any[];
    expect(m).toHaveLength(3);
    expect(m.map((x) => x.transactionId)).toEqual([tx.B.id, tx.B.id, tx.C.id]);
    expect(m.map((x) => x.type)).toEqual(['DEBIT', 'CREDIT', 'CREDIT']);
    expect(m.map((x) => x.amount)).toEqual([30, 10, 25]);
    expect(m[0].description).toBe('in');
    expect(m[1].description).toBe('out');
    if ('description' in m[2]) expect(typeof m[2].description).toBe('string');
    expect(m[0].occurredAt).toBe(tx.B.at);
    expect(m[2].occurredAt).toBe(tx.C.at);
    for (let i = 1; i < m.length; i++) expect(Date.parse(m[i - 1].occurredAt)).toBeLessThanOrEqual(Date.parse(m[i].occurredAt));
    for (const x of m) {
      expect(x.amount).toBeGreaterThan(0);
      for (const k of Object.keys(x)) expect(['transactionId', 'type', 'amount', 'description', 'occurredAt', 'effectiveAt']).toContain(k);
    }
  });

  it('the whole history: opening 0, every fiat line, closing equals the balance', async () => {
    const res = await statement(s, { from: FAR_PAST, to: FAR_FUTURE });
    expect(res.status).toBe(200);
    expect(res.body.openingBalance).toBe(0);
    expect(res.body.movements.map((x: any) => x.transactionId)).toEqual([tx.A.id, tx.B.id, tx.B.id, tx.C.id, tx.D.id]);
    expect(res.body.movements.map((x: any) => x.amount)).toEqual([100, 30, 10, 25, 1]);
    expect(res.body.movements[0].description).toBe('opening deposit');
    expect(res.body.closingBalance).toBe(96);
    expect((await c.get(`/api/v1/accounts/${s}/balance`)).body.amount).toBe(96);
  });

  it('a credit-normal account reports opening and closing on its normal side', async () => {
    const res = await statement(l, { from: tx.B.at, to: tx.C.at });
    expect(res.status).toBe(200);
    expect(res.body.openingBalance).toBe(100);
    expect(res.body.movements.map((x: any) => [x.type, x.amount])).toEqual([
      ['CREDIT', 20],
      ['DEBIT', 25],
    ]);
    expect(res.body.closingBalance).toBe(95);
  });

  it('from == to is allowed and is inclusive at both ends', async () => {
    const res = await statement(s, { from: tx.B.at, to: tx.B.at });
    expect(res.status, res.text).toBe(200);
    expect(res.body.openingBalance).toBe(100);
    expect(res.body.movements.map((x: any) => x.amount)).toEqual([30, 10]);
    expect(res.body.closingBalance).toBe(120);
  });

  it('bounds are inclusive: one millisecond inside drops the boundary transactions', async () => {
    const res = await statement(s, { from: plusMs(tx.B.at, 1), to: plusMs(tx.C.at, -1) });
    expect(res.status).toBe(200);
    expect(res.body.openingBalance).toBe(120);
    expect(res.body.movements).toEqual([]);
    expect(res.body.closingBalance).toBe(120);
  });

  it('a period with no movements: closing equals opening', async () => {
    const res = await statement(s, { from: plusMs(tx.D.at, 1), to: FAR_FUTURE });
    expect(res.body.openingBalance).toBe(96);
    expect(res.body.movements).toEqual([]);
    expect(res.body.closingBalance).toBe(96);
    const before = await statement(s, { from: FAR_PAST, to: plusMs(tx.A.at, -1) });
    expect(before.body.openingBalance).toBe(0);
    expect(before.body.movements).toEqual([]);
    expect(before.body.closingBalance).toBe(0);
  });

  it('an account with only on-chain lines has no movements and zero balances', async () => {
    const w = await makeAccount(c, { currency: 'EUR' });
    const x = await makeAccount(c, { currency: 'EUR' });
    expect((await post(c, [onchain(w, 'DEBIT', '3', 'USDC'), onchain(x, 'CREDIT', '3', 'USDC')])).status).toBe(201);
    const res = await statement(w, { from: FAR_PAST, to: FAR_FUTURE });
    expect(res.status).toBe(200);
    expect(res.body.currency).toBe('EUR');
    expect(res.body.movements).toEqual([]);
    expect(res.body.openingBalance).toBe(0);
    expect(res.body.closingBalance).toBe(0);
  });

  describe('errors', () => {
    /** The spec's 400 with a `message` (the shared check asserts a non-empty one), VALIDATION_FAILED. */
    const expect400WithMessage = (res: { status: number; body: any; text: string; headers: Headers }) => expectValidation(res);

    it('from missing → 400 with message', async () => {
      expect400WithMessage(await statement(s, { to: FAR_FUTURE }));
    });
    it('to missing → 400 with message', async () => {
      expect400WithMessage(await statement(s, { from: FAR_PAST }));
    });
    it('both missing → 400 with message', async () => {
      expect400WithMessage(await statement(s, {}));
    });
    it('from after to → 400 with message', async () => {
      expect400WithMessage(await statement(s, { from: tx.C.at, to: tx.B.at }));
    });
    it('invalid from or to → 400 with message', async () => {
      expect400WithMessage(await statement(s, { from: 'soon', to: FAR_FUTURE }));
      expect400WithMessage(await statement(s, { from: FAR_PAST, to: '2024-13-01T00:00:00Z' }));
    });
    it('accountId not a UUID → 400 with message', async () => {
      expect400WithMessage(await c.get(`/api/v1/accounts/not-a-uuid/statement?from=${FAR_PAST}&to=${FAR_FUTURE}`));
    });
    it('unknown account → 404', async () => {
      expectError(await statement(randomUUID(), { from: FAR_PAST, to: FAR_FUTURE }), 404, 'NOT_FOUND');
    });
    it("another tenant's account → 404", async () => {
      const theirs = await makeAccount(c2);
      expect((await c2.get(`/api/v1/accounts/${theirs}/statement?from=${FAR_PAST}&to=${FAR_FUTURE}`)).status).toBe(200);
      expectError(await statement(theirs, { from: FAR_PAST, to: FAR_FUTURE }), 404, 'NOT_FOUND');
    });
  });
});
