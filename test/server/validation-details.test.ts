// README, API decisions: "**Errors.** Every error is JSON `{"message", "code"}`, plus `details` (`[{path, message}]`,
// the path dotted like `lines.1.monetaryEntry.amount`, or the header's name) when a field, parameter or header is at
// fault". Shown over HTTP against the real server: a body or a query that
// fails validation is 400 VALIDATION_FAILED, and its `details` name the field at fault by its dotted path from the
// root of the body (`lines.0.monetaryEntry.amount`, array items by index) or by the parameter's name, with a message;
// the first detail is the one the `message` sentence speaks of.
import { beforeAll, describe, expect, it } from 'vitest';
import { fiat, onchain, post, useServerWithAccounts, type Client, type HttpResult } from '../helpers/server.js';
import { expectValidation } from '../helpers/expect.js';

/** 400 VALIDATION_FAILED whose details are a non-empty `[{path, message}]` list naming `path`, and whose message names it too. */
function expectDetail(res: HttpResult, path: string, message?: string | RegExp) {
  expectValidation(res, { detail: { path, ...(message === undefined ? {} : { message }) } });
  expect(Array.isArray(res.body.details), res.text).toBe(true);
  expect(res.body.details.length, res.text).toBeGreaterThan(0);
  for (const d of res.body.details) {
    expect(Object.keys(d).sort(), res.text).toEqual(['message', 'path']);
    expect(d.message.trim().length, res.text).toBeGreaterThan(0);
  }
  // The sentence speaks of the first detail, so a person reading only `message` sees the same field.
  expect(res.body.details[0].path, res.text).toBe(path);
  expect(res.body.message, res.text).toContain(path);
}

