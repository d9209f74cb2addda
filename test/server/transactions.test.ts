// POST /api/v1/transactions, GET /api/v1/transactions/{id}, GET /api/v1/transactions — black-box, per spec and contract.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS, UUID } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';

let seq = 0;
const newKey = () => `tx-test-${process.pid}-${Date.now()}-${seq++}`;

/** Posts a raw body (object or text) under a key. */
function postBody(c: Client, body: unknown, key: string | null = newKey(), raw = false) {
  const headers: Record<string, string> = key === null ? {} : { 'idempotency-key': key };
  return raw
    ? c.request('POST', '/api/v1/transactions', { rawBody: body as string, headers })
    : c.request('POST', '/api/v1/transactions', { body, headers });
}

async function allTransactions(c: Client): Promise<any[]> {
  return (await walkPages(c, '/api/v1/transactions', { limit: 200 })).items;
}

describe('transactions', () => {
  let c: Client;
  let c2: Client;
  let usdA: string; // ASSET USD
  let usdB: string; // LIABILITY USD
  let eurA: string;
  let eurB: string;
  let otherTenantUsd: string;

  const t = useServerWithAccounts({ accounts: { usdA: { name: 'cash', type: 'ASSET' }, usdB: { name: 'deposits', type: 'LIABILITY' }, eurA: { name: 'eur cash', currency: 'EUR', type: 'ASSET' }, eurB: { name: 'eur deposits', currency: 'EUR', type: 'LIABILITY' } } });
  beforeAll(async () => {
    ({ client: c, accounts: { usdA, usdB, eurA, eurB } } = t);
    const other = await createTenant(t.dbPath, 'Other');
    c2 = client(t.url, other.apiKey.rawKey);
    otherTenantUsd = await makeAccount(c2, { name: 'theirs', currency: 'USD', type: 'ASSET' });
  });

  const balanced = () => [fiat(usdA, 'DEBIT', '1.00'), fiat(usdB, 'CREDIT', '1.00')];

  describe('POST: success', () => {
    it('answers 201 {transactionId} with a UUID', async () => {
      const res = await post(c, balanced());
      expect(res.status, res.text).toBe(201);
      expect(Object.keys(res.body)).toEqual(['transactionId']);
      expect(res.body.transactionId).toMatch(UUID);
    });

    it('accepts amounts as JSON number or decimal string', async () => {
      expect((await post(c, [fiat(usdA, 'DEBIT', 10.25), fiat(usdB, 'CREDIT', '10.25')])).status).toBe(201);
      expect((await post(c, [fiat(usdA, 'DEBIT', '7'), fiat(usdB, 'CREDIT', 7)])).status).toBe(201);
      expect((await post(c, [onchain(usdA, 'DEBIT', 0.000001), onchain(usdB, 'CREDIT', '0.000001')])).status).toBe(201);
    });

    it('accepts BRZ with 18 decimals (string and exact JSON number)', async () => {
      expect((await post(c, [onchain(usdA, 'DEBIT', '1.000000000000000001', 'BRZ'), onchain(usdB, 'CREDIT', '1.000000000000000001', 'BRZ')])).status).toBe(201);
      const lines = [onchain(usdA, 'DEBIT', 0, 'BRZ'), onchain(usdB, 'CREDIT', 0, 'BRZ')];
      const raw = JSON.stringify({ lines }).replaceAll('"amount":0', '"amount":2.123456789012345678');
      const res = await postBody(c, raw, newKey(), true);
      expect(res.status, res.text).toBe(201);
    });

    it('balances per token across chains (USDC on EVM against USDC on SOLANA)', async () => {
      const res = await post(c, [onchain(usdA, 'DEBIT', '5', 'USDC', { chainId: 'EVM' }), onchain(usdB, 'CREDIT', '5', 'USDC', { chainId: 'SOLANA' })]);
      expect(res.status, res.text).toBe(201);
    });

    it('accepts fiat and on-chain lines together, every chain, token and rail', async () => {
      const res = await post(c, [
        fiat(usdA, 'DEBIT', '3', 'USD', { rail: 'WIRE', bankReference: 'ref-1' }),
        fiat(usdB, 'CREDIT', '3', 'USD', { rail: 'PIX' }),
        fiat(eurA, 'DEBIT', '2', 'EUR', { rail: 'SEPA' }),
        fiat(eurB, 'CREDIT', '2', 'EUR', { rail: 'SWIFT' }),
        onchain(usdA, 'DEBIT', '1', 'USDT', { chainId: 'TRON' }),
        onchain(usdB, 'CREDIT', '1', 'USDT', { chainId: 'TRON' }),
        onchain(usdA, 'DEBIT', '1', 'PYUSD', { chainId: 'SOLANA' }),
        onchain(usdB, 'CREDIT', '1', 'PYUSD', { chainId: 'EVM' }),
      ]);
      expect(res.status, res.text).toBe(201);
    });
  });

  describe('POST: Idempotency-Key header', () => {
    it('missing → 400', async () => {
      expectValidation(await postBody(c, { lines: balanced() }, null));
    });
    it('empty → 400', async () => {
      expectValidation(await postBody(c, { lines: balanced() }, ''));
    });
    it('256 characters → 400', async () => {
      expectValidation(await postBody(c, { lines: balanced() }, 'k'.repeat(256)));
    });
    it('255 characters → 201', async () => {
      const res = await postBody(c, { lines: balanced() }, `${randomUUID()}`.padEnd(255, 'k'));
      expect(res.status, res.text).toBe(201);
    });
  });

  describe('POST: lines and metadata limits', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => fiat(i % 2 === 0 ? usdA : usdB, i % 2 === 0 ? 'DEBIT' : 'CREDIT', '0.01'));

    it('1 line → 400', async () => {
      expectValidation(await post(c, [fiat(usdA, 'DEBIT', '1')]));
    });
    it('0 lines, missing lines, lines not an array → 400', async () => {
      expectValidation(await postBody(c, { lines: [] }));
      expectValidation(await postBody(c, {}));
      expectValidation(await postBody(c, { lines: 'x' }));
    });
    it('2 lines → 201', async () => {
      expect((await post(c, many(2))).status).toBe(201);
    });
    it('1000 lines → 201 and all lines are kept', async () => {
      const res = await post(c, many(1000));
      expect(res.status, res.text).toBe(201);
      const got = await c.get(`/api/v1/transactions/${res.body.transactionId}`);
      expect(got.status).toBe(200);
      expect(got.body.lines).toHaveLength(1000);
    });
    it('1001 lines (balanced) → 400', async () => {
      // 500 debits and 500 credits of 0.01, the first debit raised to 0.02, plus one credit of 0.01: balanced, 1001 lines
      const lines = [...many(1000), fiat(usdB, 'CREDIT', '0.01')];
      lines[0] = fiat(usdA, 'DEBIT', '0.02');
      expect(lines).toHaveLength(1001);
      expectValidation(await post(c, lines));
    });
    it('metadata with 50 entries → 201 and is returned', async () => {
      const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, `v${i}`]));
      const res = await post(c, balanced(), { metadata });
      expect(res.status, res.text).toBe(201);
      const got = await c.get(`/api/v1/transactions/${res.body.transactionId}`);
      expect(got.body.metadata).toEqual(metadata);
    });
    it('metadata with 51 entries → 400', async () => {
      const metadata = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, `v${i}`]));
      expectValidation(await post(c, balanced(), { metadata }));
    });
    it('metadata with a non-string value → 400', async () => {
      expectValidation(await postBody(c, { lines: balanced(), metadata: { a: 1 } }));
      expectValidation(await postBody(c, { lines: balanced(), metadata: { a: { b: 'c' } } }));
      expectValidation(await postBody(c, { lines: balanced(), metadata: { a: true } }));
      expectValidation(await postBody(c, { lines: balanced(), metadata: { a: null } }));
    });
    it('metadata that is not a map (an array, a string) → 400', async () => {
      expectValidation(await postBody(c, { lines: balanced(), metadata: 'a' }));
      expectValidation(await postBody(c, { lines: balanced(), metadata: ['a'] }));
    });
    it('malformed JSON body → 400', async () => {
      expectValidation(await postBody(c, '{"lines": [', newKey(), true));
      expectValidation(await postBody(c, '[]', newKey(), true));
    });
  });

  describe('POST: line shape validation', () => {
    const fiatLine = () => fiat(usdA, 'DEBIT', '1.00', 'USD', { bankReference: 'r' });
    const onchainLine = () => onchain(usdA, 'DEBIT', '1');
    const fiatCounter = () => fiat(usdB, 'CREDIT', '1.00');
    const onchainCounter = () => onchain(usdB, 'CREDIT', '1');

    function without(line: any, field: string) {
      const copy = structuredClone(line);
      if (field in copy) delete copy[field];
      else delete copy.monetaryEntry[field];
      return copy;
    }
    function withField(line: any, field: string, value: unknown) {
      const copy = structuredClone(line);
      if (field in copy) copy[field] = value;
      else copy.monetaryEntry[field] = value;
      return copy;
    }

    it('the unmodified lines are accepted', async () => {
      expect((await post(c, [fiatLine(), fiatCounter()])).status).toBe(201);
      expect((await post(c, [onchainLine(), onchainCounter()])).status).toBe(201);
    });

    for (const field of ['accountId', 'entryType', 'monetaryEntry', 'type', 'amount', 'currency', 'rail']) {
      it(`FIAT line without ${field} → 400`, async () => {
        expectValidation(await post(c, [without(fiatLine(), field), fiatCounter()]));
      });
    }
    for (const field of ['accountId', 'entryType', 'monetaryEntry', 'type', 'amount', 'token', 'chainId', 'txHash', 'blockNumber', 'walletAddress', 'tokenContract']) {
      it(`ONCHAIN line without ${field} → 400`, async () => {
        expectValidation(await post(c, [without(onchainLine(), field), onchainCounter()]));
      });
    }

    const badEnums: Array<[string, 'fiat' | 'onchain', string, unknown]> = [
      ['currency', 'fiat', 'currency', 'GBP'],
      ['rail', 'fiat', 'rail', 'CARD'],
      ['token', 'onchain', 'token', 'DAI'],
      ['chainId', 'onchain', 'chainId', 'BITCOIN'],
      ['entryType (fiat)', 'fiat', 'entryType', 'DEBITS'],
      ['entryType (onchain)', 'onchain', 'entryType', 'debit'],
      ['monetary type', 'fiat', 'type', 'CASH'],
    ];
    for (const [name, kind, field, value] of badEnums) {
      it(`bad ${name} → 400`, async () => {
        const lines = kind === 'fiat' ? [withField(fiatLine(), field, value), fiatCounter()] : [withField(onchainLine(), field, value), onchainCounter()];
        expectValidation(await post(c, lines));
      });
    }

    it('accountId not a UUID → 400', async () => {
      expectValidation(await post(c, [withField(fiatLine(), 'accountId', 'not-a-uuid'), fiatCounter()]));
    });

    it('blockNumber not an integer → 400', async () => {
      expectValidation(await post(c, [withField(onchainLine(), 'blockNumber', 1.5), onchainCounter()]));
      expectValidation(await post(c, [withField(onchainLine(), 'blockNumber', 'abc'), onchainCounter()]));
    });

    const badAmounts: Array<[string, 'fiat' | 'onchain', string, unknown]> = [
      ['zero string', 'fiat', 'USD', '0'],
      ['zero number', 'fiat', 'USD', 0],
      ['0.00', 'fiat', 'USD', '0.00'],
      ['negative string', 'fiat', 'USD', '-1.00'],
      ['negative number', 'fiat', 'USD', -1],
      ['USD with 3 decimals (string)', 'fiat', 'USD', '1.001'],
      ['USD with 3 decimals (number)', 'fiat', 'USD', 1.001],
      ['USDC with 7 decimals', 'onchain', 'USDC', '1.0000001'],
      ['USDT with 7 decimals', 'onchain', 'USDT', '0.0000001'],
      ['PYUSD with 7 decimals', 'onchain', 'PYUSD', '1.0000001'],
      ['BRZ with 19 decimals', 'onchain', 'BRZ', '1.0000000000000000001'],
      ['not a number', 'fiat', 'USD', 'abc'],
      ['empty string', 'fiat', 'USD', ''],
      ['boolean', 'fiat', 'USD', true],
      ['null', 'fiat', 'USD', null],
    ];
    for (const [name, kind, asset, amount] of badAmounts) {
      it(`amount ${name} → 400`, async () => {
        const lines =
          kind === 'fiat'
            ? [fiat(usdA, 'DEBIT', amount as any, asset), fiat(usdB, 'CREDIT', amount as any, asset)]
            : [onchain(usdA, 'DEBIT', amount as any, asset), onchain(usdB, 'CREDIT', amount as any, asset)];
        expectValidation(await post(c, lines));
      });
    }

    it('BRZ with 19 decimals as a raw JSON number → 400', async () => {
      const lines = [onchain(usdA, 'DEBIT', 0, 'BRZ'), onchain(usdB, 'CREDIT', 0, 'BRZ')];
      const raw = JSON.stringify({ lines }).replaceAll('"amount":0', '"amount":1.0000000000000000001');
      expectValidation(await postBody(c, raw, newKey(), true));
    });
  });

  describe('POST: 422 rules', () => {
    it('debits differ from credits → 422 UNBALANCED', async () => {
      expectError(await post(c, [fiat(usdA, 'DEBIT', '1.00'), fiat(usdB, 'CREDIT', '0.99')]), 422, 'UNBALANCED');
      expectError(await post(c, [fiat(usdA, 'DEBIT', '1.00'), fiat(usdB, 'DEBIT', '1.00')]), 422, 'UNBALANCED');
    });

    it('balanced in USD but unbalanced in EUR → 422 UNBALANCED', async () => {
      const res = await post(c, [
        fiat(usdA, 'DEBIT', '5.00'),
        fiat(usdB, 'CREDIT', '5.00'),
        fiat(eurA, 'DEBIT', '2.00', 'EUR'),
        fiat(eurB, 'CREDIT', '1.00', 'EUR'),
      ]);
      expectError(res, 422, 'UNBALANCED');
    });

    it('cross-currency lines that sum to equal numbers are still unbalanced → 422', async () => {
      expectError(await post(c, [fiat(usdA, 'DEBIT', '1.00'), fiat(eurB, 'CREDIT', '1.00', 'EUR')]), 422, 'UNBALANCED');
    });

    it('tokens balance per token: USDC debit against USDT credit → 422 UNBALANCED', async () => {
      expectError(await post(c, [onchain(usdA, 'DEBIT', '1', 'USDC'), onchain(usdB, 'CREDIT', '1', 'USDT')]), 422, 'UNBALANCED');
    });

    it('unbalanced USDC across chains → 422 UNBALANCED', async () => {
      const res = await post(c, [onchain(usdA, 'DEBIT', '5', 'USDC', { chainId: 'EVM' }), onchain(usdB, 'CREDIT', '4.999999', 'USDC', { chainId: 'SOLANA' })]);
      expectError(res, 422, 'UNBALANCED');
    });

    it("an account of another tenant → 422 ACCOUNT_NOT_FOUND", async () => {
      expectError(await post(c, [fiat(usdA, 'DEBIT', '1.00'), fiat(otherTenantUsd, 'CREDIT', '1.00')]), 422, 'ACCOUNT_NOT_FOUND');
    });

    it('an unknown account → 422 ACCOUNT_NOT_FOUND', async () => {
      expectError(await post(c, [fiat(usdA, 'DEBIT', '1.00'), fiat(randomUUID(), 'CREDIT', '1.00')]), 422, 'ACCOUNT_NOT_FOUND');
    });

    it("a FIAT line whose currency differs from its account's → 422 CURRENCY_MISMATCH", async () => {
      // EUR lines on USD accounts, balanced in EUR
      expectError(await post(c, [fiat(usdA, 'DEBIT', '1.00', 'EUR'), fiat(eurB, 'CREDIT', '1.00', 'EUR')]), 422, 'CURRENCY_MISMATCH');
    });

    it('a failed transaction writes nothing', async () => {
      const before = (await c.get(`/api/v1/accounts/${usdA}/balance`)).text;
      const count = (await allTransactions(c)).length;
      expectError(await post(c, [fiat(usdA, 'DEBIT', '1.00'), fiat(randomUUID(), 'CREDIT', '1.00')]), 422, 'ACCOUNT_NOT_FOUND');
      expectError(await post(c, [fiat(usdA, 'DEBIT', '1.00'), fiat(usdB, 'CREDIT', '2.00')]), 422, 'UNBALANCED');
      const after = await c.get(`/api/v1/accounts/${usdA}/balance`);
      expect(after.body.amount).toBe(JSON.parse(before).amount);
      expect((await allTransactions(c)).length).toBe(count);
    });
  });

  describe('idempotency', () => {
    it('same key and same body → same status, byte-identical body, one transaction', async () => {
      const key = newKey();
      const before = (await allTransactions(c)).length;
      const body = { lines: balanced(), metadata: { order: '42' } };
      const first = await postBody(c, body, key);
      const second = await postBody(c, body, key);
      expect(first.status, first.text).toBe(201);
      expect(second.status).toBe(first.status);
      expect(second.text).toBe(first.text);
      expect((await allTransactions(c)).length).toBe(before + 1);
    });

    it('same key, amounts as "2.50" then as 2.5: the same request (amounts compare by value), so the original 201 again', async () => {
      const key = newKey();
      const before = (await allTransactions(c)).length;
      const first = await postBody(c, { lines: [fiat(usdA, 'DEBIT', '2.50'), fiat(usdB, 'CREDIT', '2.50')] }, key);
      const second = await postBody(c, { lines: [fiat(usdA, 'DEBIT', 2.5), fiat(usdB, 'CREDIT', 2.5)] }, key);
      expect(first.status, first.text).toBe(201);
      expect(second.status, second.text).toBe(201);
      expect(second.text).toBe(first.text);
      expect((await allTransactions(c)).length).toBe(before + 1);
    });

    it('same key and a different body → 422 IDEMPOTENCY_KEY_REUSED, nothing written', async () => {
      const key = newKey();
      const first = await postBody(c, { lines: balanced() }, key);
      expect(first.status).toBe(201);
      const before = (await allTransactions(c)).length;
      const other = await postBody(c, { lines: [fiat(usdA, 'DEBIT', '9.00'), fiat(usdB, 'CREDIT', '9.00')] }, key);
      expectError(other, 422, 'IDEMPOTENCY_KEY_REUSED');
      const otherMeta = await postBody(c, { lines: balanced(), metadata: { x: 'y' } }, key);
      expectError(otherMeta, 422, 'IDEMPOTENCY_KEY_REUSED');
      expect((await allTransactions(c)).length).toBe(before);
      // the original is still replayed
      const again = await postBody(c, { lines: balanced() }, key);
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
    });

    it('a 422 UNBALANCED does not consume the key', async () => {
      const key = newKey();
      expectError(await postBody(c, { lines: [fiat(usdA, 'DEBIT', '1.00'), fiat(usdB, 'CREDIT', '2.00')] }, key), 422, 'UNBALANCED');
      const fixed = await postBody(c, { lines: balanced() }, key);
      expect(fixed.status, fixed.text).toBe(201);
      expect(fixed.body.transactionId).toMatch(UUID);
    });

    it('a 422 unknown account does not consume the key', async () => {
      const key = newKey();
      expectError(await postBody(c, { lines: [fiat(usdA, 'DEBIT', '1.00'), fiat(randomUUID(), 'CREDIT', '1.00')] }, key), 422, 'ACCOUNT_NOT_FOUND');
      const fixed = await postBody(c, { lines: balanced() }, key);
      expect(fixed.status, fixed.text).toBe(201);
    });

    it('a 400 does not consume the key', async () => {
      const key = newKey();
      expectValidation(await postBody(c, { lines: [fiat(usdA, 'DEBIT', '1.001'), fiat(usdB, 'CREDIT', '1.001')] }, key));
      const fixed = await postBody(c, { lines: balanced() }, key);
      expect(fixed.status, fixed.text).toBe(201);
    });

    it('concurrent identical requests with one key create exactly one transaction', async () => {
      const key = newKey();
      const before = (await allTransactions(c)).length;
      const body = { lines: [fiat(usdA, 'DEBIT', '3.33'), fiat(usdB, 'CREDIT', '3.33')] };
      const results = await Promise.all(Array.from({ length: 10 }, () => postBody(c, body, key)));
      const statuses = results.map((r) => r.status);
      // Which of them find the first still in progress is a race; each answer is one of the two documented ones.
      for (const r of results) {
        if (r.status === 201) expect(r.body.transactionId, r.text).toMatch(UUID);
        else expectError(r, 409, 'IDEMPOTENCY_IN_PROGRESS');
      }
      const created = results.filter((r) => r.status === 201);
      expect(created.length, JSON.stringify(statuses)).toBeGreaterThanOrEqual(1);
      const ids = new Set(created.map((r) => r.body.transactionId));
      expect(ids.size).toBe(1);
      expect((await allTransactions(c)).length).toBe(before + 1);
      // a later retry answers the same transaction
      const retry = await postBody(c, body, key);
      expect(retry.status).toBe(201);
      expect(retry.body.transactionId).toBe([...ids][0]);
    });

    it('keys are per tenant: the same key in two tenants makes two transactions', async () => {
      const key = newKey();
      const other2 = await makeAccount(c2, { name: 'theirs 2', currency: 'USD', type: 'LIABILITY' });
      const mine = await postBody(c, { lines: balanced() }, key);
      const theirs = await postBody(c2, { lines: [fiat(otherTenantUsd, 'DEBIT', '1.00'), fiat(other2, 'CREDIT', '1.00')] }, key);
      expect(mine.status, mine.text).toBe(201);
      expect(theirs.status, theirs.text).toBe(201);
      expect(theirs.body.transactionId).not.toBe(mine.body.transactionId);
      expect((await c2.get(`/api/v1/transactions/${theirs.body.transactionId}`)).status).toBe(200);
      expect((await c.get(`/api/v1/transactions/${mine.body.transactionId}`)).status).toBe(200);
    });
  });

  describe('GET /api/v1/transactions/{id}', () => {
    it('answers {transactionId, metadata, lines, createdAt} with lines shaped like journal entries', async () => {
      const res = await post(
        c,
        [
          fiat(usdA, 'DEBIT', '12.34', 'USD', { rail: 'WIRE', bankReference: 'BR-1' }),
          { ...fiat(usdB, 'CREDIT', '12.34'), description: 'deposit' },
          onchain(usdA, 'DEBIT', '1.5', 'USDC', { chainId: 'SOLANA', blockNumber: 77, txHash: '0xfeed' }),
          onchain(usdB, 'CREDIT', '1.5', 'USDC'),
        ],
        { metadata: { invoice: 'INV-9' } },
      );
      expect(res.status, res.text).toBe(201);
      const id = res.body.transactionId;
      const got = await c.get(`/api/v1/transactions/${id}`);
      expect(got.status, got.text).toBe(200);
      expect(got.body.transactionId).toBe(id);
      expect(got.body.metadata).toEqual({ invoice: 'INV-9' });
      expect(got.body.createdAt).toMatch(ISO_MS);
      expect(got.body.lines).toHaveLength(4);
      for (const line of got.body.lines) {
        expect(line.entryId).toMatch(UUID);
        expect(line.transactionId).toBe(id);
        expect(['DEBIT', 'CREDIT']).toContain(line.type);
        expect(line.createdAt).toMatch(ISO_MS);
        expect(typeof line.monetary).toBe('object');
      }
      const [l0, l1, l2, l3] = got.body.lines;
      expect(new Set(got.body.lines.map((l: any) => l.entryId)).size).toBe(4);
      expect(l0.type).toBe('DEBIT');
      expect(l0.monetary).toEqual({ type: 'FIAT', amount: 12.34, currency: 'USD', rail: 'WIRE', bankReference: 'BR-1' });
      expect(l1.type).toBe('CREDIT');
      expect(l1.description).toBe('deposit');
      expect(l1.monetary).toEqual({ type: 'FIAT', amount: 12.34, currency: 'USD', rail: 'ACH', bankReference: null });
      expect(l2.monetary).toEqual({
        type: 'ONCHAIN',
        amount: 1.5,
        token: 'USDC',
        chainId: 'SOLANA',
        txHash: '0xfeed',
        blockNumber: 77,
        walletAddress: '0x0000000000000000000000000000000000000001',
        tokenContract: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
      });
      expect(l3.type).toBe('CREDIT');
      expect(l3.monetary.chainId).toBe('EVM');
    });

    it('metadata defaults to an empty map', async () => {
      const res = await post(c, balanced());
      const got = await c.get(`/api/v1/transactions/${res.body.transactionId}`);
      expect(got.body.metadata).toEqual({});
    });

    it('unknown id → 404', async () => {
      expectError(await c.get(`/api/v1/transactions/${randomUUID()}`), 404, 'NOT_FOUND');
    });

    it("another tenant's transaction → 404", async () => {
      const other2 = await makeAccount(c2, { name: 'theirs 3', currency: 'USD', type: 'LIABILITY' });
      const theirs = await post(c2, [fiat(otherTenantUsd, 'DEBIT', '1.00'), fiat(other2, 'CREDIT', '1.00')]);
      expect(theirs.status).toBe(201);
      expectError(await c.get(`/api/v1/transactions/${theirs.body.transactionId}`), 404, 'NOT_FOUND');
    });
  });

  describe('GET /api/v1/transactions', () => {
    it('answers {items, nextCursor}, newest first, with cursor paging', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await post(c, balanced(), { metadata: { n: String(i) } });
        expect(res.status).toBe(201);
        ids.push(res.body.transactionId);
      }
      const p1 = await c.get('/api/v1/transactions?limit=2');
      expect(p1.status, p1.text).toBe(200);
      expect(Object.keys(p1.body).sort()).toEqual(['items', 'nextCursor']);
      expect(p1.body.items.map((x: any) => x.transactionId)).toEqual([ids[2], ids[1]]);
      expect(p1.body.items[0]).toMatchObject({ transactionId: ids[2], metadata: { n: '2' } });
      expect(p1.body.items[0].lines).toHaveLength(2);
      expect(typeof p1.body.nextCursor).toBe('string');
      const p2 = await c.get(`/api/v1/transactions?limit=2&cursor=${encodeURIComponent(p1.body.nextCursor)}`);
      expect(p2.status, p2.text).toBe(200);
      expect(p2.body.items[0].transactionId).toBe(ids[0]);

      // full walk: each transaction once, newest first, last page has nextCursor null
      const all = await allTransactions(c);
      const allIds = all.map((x) => x.transactionId);
      expect(new Set(allIds).size).toBe(allIds.length);
      expect(allIds.slice(0, 3)).toEqual([ids[2], ids[1], ids[0]]);
      for (let i = 1; i < all.length; i++) expect(all[i - 1].createdAt >= all[i].createdAt).toBe(true);
    });

    it('walks with a small page size and ends with nextCursor null', async () => {
      // Enough of its own for several pages, whatever ran before.
      for (let i = 0; i < 20; i++) expect((await post(c, balanced())).status).toBe(201);
      const all = await allTransactions(c);
      expect(all.length).toBeGreaterThanOrEqual(20);
      const { items, pages } = await walkPages(c, '/api/v1/transactions', { limit: 17, maxPages: 500 });
      expect(items.map((x: any) => x.transactionId)).toEqual(all.map((x) => x.transactionId));
      expect(pages).toBe(Math.ceil(all.length / 17));
    });

    it('does not list other tenants’ transactions', async () => {
      const other2 = await makeAccount(c2, { name: 'theirs 4', currency: 'USD', type: 'LIABILITY' });
      const theirTx = await post(c2, [fiat(otherTenantUsd, 'DEBIT', '1.00'), fiat(other2, 'CREDIT', '1.00')]);
      expect(theirTx.status, theirTx.text).toBe(201);
      const mine = new Set((await allTransactions(c)).map((x) => x.transactionId));
      const theirs = await allTransactions(c2);
      expect(theirs.map((x) => x.transactionId)).toContain(theirTx.body.transactionId);
      for (const x of theirs) expect(mine.has(x.transactionId)).toBe(false);
    });

    it('invalid limit or cursor → 400', async () => {
      expectValidation(await c.get('/api/v1/transactions?limit=0'));
      expectValidation(await c.get('/api/v1/transactions?limit=201'));
      expectValidation(await c.get('/api/v1/transactions?cursor=garbage'));
    });
  });
});
