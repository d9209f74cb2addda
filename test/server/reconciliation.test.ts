// POST /api/v1/reconciliation/batch and GET /api/v1/reconciliation/results — black-box, per spec, contract and the issue 3 decisions.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS, UUID } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';
const WALLET = '0x0000000000000000000000000000000000000001';
const OTHER_WALLET = '0x0000000000000000000000000000000000000002';
const RESULT_KEYS = ['outcome', 'reconciledAt', 'settlementId', 'source', 'transactionId'];

let hashSeq = 0;
const newTxHash = () => `0x${(++hashSeq).toString(16).padStart(64, 'f')}`;
let seq = 0;
const newKey = () => `rec-test-${process.pid}-${Date.now()}-${seq++}`;

const batch = (c: Client, transactionIds: unknown) => c.post('/api/v1/reconciliation/batch', { transactionIds });

async function batchOk(c: Client, transactionIds: string[]): Promise<Array<{ transactionId: string; outcome: string }>> {
  const res = await batch(c, transactionIds);
  expect(res.status, res.text).toBe(200);
  expect(Array.isArray(res.body), res.text).toBe(true);
  return res.body;
}

const expectation = (accountId: string, amount: string, over: Record<string, unknown> = {}) => ({
  accountId,
  expectedToken: 'USDC',
  expectedAmount: amount,
  expectedWalletAddress: WALLET,
  expectedChainId: 'EVM',
  ...over,
});

