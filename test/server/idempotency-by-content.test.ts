// README, API decisions: "**Idempotency.** A request's identity is its content: amounts compare by value (`2.5` and
// `"2.50"` are the same request), metadata by its entries." Shown over HTTP against the real server: under one
// Idempotency-Key, a body that differs only in the order of its metadata keys or in how an amount is written is the
// same request (the original 201 again, byte for byte, and nothing new written); a different value is the documented
// 422 IDEMPOTENCY_KEY_REUSED. Settlements: "the Idempotency-Key works as for transactions".
import { beforeAll, describe, expect, it } from 'vitest';
import { fiat, onchain, useServerWithAccounts, type Client, type HttpResult } from '../helpers/server.js';
import { expectError, UUID } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';

let seq = 0;
const newKey = () => `by-content-${process.pid}-${Date.now()}-${seq++}`;

/** POST a body given as text, so that key order and the spelling of numbers are exactly as written here. */
const postText = (c: Client, path: string, text: string, headers: Record<string, string>): Promise<HttpResult> =>
  c.request('POST', path, { rawBody: text, headers });

describe('idempotency compares a request by its content', () => {
  let c: Client;
  let a: string; // ASSET USD
  let b: string; // LIABILITY USD

  const postTx = (key: string, text: string) => postText(c, '/api/v1/transactions', text, { 'idempotency-key': key });
  const count = async () => (await walkPages(c, '/api/v1/transactions', { limit: 200 })).items.length;
  /** A balanced body of two USD lines, with the amounts and the metadata written out as given. */
  const body = (amountJson: string, metadataJson?: string) =>
    `{"lines":[${JSON.stringify(fiat(a, 'DEBIT', 0)).replace('"amount":0', `"amount":${amountJson}`)},` +
    `${JSON.stringify(fiat(b, 'CREDIT', 0)).replace('"amount":0', `"amount":${amountJson}`)}]` +
    `${metadataJson === undefined ? '' : `,"metadata":${metadataJson}`}}`;

  const t = useServerWithAccounts({ accounts: { a: { name: 'cash', type: 'ASSET' }, b: { name: 'deposits', type: 'LIABILITY' } } });
  beforeAll(() => {
    ({ client: c, accounts: { a, b } } = t);
  });

  describe('metadata by its entries', () => {
    it('the same metadata with its keys in another order is the same request: the original 201, same body, one transaction', async () => {
      const key = newKey();
      const before = await count();
      const first = await postTx(key, body('"10.00"', '{"order":"1001","customer":"c-7","channel":"web"}'));
      expect(first.status, first.text).toBe(201);
      expect(first.body.transactionId).toMatch(UUID);
      for (const reordered of ['{"channel":"web","order":"1001","customer":"c-7"}', '{"customer":"c-7","channel":"web","order":"1001"}']) {
        const again = await postTx(key, body('"10.00"', reordered));
        expect(again.status, again.text).toBe(201);
        expect(again.text).toBe(first.text);
      }
      expect(await count()).toBe(before + 1);
      // What was stored is the first request's metadata.
      const stored = await c.get(`/api/v1/transactions/${first.body.transactionId}`);
      expect(stored.status, stored.text).toBe(200);
      expect(stored.body.metadata).toEqual({ order: '1001', customer: 'c-7', channel: 'web' });
    });

    it('absent metadata and an empty map have the same entries (none): the same request', async () => {
      const key = newKey();
      const before = await count();
      const first = await postTx(key, body('"1.00"'));
      expect(first.status, first.text).toBe(201);
      const again = await postTx(key, body('"1.00"', '{}'));
      expect(again.status, again.text).toBe(201);
      expect(again.text).toBe(first.text);
      expect(await count()).toBe(before + 1);
    });

    it('different metadata under the key is another request: 422 IDEMPOTENCY_KEY_REUSED, nothing written, the original still replayed', async () => {
      const key = newKey();
      const original = '{"order":"1001","customer":"c-7"}';
      const first = await postTx(key, body('"10.00"', original));
      expect(first.status, first.text).toBe(201);
      const before = await count();
      const others = [
        '{"customer":"c-7","order":"1002"}', // a value changed (keys also reordered)
        '{"order":"1001","customer":"c-8"}', // the other value changed
        '{"order":"1001","customer":"c-7","extra":"x"}', // an entry more
        '{"order":"1001"}', // an entry fewer
        '{"order":"1001","Customer":"c-7"}', // a key spelled differently, same value
        '{"order":"c-7","customer":"1001"}', // the same values under swapped keys
      ];
      for (const metadata of others) {
        expectError(await postTx(key, body('"10.00"', metadata)), 422, 'IDEMPOTENCY_KEY_REUSED');
      }
      expectError(await postTx(key, body('"10.00"')), 422, 'IDEMPOTENCY_KEY_REUSED'); // no metadata at all
      expect(await count()).toBe(before);
      const again = await postTx(key, body('"10.00"', original));
      expect(again.status, again.text).toBe(201);
      expect(again.text).toBe(first.text);
    });
  });

  describe('amounts by value', () => {
    it('2.5 (a JSON number) then "2.50" (a string), as the README writes them: the same request', async () => {
      const key = newKey();
      const before = await count();
      const first = await postTx(key, body('2.5'));
      expect(first.status, first.text).toBe(201);
      for (const spelling of ['"2.50"', '"2.5"', '2.50']) {
        const again = await postTx(key, body(spelling));
        expect(again.status, `${spelling}: ${again.text}`).toBe(201);
        expect(again.text).toBe(first.text);
      }
      expect(await count()).toBe(before + 1);
    });

    it('an on-chain amount by value too: USDC "1.5" then 1.500000', async () => {
      const key = newKey();
      const lines = (amount: string) =>
        `[${[onchain(a, 'DEBIT', 0), onchain(b, 'CREDIT', 0)].map((l) => JSON.stringify(l).replace('"amount":0', `"amount":${amount}`)).join(',')}]`;
      const first = await postTx(key, `{"lines":${lines('"1.5"')}}`);
      expect(first.status, first.text).toBe(201);
      const again = await postTx(key, `{"lines":${lines('1.500000')}}`);
      expect(again.status, again.text).toBe(201);
      expect(again.text).toBe(first.text);
    });

    it('another value is another request: "2.51" after "2.50" is 422 IDEMPOTENCY_KEY_REUSED', async () => {
      const key = newKey();
      const first = await postTx(key, body('"2.50"'));
      expect(first.status, first.text).toBe(201);
      const before = await count();
      expectError(await postTx(key, body('"2.51"')), 422, 'IDEMPOTENCY_KEY_REUSED');
      expectError(await postTx(key, body('25')), 422, 'IDEMPOTENCY_KEY_REUSED');
      expect(await count()).toBe(before);
    });

    it('both at once: amounts spelled otherwise and metadata reordered is still the same request', async () => {
      const key = newKey();
      const first = await postTx(key, body('"7.10"', '{"a":"1","b":"2"}'));
      expect(first.status, first.text).toBe(201);
      const again = await postTx(key, body('7.1', '{"b":"2","a":"1"}'));
      expect(again.status, again.text).toBe(201);
      expect(again.text).toBe(first.text);
    });
  });

  describe('settlements: "the Idempotency-Key works as for transactions"', () => {
    const wallet = '0x0000000000000000000000000000000000000001';
    const register = (key: string, expectedAmount: string) =>
      c.post('/api/v1/settlements', { accountId: a, expectedToken: 'USDC', expectedAmount, expectedWalletAddress: wallet, expectedChainId: 'EVM' }, { 'idempotency-key': key });

    it('"10.5" after "10.50" is the same request by value: the original 201 again, its amount echoed as first sent', async () => {
      const key = newKey();
      const first = await register(key, '10.50');
      expect(first.status, first.text).toBe(201);
      expect(first.body.expectedAmount).toBe('10.50');
      const again = await register(key, '10.5');
      expect(again.status, again.text).toBe(201);
      expect(again.text).toBe(first.text);
      const listed = await walkPages(c, '/api/v1/settlements', { limit: 200 });
      expect(listed.items.filter((s: any) => s.settlementId === first.body.settlementId)).toHaveLength(1);
    });

    it('another value under the key: 422 IDEMPOTENCY_KEY_REUSED', async () => {
      const key = newKey();
      expect((await register(key, '10.50')).status).toBe(201);
      expectError(await register(key, '10.51'), 422, 'IDEMPOTENCY_KEY_REUSED');
    });
  });
});