describe('validation errors carry details [{path, message}]', () => {
  let c: Client;
  let a: string;
  let b: string;

  const t = useServerWithAccounts({ accounts: { a: { name: 'cash', type: 'ASSET' }, b: { name: 'deposits', type: 'LIABILITY' } } });
  beforeAll(() => {
    ({ client: c, accounts: { a, b } } = t);
  });

  describe('POST /api/v1/transactions body', () => {
    it('an amount with too many places names lines.N.monetaryEntry.amount (the line at fault, not the first)', async () => {
      expectDetail(await post(c, [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.001')]), 'lines.1.monetaryEntry.amount', /decimal places/);
      expectDetail(await post(c, [fiat(a, 'DEBIT', '1.001'), fiat(b, 'CREDIT', '1.001')]), 'lines.0.monetaryEntry.amount');
    });

    it('an amount that is not a number, zero or negative names the amount', async () => {
      for (const amount of ['abc', '0', -1]) {
        expectDetail(await post(c, [fiat(a, 'DEBIT', amount), fiat(b, 'CREDIT', '1.00')]), 'lines.0.monetaryEntry.amount');
      }
    });

    it('an on-chain amount with more places than its token names it too', async () => {
      expectDetail(await post(c, [onchain(a, 'DEBIT', '1.0000001'), onchain(b, 'CREDIT', '1.0000001')]), 'lines.0.monetaryEntry.amount');
    });

    it('a bad currency, a missing rail, a bad entryType, a bad accountId each name their field', async () => {
      expectDetail(await post(c, [fiat(a, 'DEBIT', '1.00', 'XXX'), fiat(b, 'CREDIT', '1.00')]), 'lines.0.monetaryEntry.currency');
      const noRail = fiat(a, 'DEBIT', '1.00');
      delete (noRail.monetaryEntry as Record<string, unknown>).rail;
      expectDetail(await post(c, [fiat(b, 'CREDIT', '1.00'), noRail]), 'lines.1.monetaryEntry.rail');
      expectDetail(await post(c, [{ ...fiat(a, 'DEBIT', '1.00'), entryType: 'SIDEWAYS' }, fiat(b, 'CREDIT', '1.00')]), 'lines.0.entryType');
      expectDetail(await post(c, [fiat('not-a-uuid', 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')]), 'lines.0.accountId', 'must be a UUID');
      expectDetail(await post(c, [fiat(a, 'DEBIT', '1.00'), onchain(b, 'CREDIT', '1', 'USDC', { blockNumber: 1.5 })]), 'lines.1.monetaryEntry.blockNumber');
    });

    it('an unknown field names itself, at any depth', async () => {
      expectDetail(await post(c, [{ ...fiat(a, 'DEBIT', '1.00'), memo: 'x' }, fiat(b, 'CREDIT', '1.00')]), 'lines.0.memo', 'is not a known field');
      expectDetail(await post(c, [fiat(a, 'DEBIT', '1.00', 'USD', { iban: 'x' }), fiat(b, 'CREDIT', '1.00')]), 'lines.0.monetaryEntry.iban', 'is not a known field');
      expectDetail(
        await c.post('/api/v1/transactions', { lines: [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')], note: 'x' }, { 'idempotency-key': `vd-${Date.now()}` }),
        'note',
        'is not a known field',
      );
    });

    it('too few or too many lines name lines; too many metadata entries, or a value that is not a string, name metadata', async () => {
      expectDetail(await post(c, [fiat(a, 'DEBIT', '1.00')]), 'lines', /at least 2/);
      const many = Array.from({ length: 1001 }, (_, i) => fiat(i % 2 ? a : b, i % 2 ? 'DEBIT' : 'CREDIT', '1.00'));
      expectDetail(await post(c, many), 'lines', /at most 1000/);
      const meta51 = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
      expectDetail(await post(c, [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')], { metadata: meta51 }), 'metadata', /at most 50/);
      expectDetail(
        await c.post('/api/v1/transactions', { lines: [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')], metadata: { order: 1001 } }, { 'idempotency-key': `vd-${Date.now()}` }),
        'metadata.order',
      );
    });
  });

  describe('POST /api/v1/accounts body', () => {
    it('a blank name, a currency or a type outside the lists, a missing field, an unknown field: each names its field', async () => {
      const ok = { name: 'x', currency: 'USD', type: 'ASSET' };
      expectDetail(await c.post('/api/v1/accounts', { ...ok, name: '   ' }), 'name', 'must not be blank');
      expectDetail(await c.post('/api/v1/accounts', { ...ok, currency: 'GBP' }), 'currency', /BRL, USD, MXN, EUR/);
      expectDetail(await c.post('/api/v1/accounts', { ...ok, type: 'CASH' }), 'type', /ASSET/);
      expectDetail(await c.post('/api/v1/accounts', { currency: 'USD', type: 'ASSET' }), 'name');
      expectDetail(await c.post('/api/v1/accounts', { ...ok, name: 42 }), 'name');
      expectDetail(await c.post('/api/v1/accounts', { ...ok, colour: 'red' }), 'colour', 'is not a known field');
    });

    it('two bad fields: both are listed', async () => {
      const res = await c.post('/api/v1/accounts', { name: 'x', currency: 'GBP', type: 'CASH' });
      expectValidation(res, { detail: { path: 'currency' } });
      expectValidation(res, { detail: { path: 'type' } });
    });
  });

  describe('other bodies', () => {
    it('POST /api/v1/api-keys: a scope outside the list names its index', async () => {
      expectDetail(await c.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ', 'EVERYTHING'] }), 'scopes.1');
      expectDetail(await c.post('/api/v1/api-keys', { scopes: [] }), 'scopes');
    });

    it('POST /api/v1/settlements: an expectedAmount with too many places names expectedAmount', async () => {
      const res = await c.post(
        '/api/v1/settlements',
        { accountId: a, expectedToken: 'USDC', expectedAmount: '1.0000001', expectedWalletAddress: '0x0000000000000000000000000000000000000001', expectedChainId: 'EVM' },
        { 'idempotency-key': `vd-${Date.now()}` },
      );
      expectDetail(res, 'expectedAmount');
    });
  });

  describe('query parameters', () => {
    it('limit outside 1 to 200, or not a number, names limit (accounts, transactions, entries)', async () => {
      for (const path of ['/api/v1/accounts', '/api/v1/transactions', `/api/v1/accounts/${a}/entries`]) {
        for (const limit of ['0', '201', 'ten']) expectDetail(await c.get(`${path}?limit=${limit}`), 'limit', /1 to 200/);
      }
    });

    it('a malformed cursor names cursor', async () => {
      const res = await c.get('/api/v1/accounts?cursor=not-a-cursor');
      expectValidation(res, { detail: { path: 'cursor' } });
    });

    it('a time that is not ISO 8601 names it (entries from, balance asOf, statement to, audit export from)', async () => {
      expectDetail(await c.get(`/api/v1/accounts/${a}/entries?from=yesterday`), 'from', /ISO 8601/);
      expectDetail(await c.get(`/api/v1/accounts/${a}/balance?asOf=noon`), 'asOf', /ISO 8601/);
      expectDetail(await c.get(`/api/v1/accounts/${a}/statement?from=2020-01-01&to=later`), 'to', /ISO 8601/);
      expectDetail(await c.get('/api/v1/compliance/audit-export?from=soon&to=2100-01-01'), 'from', /ISO 8601/);
    });

    it('a required parameter that is missing names it (statement from, audit export to)', async () => {
      expectDetail(await c.get(`/api/v1/accounts/${a}/statement?to=2020-01-01`), 'from');
      expectDetail(await c.get('/api/v1/compliance/audit-export?from=2020-01-01'), 'to');
    });

    it('a value outside its list names it (settlement status, audit export type)', async () => {
      expectDetail(await c.get('/api/v1/settlements?status=DONE'), 'status', /PENDING/);
      expectDetail(await c.get('/api/v1/compliance/audit-export?from=2020-01-01&to=2021-01-01&type=ROBOT'), 'type', /HUMAN, AGENT, ALL/);
    });

    it('a parameter given twice names it', async () => {
      const res = await c.get('/api/v1/accounts?limit=1&limit=2');
      expectValidation(res, { detail: { path: 'limit' } });
    });

    it('a path id that is not a UUID where the specification lists it (entries, statement) names accountId', async () => {
      expectDetail(await c.get('/api/v1/accounts/xyz/entries'), 'accountId', 'must be a UUID');
      expectDetail(await c.get('/api/v1/accounts/xyz/statement?from=2020-01-01&to=2020-01-02'), 'accountId', 'must be a UUID');
    });
  });

  describe('headers', () => {
    it('a missing or overlong Idempotency-Key is detailed under the header name', async () => {
      const body = { lines: [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')] };
      expectValidation(await c.post('/api/v1/transactions', body), { detail: { path: 'Idempotency-Key', message: 'is required' } });
      expectValidation(await c.post('/api/v1/transactions', body, { 'idempotency-key': 'k'.repeat(256) }), { detail: { path: 'Idempotency-Key' } });
    });
  });
});