async function register(c: Client, accountId: string, amount: string, over: Record<string, unknown> = {}): Promise<any> {
  const res = await c.post('/api/v1/settlements', expectation(accountId, amount, over), { 'idempotency-key': newKey() });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function getSettlement(c: Client, id: string): Promise<any> {
  const res = await c.get(`/api/v1/settlements/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** An ONCHAIN DEBIT on `recv` balanced by an ONCHAIN CREDIT on `counter`. */
function transferLines(recv: string, counter: string, amount: string, extra: Record<string, unknown> = {}) {
  const fields = { chainId: 'EVM', walletAddress: WALLET, txHash: newTxHash(), blockNumber: 321, ...extra };
  return [onchain(recv, 'DEBIT', amount, 'USDC', fields), onchain(counter, 'CREDIT', amount, 'USDC', fields)];
}

async function postOk(c: Client, lines: unknown[]): Promise<string> {
  const res = await post(c, lines);
  expect(res.status, res.text).toBe(201);
  return res.body.transactionId as string;
}

async function allResults(c: Client, limit = 200): Promise<any[]> {
  return (await walkPages(c, '/api/v1/reconciliation/results', { limit })).items;
}

describe('reconciliation', () => {
  let c: Client; // ADMIN key of the first tenant
  let co: Client; // ADMIN key of another tenant
  let otherTenantTx: string;

  /** A fresh receiving account and a counter account, so that no other test's settlement can match. */
  async function pair(cl: Client = c): Promise<[string, string]> {
    return [await makeAccount(cl, { name: 'recv', type: 'ASSET' }), await makeAccount(cl, { name: 'counter', type: 'LIABILITY' })];
  }

  async function keyWith(scopes: string[]): Promise<Client> {
    const res = await c.post('/api/v1/api-keys', { scopes });
    expect(res.status, res.text).toBe(201);
    return client(t.url, res.body.rawKey);
  }

  const t = useServerWithAccounts();
  beforeAll(async () => {
    c = t.client;
    const other = await createTenant(t.dbPath, 'Other');
    co = client(t.url, other.apiKey.rawKey);
    const [r, k] = await pair(co);
    otherTenantTx = await postOk(co, transferLines(r, k, '10'));
  });

  describe('POST /api/v1/reconciliation/batch: invalid bodies → 400', () => {
    const cases: Array<[string, () => unknown]> = [
      ['an empty array', () => ({ transactionIds: [] })],
      ['101 ids', () => ({ transactionIds: Array.from({ length: 101 }, () => randomUUID()) })],
      ['a non-UUID entry', () => ({ transactionIds: [randomUUID(), 'not-a-uuid'] })],
      ['a non-string entry', () => ({ transactionIds: [randomUUID(), 42] })],
      ['transactionIds missing', () => ({})],
      ['an unknown field', () => ({ transactionIds: [randomUUID()], dryRun: true })],
      ['transactionIds not an array (a string)', () => ({ transactionIds: randomUUID() })],
      ['transactionIds null', () => ({ transactionIds: null })],
      ['a top-level array instead of an object', () => [randomUUID()]],
    ];
    it.each(cases)('%s → 400 with {message, code}', async (_name, make) => {
      expectValidation(await c.post('/api/v1/reconciliation/batch', make()));
    });

    it('malformed JSON → 400', async () => {
      expectValidation(await c.request('POST', '/api/v1/reconciliation/batch', { rawBody: '{"transactionIds": [' }));
    });
  });

  describe('authentication and scopes', () => {
    it('no key or an unknown key → 401 UNAUTHENTICATED on both endpoints', async () => {
      for (const k of [client(t.url), client(t.url, `sk_live_${randomUUID().replaceAll('-', '')}`)]) {
        expectError(await batch(k, [randomUUID()]), 401, 'UNAUTHENTICATED');
        expectError(await k.get('/api/v1/reconciliation/results'), 401, 'UNAUTHENTICATED');
      }
    });

    it('the batch needs RECONCILIATION_WRITE: 403 FORBIDDEN without it', async () => {
      for (const scopes of [['RECONCILIATION_READ'], ['TRANSACTIONS_WRITE', 'TRANSACTIONS_READ']]) {
        expectError(await batch(await keyWith(scopes), [randomUUID()]), 403, 'FORBIDDEN');
      }
      const writer = await keyWith(['RECONCILIATION_WRITE']);
      const res = await batch(writer, [randomUUID()]);
      expect(res.status, res.text).toBe(200);
    });

    it('the results need RECONCILIATION_READ: 403 FORBIDDEN without it', async () => {
      for (const scopes of [['RECONCILIATION_WRITE'], ['TRANSACTIONS_READ']]) {
        expectError(await (await keyWith(scopes)).get('/api/v1/reconciliation/results'), 403, 'FORBIDDEN');
      }
      const reader = await keyWith(['RECONCILIATION_READ']);
      expect((await reader.get('/api/v1/reconciliation/results')).status).toBe(200);
    });
  });

  describe('POST /api/v1/reconciliation/batch: outcomes', () => {
    it('answers a flat array of {transactionId, outcome} in request order, each outcome kind', async () => {
      const [recv, counter] = await pair();
      const fiatOnly = await postOk(c, [fiat(recv, 'DEBIT', '5.00'), fiat(counter, 'CREDIT', '5.00')]);
      const unmatched = await postOk(c, transferLines(recv, counter, '1'));
      // posted BEFORE its settlement was registered: the batch matches it
      const late = await postOk(c, transferLines(recv, counter, '2', { txHash: '0xlate', blockNumber: 9001 }));
      const lateSettlement = await register(c, recv, '2');
      // registered first: matched at posting
      const early = await register(c, recv, '3');
      const atPosting = await postOk(c, transferLines(recv, counter, '3'));
      expect((await getSettlement(c, early.settlementId)).matchedTransactionId).toBe(atPosting);
      const missing = randomUUID();

      const order = [missing, fiatOnly, unmatched, late, otherTenantTx, atPosting, fiatOnly];
      const res = await batch(c, order);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual([
        { transactionId: missing, outcome: 'NOT_FOUND' },
        { transactionId: fiatOnly, outcome: 'NOT_APPLICABLE' },
        { transactionId: unmatched, outcome: 'UNMATCHED' },
        { transactionId: late, outcome: 'SETTLED' },
        { transactionId: otherTenantTx, outcome: 'NOT_FOUND' },
        { transactionId: atPosting, outcome: 'SETTLED' },
        { transactionId: fiatOnly, outcome: 'NOT_APPLICABLE' },
      ]);
      for (const item of res.body) expect(Object.keys(item).sort()).toEqual(['outcome', 'transactionId']);

      const s = await getSettlement(c, lateSettlement.settlementId);
      expect(s.status).toBe('SETTLED');
      expect(s.matchedTransactionId).toBe(late);
      expect(s.txHash).toBe('0xlate');
      expect(s.blockNumber).toBe(9001);
      expect(s.confirmedAt).toMatch(ISO_MS);
      expect(s).not.toHaveProperty('expiresAt');
      // the other tenant's settlement-free transaction was not touched and the early match is unchanged
      expect((await getSettlement(c, early.settlementId)).matchedTransactionId).toBe(atPosting);
    });

    it('a transaction answered UNMATCHED becomes SETTLED once a matching settlement is registered', async () => {
      const [recv, counter] = await pair();
      const tx = await postOk(c, transferLines(recv, counter, '4.5'));
      expect(await batchOk(c, [tx])).toEqual([{ transactionId: tx, outcome: 'UNMATCHED' }]);
      const s = await register(c, recv, '4.500000');
      expect(await batchOk(c, [tx])).toEqual([{ transactionId: tx, outcome: 'SETTLED' }]);
      expect(await getSettlement(c, s.settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: tx });
    });

    it('re-running the batch answers SETTLED again and changes no settlement', async () => {
      const [recv, counter] = await pair();
      const tx = await postOk(c, transferLines(recv, counter, '6'));
      const s = await register(c, recv, '6');
      expect(await batchOk(c, [tx])).toEqual([{ transactionId: tx, outcome: 'SETTLED' }]);
      const before = await getSettlement(c, s.settlementId);
      expect(before.matchedTransactionId).toBe(tx);
      // an identical PENDING settlement registered now must not be taken by the already matched line
      const twin = await register(c, recv, '6');
      expect(await batchOk(c, [tx, tx])).toEqual([
        { transactionId: tx, outcome: 'SETTLED' },
        { transactionId: tx, outcome: 'SETTLED' },
      ]);
      expect(await getSettlement(c, s.settlementId)).toEqual(before);
      expect(await getSettlement(c, twin.settlementId)).toEqual(twin);
    });

    it('a transaction matched at posting answers SETTLED and its settlement is unchanged', async () => {
      const [recv, counter] = await pair();
      const s = await register(c, recv, '8');
      const tx = await postOk(c, transferLines(recv, counter, '8'));
      const before = await getSettlement(c, s.settlementId);
      expect(before).toMatchObject({ status: 'SETTLED', matchedTransactionId: tx });
      expect(await batchOk(c, [tx])).toEqual([{ transactionId: tx, outcome: 'SETTLED' }]);
      expect(await getSettlement(c, s.settlementId)).toEqual(before);
    });

    it('the batch does not match a CANCELLED settlement, one with expectedFromAddress, or a non-matching one', async () => {
      const [recv, counter] = await pair();
      const tx = await postOk(c, transferLines(recv, counter, '12'));
      const cancelled = await register(c, recv, '12');
      const cancelRes = await c.del(`/api/v1/settlements/${cancelled.settlementId}`);
      expect(cancelRes.status, cancelRes.text).toBe(200);
      const withSender = await register(c, recv, '12', { expectedFromAddress: OTHER_WALLET });
      const otherWallet = await register(c, recv, '12', { expectedWalletAddress: OTHER_WALLET });
      const otherAmount = await register(c, recv, '12.000001');
      expect(await batchOk(c, [tx])).toEqual([{ transactionId: tx, outcome: 'UNMATCHED' }]);
      expect(await getSettlement(c, cancelled.settlementId)).toEqual(cancelRes.body);
      expect(await getSettlement(c, withSender.settlementId)).toEqual(withSender);
      expect(await getSettlement(c, otherWallet.settlementId)).toEqual(otherWallet);
      expect(await getSettlement(c, otherAmount.settlementId)).toEqual(otherAmount);
    });

    it('a transaction with fiat and on-chain lines but no match is UNMATCHED, not NOT_APPLICABLE', async () => {
      const [recv, counter] = await pair();
      const tx = await postOk(c, [fiat(recv, 'DEBIT', '1.00'), fiat(counter, 'CREDIT', '1.00'), ...transferLines(recv, counter, '1')]);
      expect(await batchOk(c, [tx])).toEqual([{ transactionId: tx, outcome: 'UNMATCHED' }]);
    });

    it('a batch of exactly 100 ids is accepted and answered in order', async () => {
      const idsIn = Array.from({ length: 100 }, () => randomUUID());
      const out = await batchOk(c, idsIn);
      expect(out).toHaveLength(100);
      expect(out.map((x) => x.transactionId)).toEqual(idsIn);
      for (const x of out) expect(x.outcome).toBe('NOT_FOUND');
    });
  });

  describe('GET /api/v1/reconciliation/results', () => {
    /**
     * A tenant of its own holding only the outcomes made here, so that each test counts from nothing: a fiat-only
     * posting, an unmatched transfer, a transfer matched at posting (s1) and one posted before its settlement (s2).
     * With `batches`, the batch [fiat, unmatched, late, missing] and then the batch [atPosting] have run.
     */
    async function scenario(batches: boolean) {
      const rt = await createTenant(t.dbPath, 'Results');
      const cr = client(t.url, rt.apiKey.rawKey);
      const [recv, counter] = await pair(cr);
      const txFiat = await postOk(cr, [fiat(recv, 'DEBIT', '1.00'), fiat(counter, 'CREDIT', '1.00')]);
      const txUn = await postOk(cr, transferLines(recv, counter, '1'));
      const s1 = await register(cr, recv, '2');
      const txAtPost = await postOk(cr, transferLines(recv, counter, '2'));
      const txLate = await postOk(cr, transferLines(recv, counter, '3'));
      const s2 = await register(cr, recv, '3');
      const missing = randomUUID();
      const made = { cr, txFiat, txUn, txAtPost, txLate, missing, s1, s2 };
      if (batches) {
        expect((await batchOk(cr, [txFiat, txUn, txLate, missing])).map((x) => x.outcome)).toEqual(['NOT_APPLICABLE', 'UNMATCHED', 'SETTLED', 'NOT_FOUND']);
        expect(await batchOk(cr, [txAtPost])).toEqual([{ transactionId: txAtPost, outcome: 'SETTLED' }]);
      }
      return made;
    }

    it('records a match made at posting with source POSTING; unmatched postings record nothing', async () => {
      const { cr, txAtPost, s1 } = await scenario(false);
      const items = await allResults(cr);
      expect(items).toHaveLength(1);
      const [r] = items;
      expect(Object.keys(r).sort()).toEqual(RESULT_KEYS);
      expect(r).toMatchObject({ transactionId: txAtPost, outcome: 'SETTLED', settlementId: s1.settlementId, source: 'POSTING' });
      expect(r.reconciledAt).toMatch(ISO_MS);
    });

    it('records every batch outcome with source BATCH, newest first', async () => {
      const { cr, txFiat, txUn, txAtPost, txLate, missing, s1, s2 } = await scenario(false);
      const out = await batchOk(cr, [txFiat, txUn, txLate, missing]);
      expect(out.map((x) => x.outcome)).toEqual(['NOT_APPLICABLE', 'UNMATCHED', 'SETTLED', 'NOT_FOUND']);
      const items = await allResults(cr);
      expect(items).toHaveLength(5);
      for (const r of items) {
        expect(Object.keys(r).sort()).toEqual(RESULT_KEYS);
        expect(r.reconciledAt).toMatch(ISO_MS);
      }
      for (let i = 1; i < items.length; i++) expect(items[i - 1].reconciledAt >= items[i].reconciledAt).toBe(true);
      // the four batch outcomes are newer than the posting match (their order among themselves is one commit's)
      const strip = (r: any) => ({ transactionId: r.transactionId, outcome: r.outcome, settlementId: r.settlementId, source: r.source });
      expect(items.slice(0, 4).map(strip)).toEqual(
        expect.arrayContaining([
          { transactionId: txFiat, outcome: 'NOT_APPLICABLE', settlementId: null, source: 'BATCH' },
          { transactionId: txUn, outcome: 'UNMATCHED', settlementId: null, source: 'BATCH' },
          { transactionId: txLate, outcome: 'SETTLED', settlementId: s2.settlementId, source: 'BATCH' },
          { transactionId: missing, outcome: 'NOT_FOUND', settlementId: null, source: 'BATCH' },
        ]),
      );
      expect(strip(items[4])).toEqual({ transactionId: txAtPost, outcome: 'SETTLED', settlementId: s1.settlementId, source: 'POSTING' });
      expect((await getSettlement(cr, s2.settlementId)).matchedTransactionId).toBe(txLate);
    });

    it('a later batch is listed first; re-reconciling a posting match records SETTLED from BATCH with its settlementId', async () => {
      const { cr, txFiat, txUn, txAtPost, txLate, missing, s1 } = await scenario(false);
      await batchOk(cr, [txFiat, txUn, txLate, missing]);
      expect(await allResults(cr)).toHaveLength(5);
      expect(await batchOk(cr, [txAtPost])).toEqual([{ transactionId: txAtPost, outcome: 'SETTLED' }]);
      const items = await allResults(cr);
      expect(items).toHaveLength(6);
      expect(items[0]).toMatchObject({ transactionId: txAtPost, outcome: 'SETTLED', settlementId: s1.settlementId, source: 'BATCH' });
    });

    it('pages with limit and cursor through every result once, in order', async () => {
      const { cr } = await scenario(true);
      const all = await allResults(cr);
      expect(all).toHaveLength(6);
      for (const limit of [1, 2, 4]) {
        const { items, pages } = await walkPages(cr, '/api/v1/reconciliation/results', { limit, maxPages: 20 });
        expect(items, `limit=${limit}`).toEqual(all);
        expect(pages).toBe(Math.ceil(6 / limit));
      }
      const first = await cr.get('/api/v1/reconciliation/results');
      expect(first.status).toBe(200);
      expect(first.body.items).toEqual(all);
      expect(first.body.nextCursor).toBeNull();
    });

    it('limit outside 1..200 or a malformed cursor → 400', async () => {
      const { cr } = await scenario(false);
      for (const bad of ['0', '201', 'abc']) expectValidation(await cr.get(`/api/v1/reconciliation/results?limit=${bad}`));
      expectValidation(await cr.get('/api/v1/reconciliation/results?cursor=garbage'));
      expect((await cr.get('/api/v1/reconciliation/results?limit=200')).status).toBe(200);
    });

    it('another tenant sees none of these results', async () => {
      const { cr, txFiat, txUn, txAtPost, txLate, missing } = await scenario(true);
      expect(await allResults(cr)).toHaveLength(6);
      const mine = new Set([txFiat, txUn, txAtPost, txLate, missing]);
      const theirs = await allResults(co);
      for (const r of theirs) expect(mine.has(r.transactionId)).toBe(false);
      // the other tenant's own batch is listed for it and not here
      const own = randomUUID();
      await batchOk(co, [own]);
      const theirsAfter = await allResults(co);
      expect(theirsAfter[0]).toMatchObject({ transactionId: own, outcome: 'NOT_FOUND', settlementId: null, source: 'BATCH' });
      expect((await allResults(cr)).map((r) => r.transactionId)).not.toContain(own);
      expect(await allResults(cr)).toHaveLength(6);
    });

    it('ids are UUIDs and settlementId is null unless SETTLED', async () => {
      const { cr } = await scenario(true);
      const results = await allResults(cr);
      expect(results.map((r) => r.outcome).sort()).toEqual(['NOT_APPLICABLE', 'NOT_FOUND', 'SETTLED', 'SETTLED', 'SETTLED', 'UNMATCHED']);
      for (const r of results) {
        expect(r.transactionId).toMatch(UUID);
        if (r.outcome === 'SETTLED') expect(r.settlementId).toMatch(UUID);
        else expect(r.settlementId).toBeNull();
      }
    });
  });
});
