// Two-phase holds (issue 19): create, capture (whole or in part), void, expiry; pending and available on the balance;
// limits with holds counted; conflicts; idempotent retries; events and listing.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS, UUID } from '../helpers/expect.js';
import { until } from '../helpers/poll.js';

describe('holds', () => {
  let c: Client;
  let funding: string;

  const hold = (lines: unknown[], extra: Record<string, unknown> = {}, key = randomUUID()) => c.post('/api/v1/holds', { lines, ...extra }, { 'idempotency-key': key });
  const capture = (id: string, body: unknown = {}, headers: Record<string, string> = {}) => c.post(`/api/v1/holds/${id}/capture`, body, headers);
  const voidHold = (id: string, headers: Record<string, string> = {}) => c.request('POST', `/api/v1/holds/${id}/void`, { headers });
  const balance = async (account: string) => {
    const body = (await c.get(`/api/v1/accounts/${account}/balance`)).body;
    return { amount: body.amount as number, pending: body.pending as number, available: body.available as number };
  };
  const funded = async (amount: string) => {
    const wallet = await makeAccount(c, { name: 'wallet' });
    expect((await post(c, [fiat(wallet, 'DEBIT', amount), fiat(funding, 'CREDIT', amount)])).status).toBe(201);
    return wallet;
  };
  /** A hold moving `amount` USD out of `wallet` into a merchant account. */
  const spend = (wallet: string, merchant: string, amount: string) => [fiat(merchant, 'DEBIT', amount), fiat(wallet, 'CREDIT', amount)];

  const t = useServerWithAccounts({ accounts: { funding: 'EQUITY' } });
  beforeAll(() => {
    ({ client: c, accounts: { funding } } = t);
  });

  it('a hold reserves without posting: 201 PENDING, pending and available move, the amount and the entries do not', async () => {
    const wallet = await funded('100.00');
    const merchant = await makeAccount(c, { name: 'merchant' });
    const res = await hold(spend(wallet, merchant, '30.00'), { metadata: { order: 'o-1' } });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'expiresAt', 'holdId', 'lines', 'metadata', 'status']);
    expect(res.body.holdId).toMatch(UUID);
    expect(res.body.status).toBe('PENDING');
    expect(res.body.metadata).toEqual({ order: 'o-1' });
    expect(res.body.createdAt).toMatch(ISO_MS);
    // The default expiry: seven days.
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(7 * 86_400_000);
    expect(res.body.lines[1]).toEqual({ accountId: wallet, entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount: 30, currency: 'USD', rail: 'ACH', bankReference: null } });
    expect(await balance(wallet)).toEqual({ amount: 100, pending: 30, available: 70 });
    expect(await balance(merchant)).toEqual({ amount: 0, pending: 0, available: 0 });
    expect((await c.get(`/api/v1/accounts/${wallet}/entries`)).body.entries).toHaveLength(1);
    expect((await c.get(`/api/v1/holds/${res.body.holdId}`)).body).toEqual(res.body);
  });

  it('capture posts the hold whole under a new transaction linked to it; a second capture or a void is 409', async () => {
    const wallet = await funded('100.00');
    const merchant = await makeAccount(c, { name: 'merchant' });
    const created = (await hold(spend(wallet, merchant, '40.00'))).body;
    const key = randomUUID();
    const captured = await capture(created.holdId, {}, { 'idempotency-key': key });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ holdId: created.holdId, status: 'CAPTURED', capturedAmount: 40 });
    expect(captured.body.transactionId).toMatch(UUID);
    const transaction = (await c.get(`/api/v1/transactions/${captured.body.transactionId}`)).body;
    expect(transaction.metadata).toEqual({ captureOfHoldId: created.holdId });
    expect(await balance(wallet)).toEqual({ amount: 60, pending: 0, available: 60 });
    expect((await balance(merchant)).amount).toBe(40);
    // The same key: the first answer again. Without one, or a void: 409, the hold unchanged.
    expect((await capture(created.holdId, {}, { 'idempotency-key': key })).body).toEqual(captured.body);
    expectError(await capture(created.holdId), 409, 'CONFLICT');
    expectError(await voidHold(created.holdId), 409, 'CONFLICT');
    expect((await c.get(`/api/v1/holds/${created.holdId}`)).body).toEqual(captured.body);
  });

  it('a part of a one-debit one-credit hold is captured and the rest released; more than held is 422', async () => {
    const wallet = await funded('100.00');
    const merchant = await makeAccount(c, { name: 'merchant' });
    const created = (await hold(spend(wallet, merchant, '50.00'))).body;
    expectError(await capture(created.holdId, { amount: '50.01' }), 422, 'HOLD_AMOUNT_EXCEEDED');
    expectValidation(await capture(created.holdId, { amount: '1.001' }), { detail: { path: 'amount' } });
    expect((await c.get(`/api/v1/holds/${created.holdId}`)).body.status).toBe('PENDING');
    const captured = await capture(created.holdId, { amount: '20.00' });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body.capturedAmount).toBe(20);
    expect(await balance(wallet)).toEqual({ amount: 80, pending: 0, available: 80 });
    expect((await balance(merchant)).amount).toBe(20);
  });

  it('a part is captured exactly at 18 decimals (BRZ), and the rest released to the last unit', async () => {
    const wallet = await makeAccount(c, { name: 'brz wallet' });
    const merchant = await makeAccount(c, { name: 'brz merchant' });
    expect((await post(c, [onchain(wallet, 'DEBIT', '5.000000000000000001', 'BRZ'), onchain(funding, 'CREDIT', '5.000000000000000001', 'BRZ')])).status).toBe(201);
    const created = await hold([onchain(merchant, 'DEBIT', '1.000000000000000001', 'BRZ'), onchain(wallet, 'CREDIT', '1.000000000000000001', 'BRZ')]);
    expect(created.status, created.text).toBe(201);
    const held = (await c.get(`/api/v1/accounts/${wallet}/balance`)).text;
    expect(held).toContain('{"token":"BRZ","amount":5.000000000000000001,"pending":1.000000000000000001,"available":4}');
    const captured = await capture(created.body.holdId, { amount: '0.333333333333333333' });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.text).toContain('"capturedAmount":0.333333333333333333');
    const after = (await c.get(`/api/v1/accounts/${wallet}/balance`)).text;
    expect(after).toContain('{"token":"BRZ","amount":4.666666666666666668,"pending":0,"available":4.666666666666666668}');
    expect((await c.get(`/api/v1/accounts/${merchant}/balance`)).text).toContain('{"token":"BRZ","amount":0.333333333333333333,');
  });

  describe('the capture amount is a JSON number or a decimal string, as every amount (issue 29)', () => {
    const captureText = (id: string, text: string, headers: Record<string, string> = {}) => c.request('POST', `/api/v1/holds/${id}/capture`, { rawBody: text, headers });
    /** A hold's capture as the test compares it: what it says and what it left, without its ids and times. */
    const outcome = async (wallet: string, merchant: string, res: { status: number; body: any; text: string }) => {
      expect(res.status, res.text).toBe(200);
      const { holdId: _h, transactionId: _t, createdAt: _c, decidedAt: _d, expiresAt: _e, lines, ...rest } = res.body;
      const stripped = (lines as any[]).map((l) => ({ ...l, accountId: l.accountId === wallet ? 'wallet' : l.accountId === merchant ? 'merchant' : l.accountId }));
      const posted = (await c.get(`/api/v1/transactions/${res.body.transactionId}`)).body;
      return { ...rest, lines: stripped, posted: (posted.lines as any[]).map((l) => [l.type, l.monetary.amount]), wallet: await balance(wallet), merchant: await balance(merchant) };
    };

    it('20.5 as a number and "20.50" as a string capture the same', async () => {
      const results = [];
      for (const text of ['{"amount":20.5}', '{"amount":"20.50"}', '{"amount":2.05e1}']) {
        const wallet = await funded('100.00');
        const merchant = await makeAccount(c, { name: 'merchant' });
        const created = (await hold(spend(wallet, merchant, '50.00'))).body;
        results.push(await outcome(wallet, merchant, await captureText(created.holdId, text)));
      }
      expect(results[0]).toMatchObject({ status: 'CAPTURED', capturedAmount: 20.5, posted: [['DEBIT', 20.5], ['CREDIT', 20.5]] });
      expect(results[0].wallet).toEqual({ amount: 79.5, pending: 0, available: 79.5 });
      expect(results[1]).toEqual(results[0]);
      expect(results[2]).toEqual(results[0]);
    });

    it('a number keeps every digit: 18 places of BRZ, as written', async () => {
      const wallet = await makeAccount(c, { name: 'brz wallet (number)' });
      const merchant = await makeAccount(c, { name: 'brz merchant (number)' });
      expect((await post(c, [onchain(wallet, 'DEBIT', '5', 'BRZ'), onchain(funding, 'CREDIT', '5', 'BRZ')])).status).toBe(201);
      const created = await hold([onchain(merchant, 'DEBIT', '1.000000000000000001', 'BRZ'), onchain(wallet, 'CREDIT', '1.000000000000000001', 'BRZ')]);
      const captured = await captureText(created.body.holdId, '{"amount":0.333333333333333333}');
      expect(captured.status, captured.text).toBe(200);
      expect(captured.text).toContain('"capturedAmount":0.333333333333333333');
      expect((await c.get(`/api/v1/accounts/${merchant}/balance`)).text).toContain('{"token":"BRZ","amount":0.333333333333333333,');
    });

    it('a number is held to the rules of a string: within the asset\'s places, above zero, a number; the hold unchanged', async () => {
      const wallet = await funded('100.00');
      const merchant = await makeAccount(c, { name: 'merchant' });
      const created = (await hold(spend(wallet, merchant, '50.00'))).body;
      const refusals: Array<[string, RegExp]> = [
        ['{"amount":1.001}', /more than 2 decimal places for USD/],
        ['{"amount":"1.001"}', /more than 2 decimal places for USD/],
        ['{"amount":0}', /greater than zero/],
        ['{"amount":-5}', /greater than zero/],
        ['{"amount":"-5"}', /./],
        ['{"amount":0.0000000000000000001}', /more than 18 decimal places, more than any asset has/],
        ['{"amount":1e40}', /must be below 10\^/],
        ['{"amount":"twenty"}', /decimal number/],
        ['{"amount":" 20"}', /surrounding spaces/],
        ['{"amount":true}', /number or a decimal string/],
        ['{"amount":null}', /./],
        ['{"amount":[20]}', /./],
      ];
      for (const [text, message] of refusals) {
        expectValidation({ ...(await captureText(created.holdId, text)), text }, { detail: { path: 'amount', message } });
      }
      expectError(await captureText(created.holdId, '{"amount":50.01}'), 422, 'HOLD_AMOUNT_EXCEEDED');
      expect(await balance(wallet)).toEqual({ amount: 100, pending: 50, available: 50 });
      expect((await c.get(`/api/v1/holds/${created.holdId}`)).body.status).toBe('PENDING');
    });

    it('under one Idempotency-Key, 20 and "20.00" are the same request; 21 is another (422)', async () => {
      const wallet = await funded('100.00');
      const merchant = await makeAccount(c, { name: 'merchant' });
      const created = (await hold(spend(wallet, merchant, '50.00'))).body;
      const key = { 'idempotency-key': randomUUID() };
      const first = await captureText(created.holdId, '{"amount":20}', key);
      expect(first.status, first.text).toBe(200);
      const again = await captureText(created.holdId, '{"amount":"20.00"}', key);
      expect(again.status, again.text).toBe(200);
      expect(again.text).toBe(first.text);
      expectError(await captureText(created.holdId, '{"amount":21}', key), 422, 'IDEMPOTENCY_KEY_REUSED');
      expect(await balance(wallet)).toEqual({ amount: 80, pending: 0, available: 80 });
    });
  });

  it("a capture's on-chain lines settle what a settlement expects, as a posting's do", async () => {
    const custody = await makeAccount(c, { name: 'custody' });
    const clearing = await makeAccount(c, { name: 'clearing', type: 'LIABILITY' });
    const wallet = '0x0000000000000000000000000000000000000001';
    const expected = await c.post(
      '/api/v1/settlements',
      { accountId: custody, expectedToken: 'USDC', expectedAmount: '1.5', expectedWalletAddress: wallet, expectedChainId: 'EVM' },
      { 'idempotency-key': randomUUID() },
    );
    expect(expected.status, expected.text).toBe(201);
    const txHash = `0x${randomUUID().replace(/-/g, '')}`;
    const created = await hold([onchain(custody, 'DEBIT', '1.5', 'USDC', { txHash }), onchain(clearing, 'CREDIT', '1.5', 'USDC', { txHash })]);
    expect(created.status, created.text).toBe(201);
    expect((await c.get(`/api/v1/settlements/${expected.body.settlementId}`)).body.status).toBe('PENDING');
    const captured = await capture(created.body.holdId);
    expect(captured.status, captured.text).toBe(200);
    const settled = (await c.get(`/api/v1/settlements/${expected.body.settlementId}`)).body;
    expect(settled.status).toBe('SETTLED');
    expect(settled.matchedTransactionId).toBe(captured.body.transactionId);
  });

  it('void releases the hold; a second void or a capture is 409', async () => {
    const wallet = await funded('10.00');
    const merchant = await makeAccount(c, { name: 'merchant' });
    const created = (await hold(spend(wallet, merchant, '10.00'))).body;
    const voided = await voidHold(created.holdId);
    expect(voided.status, voided.text).toBe(200);
    expect(voided.body).toEqual({ ...created, status: 'VOIDED' });
    expect(await balance(wallet)).toEqual({ amount: 10, pending: 0, available: 10 });
    expectError(await voidHold(created.holdId), 409, 'CONFLICT');
    expectError(await capture(created.holdId), 409, 'CONFLICT');
    expectError(await voidHold(randomUUID()), 404, 'NOT_FOUND');
    // A void under an Idempotency-Key answers its retry as the first time.
    const other = (await hold(spend(wallet, merchant, '1.00'))).body;
    const key = { 'idempotency-key': randomUUID() };
    const first = await voidHold(other.holdId, key);
    expect(first.status, first.text).toBe(200);
    const retried = await voidHold(other.holdId, key);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual(first.body);
  });

  it('limits count open holds: what is held cannot be spent twice', async () => {
    const wallet = await funded('100.00');
    const merchant = await makeAccount(c, { name: 'merchant' });
    expect((await c.request('PUT', `/api/v1/accounts/${wallet}/limits`, { body: { limits: [{ asset: 'USD', min: '0' }] } })).status).toBe(200);
    expect((await hold(spend(wallet, merchant, '80.00'))).status).toBe(201);
    const posting = await post(c, spend(wallet, merchant, '30.00'));
    expectError(posting, 422, 'BALANCE_LIMIT_EXCEEDED');
    expect(posting.body).toMatchObject({ accountId: wallet, limit: 'min', balance: '-10' });
    expectError(await hold(spend(wallet, merchant, '30.00')), 422, 'BALANCE_LIMIT_EXCEEDED');
    expect((await post(c, spend(wallet, merchant, '20.00'))).status).toBe(201);
    expect(await balance(wallet)).toEqual({ amount: 80, pending: 80, available: 0 });
  });

  it('64 racing holds and debits never take an account past its min', async () => {
    const wallet = await funded('100.00');
    const merchant = await makeAccount(c, { name: 'merchant' });
    expect((await c.request('PUT', `/api/v1/accounts/${wallet}/limits`, { body: { limits: [{ asset: 'USD', min: '0' }] } })).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 64 }, (_, i) => (i % 2 ? hold(spend(wallet, merchant, '10.00')) : post(c, spend(wallet, merchant, '10.00')))));
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 422)).toHaveLength(54);
    const after = await balance(wallet);
    expect(after.available).toBe(0);
    expect(after.amount - after.pending).toBeGreaterThanOrEqual(0);
  });

  it('lists holds newest first by status and account; writes events; refuses bad input', async () => {
    const wallet = await funded('10.00');
    const merchant = await makeAccount(c, { name: 'merchant' });
    const first = (await hold(spend(wallet, merchant, '1.00'))).body;
    const second = (await hold(spend(wallet, merchant, '2.00'))).body;
    await voidHold(first.holdId);
    const mine = await c.get(`/api/v1/holds?accountId=${wallet}`);
    expect(mine.body.items.map((h: any) => h.holdId)).toEqual([second.holdId, first.holdId]);
    expect((await c.get(`/api/v1/holds?accountId=${wallet}&status=PENDING`)).body.items.map((h: any) => h.holdId)).toEqual([second.holdId]);
    expect((await c.get('/api/v1/holds?status=VOIDED')).body.items.map((h: any) => h.holdId)).toContain(first.holdId);
    const events = (await c.get('/api/v1/events?type=hold.created,hold.voided&limit=200')).body.items as any[];
    expect(events.filter((e) => e.data.holdId === first.holdId).map((e) => e.type)).toEqual(['hold.created', 'hold.voided']);
    expectValidation(await c.get('/api/v1/holds?status=OPEN'), { detail: { path: 'status' } });
    expectValidation(await hold(spend(wallet, merchant, '1.00'), { expiresAt: '2000-01-01T00:00:00Z' }), { detail: { path: 'expiresAt' } });
    expectError(await hold([fiat(merchant, 'DEBIT', '1.00'), fiat(wallet, 'CREDIT', '2.00')]), 422, 'UNBALANCED');
    expectError(await c.get(`/api/v1/holds/${randomUUID()}`), 404, 'NOT_FOUND');
  });

  it("an agent key's hold is judged by the policy rules: a forbidden pair or one above the approval threshold is 422 POLICY_VIOLATION", async () => {
    const wallet = await funded('100.00');
    const merchant = await makeAccount(c, { name: 'merchant' });
    const made = await c.post('/api/v1/api-keys', { scopes: ['TRANSACTIONS_WRITE', 'AGENTS_EXECUTE'] });
    const agent = client(t.url, made.body.rawKey);
    const agentHold = (amount: string) => agent.post('/api/v1/holds', { lines: spend(wallet, merchant, amount) }, { 'idempotency-key': randomUUID(), 'x-agent-session-id': 's-1' });
    const approval = await c.post('/api/v1/admin/policy-rules', { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '50' });
    expect(approval.status, approval.text).toBe(201);
    const above = await agentHold('60.00');
    expectError(above, 422, 'POLICY_VIOLATION');
    expect(above.body.ruleId).toBe(approval.body.id);
    expect((await agentHold('40.00')).status).toBe(201);
    const pair = await c.post('/api/v1/admin/policy-rules', { type: 'FORBIDDEN_ACCOUNT_PAIR', debitAccountId: merchant, creditAccountId: wallet });
    expect(pair.status, pair.text).toBe(201);
    expectError(await agentHold('1.00'), 422, 'POLICY_VIOLATION');
    // A person's key is not judged by them.
    expect((await hold(spend(wallet, merchant, '1.00'))).status).toBe(201);
    expect((await c.request('DELETE', `/api/v1/admin/policy-rules/${pair.body.id}`)).status).toBe(204);
    expect((await c.request('DELETE', `/api/v1/admin/policy-rules/${approval.body.id}`)).status).toBe(204);
    const audit = await c.get('/api/v1/agent/audit?limit=20');
    expect(audit.body.items.map((r: any) => r.action)).toEqual(expect.arrayContaining(['POLICY_VIOLATION', 'CREATE_HOLD']));
  });

  it('a hold past its expiry is released by the sweeper (EXPIRED, hold.expired); a capture then is 409 HOLD_EXPIRED', async () => {
    const wallet = await funded('10.00');
    const merchant = await makeAccount(c, { name: 'merchant' });
    const created = (await hold(spend(wallet, merchant, '5.00'), { expiresAt: new Date(Date.now() + 1500).toISOString() })).body;
    expect((await balance(wallet)).pending).toBe(5);
    await until('the hold expired', async () => (await c.get(`/api/v1/holds/${created.holdId}`)).body.status === 'EXPIRED', 10_000);
    expect(await balance(wallet)).toEqual({ amount: 10, pending: 0, available: 10 });
    const events = (await c.get('/api/v1/events?type=hold.expired&limit=200')).body.items as any[];
    expect(events.map((e) => e.data.holdId)).toContain(created.holdId);
    expectError(await capture(created.holdId), 409, 'HOLD_EXPIRED');
  });
});
