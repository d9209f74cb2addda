// POST/GET/DELETE /api/v1/settlements, matching at posting time and expiry — black-box, per spec, contract and the issue 3 decisions.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS, UUID } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';
import { until } from '../helpers/poll.js';

// Addresses: valid ones per chain, and near misses.
const EVM_CHECKSUMMED = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const EVM_BAD_CHECKSUM = '0xa0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'; // first letter's case flipped, still mixed case
const EVM_1 = '0x0000000000000000000000000000000000000001';
const EVM_2 = '0x0000000000000000000000000000000000000002';
const SOL = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOL_2 = 'So11111111111111111111111111111111111111112';
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const TRON_HEX = '41a614f803b6fd780986a42c78ec9c7f77e6ded13c'; // the same address in hex form: refused

const PENDING_KEYS = [
  'accountId',
  'blockNumber',
  'confirmedAt',
  'createdAt',
  'expectedAmount',
  'expectedChainId',
  'expectedFromAddress',
  'expectedToken',
  'expectedWalletAddress',
  'expiresAt',
  'matchedTransactionId',
  'settlementId',
  'status',
  'txHash',
];
const FINAL_KEYS = PENDING_KEYS.filter((k) => k !== 'expiresAt');
const ids = (items: any[]) => items.map((x) => x.settlementId as string);

let seq = 0;
const newKey = () => `stl-test-${process.pid}-${Date.now()}-${seq++}`;
let hashSeq = 0;
const newTxHash = () => `0x${(++hashSeq).toString(16).padStart(64, '0')}`;

type Expectation = {
  accountId: string;
  expectedToken: string;
  expectedAmount: string;
  expectedWalletAddress: string;
  expectedChainId: string;
  expectedFromAddress?: string | null;
};

const expectation = (accountId: string, over: Record<string, unknown> = {}): Record<string, unknown> => ({
  accountId,
  expectedToken: 'USDC',
  expectedAmount: '10',
  expectedWalletAddress: EVM_1,
  expectedChainId: 'EVM',
  ...over,
});

const without = (obj: Record<string, unknown>, key: string) => {
  const copy = { ...obj };
  delete copy[key];
  return copy;
};

/** POSTs a settlement body (object, or raw text) under an Idempotency-Key (null: no header). */
function registerRaw(c: Client, body: unknown, key: string | null = newKey(), raw = false) {
  const headers: Record<string, string> = key === null ? {} : { 'idempotency-key': key };
  return raw
    ? c.request('POST', '/api/v1/settlements', { rawBody: body as string, headers })
    : c.request('POST', '/api/v1/settlements', { body, headers });
}

/** Registers and expects 201; returns the settlement. */
async function register(c: Client, body: Record<string, unknown>): Promise<any> {
  const res = await registerRaw(c, body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function getSettlement(c: Client, id: string): Promise<any> {
  const res = await c.get(`/api/v1/settlements/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** An ONCHAIN DEBIT on the settlement account balanced by an ONCHAIN CREDIT on another account. */
function transferLines(
  recv: string,
  counter: string,
  m: { amount: string | number; token?: string; chainId?: string; walletAddress?: string; txHash?: string; blockNumber?: number },
) {
  const extra = { chainId: m.chainId ?? 'EVM', walletAddress: m.walletAddress ?? EVM_1, txHash: m.txHash ?? newTxHash(), blockNumber: m.blockNumber ?? 100 };
  return [onchain(recv, 'DEBIT', m.amount, m.token ?? 'USDC', extra), onchain(counter, 'CREDIT', m.amount, m.token ?? 'USDC', extra)];
}

async function postOk(c: Client, lines: unknown[]): Promise<string> {
  const res = await post(c, lines);
  expect(res.status, res.text).toBe(201);
  return res.body.transactionId as string;
}

/** Every settlement of the key's tenant, walking the pages (optionally with a query such as "status=PENDING"). */
async function allSettlements(c: Client, query = '', limit = 200): Promise<any[]> {
  return (await walkPages(c, `/api/v1/settlements${query ? `?${query}` : ''}`, { limit })).items;
}

/** Polls GET until the settlement leaves PENDING (throws after the deadline); returns its body then. */
function waitWhilePending(c: Client, id: string, deadlineMs = 8000): Promise<any> {
  return until(
    `settlement ${id} to leave PENDING`,
    async () => {
      const s = await getSettlement(c, id);
      return s.status === 'PENDING' ? undefined : s;
    },
    deadlineMs,
    100,
  );
}

describe('settlements', () => {
  let c: Client; // ADMIN key of the first tenant
  let c2: Client; // ADMIN key of another tenant
  let acct: string; // receiving account used by validation tests (never posted to)
  let otherTenantAcct: string;

  /** A fresh receiving account and a counter account, so that no other test's settlement can match. */
  async function pair(cl: Client = c): Promise<[string, string]> {
    const recv = await makeAccount(cl, { name: 'recv', type: 'ASSET' });
    const counter = await makeAccount(cl, { name: 'counter', type: 'LIABILITY' });
    return [recv, counter];
  }

  const t = useServerWithAccounts({ accounts: { acct: { name: 'wallet account', type: 'ASSET' } } });
  beforeAll(async () => {
    ({ client: c, accounts: { acct } } = t);
    const other = await createTenant(t.dbPath, 'Other');
    c2 = client(t.url, other.apiKey.rawKey);
    otherTenantAcct = await makeAccount(c2, { name: 'theirs', type: 'ASSET' });
  });

  describe('POST /api/v1/settlements: success', () => {
    it('answers 201 with exactly the settlement keys, PENDING, matched fields null, expiresAt = createdAt + 24 h', async () => {
      const before = Date.now();
      const res = await registerRaw(c, expectation(acct, { expectedAmount: '12.34', expectedWalletAddress: EVM_CHECKSUMMED }));
      expect(res.status, res.text).toBe(201);
      const s = res.body;
      expect(Object.keys(s).sort()).toEqual(PENDING_KEYS);
      expect(s.settlementId).toMatch(UUID);
      expect(s.accountId).toBe(acct);
      expect(s.expectedToken).toBe('USDC');
      expect(s.expectedAmount).toBe('12.34');
      expect(s.expectedWalletAddress.toLowerCase()).toBe(EVM_CHECKSUMMED.toLowerCase());
      expect(s.expectedChainId).toBe('EVM');
      expect(s.expectedFromAddress).toBeNull();
      expect(s.status).toBe('PENDING');
      expect(s.matchedTransactionId).toBeNull();
      expect(s.txHash).toBeNull();
      expect(s.blockNumber).toBeNull();
      expect(s.confirmedAt).toBeNull();
      expect(s.createdAt).toMatch(ISO_MS);
      expect(s.expiresAt).toMatch(ISO_MS);
      expect(Date.parse(s.expiresAt) - Date.parse(s.createdAt)).toBe(86_400_000);
      expect(Date.parse(s.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(s.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('echoes expectedAmount exactly as the given string (trailing zeros kept)', async () => {
      expect((await register(c, expectation(acct, { expectedAmount: '10.50' }))).expectedAmount).toBe('10.50');
      expect((await register(c, expectation(acct, { expectedAmount: '0.000001' }))).expectedAmount).toBe('0.000001');
      expect((await register(c, expectation(acct, { expectedAmount: '7' }))).expectedAmount).toBe('7');
    });

    it('accepts BRZ with 18 decimal places', async () => {
      const s = await register(c, expectation(acct, { expectedToken: 'BRZ', expectedAmount: '1.000000000000000001' }));
      expect(s.expectedAmount).toBe('1.000000000000000001');
    });

    it('accepts every token and chain of the lists', async () => {
      for (const token of ['USDC', 'USDT', 'BRZ', 'PYUSD']) {
        expect((await register(c, expectation(acct, { expectedToken: token }))).expectedToken).toBe(token);
      }
      const sol = await register(c, expectation(acct, { expectedChainId: 'SOLANA', expectedWalletAddress: SOL }));
      expect(sol.expectedChainId).toBe('SOLANA');
      expect(sol.expectedWalletAddress).toBe(SOL);
      const tron = await register(c, expectation(acct, { expectedChainId: 'TRON', expectedWalletAddress: TRON }));
      expect(tron.expectedChainId).toBe('TRON');
      expect(tron.expectedWalletAddress).toBe(TRON);
    });

    it('keeps a given expectedFromAddress, and accepts it as null', async () => {
      const withFrom = await register(c, expectation(acct, { expectedFromAddress: EVM_2 }));
      expect(withFrom.expectedFromAddress.toLowerCase()).toBe(EVM_2);
      const withNull = await register(c, expectation(acct, { expectedFromAddress: null }));
      expect(withNull.expectedFromAddress).toBeNull();
    });

    it('accepts an all-lowercase EVM address', async () => {
      const s = await register(c, expectation(acct, { expectedWalletAddress: EVM_CHECKSUMMED.toLowerCase() }));
      expect(s.expectedWalletAddress.toLowerCase()).toBe(EVM_CHECKSUMMED.toLowerCase());
    });

    it('accepts an all-uppercase EVM address', async () => {
      const upper = `0x${EVM_CHECKSUMMED.slice(2).toUpperCase()}`;
      const res = await registerRaw(c, expectation(acct, { expectedWalletAddress: upper }));
      expect(res.status, res.text).toBe(201);
    });

    it('accepts a correctly checksummed mixed-case EVM address, as wallet and as sender', async () => {
      const res = await registerRaw(c, expectation(acct, { expectedWalletAddress: EVM_CHECKSUMMED, expectedFromAddress: EVM_CHECKSUMMED }));
      expect(res.status, res.text).toBe(201);
    });

    it('accepts the Solana address EPjF… and the TRON address TR7N…', async () => {
      expect((await registerRaw(c, expectation(acct, { expectedChainId: 'SOLANA', expectedWalletAddress: SOL, expectedFromAddress: SOL_2 }))).status).toBe(201);
      expect((await registerRaw(c, expectation(acct, { expectedChainId: 'TRON', expectedWalletAddress: TRON, expectedFromAddress: TRON }))).status).toBe(201);
    });
  });

  describe('POST /api/v1/settlements: Idempotency-Key header', () => {
    it('missing → 400', async () => {
      expectValidation(await registerRaw(c, expectation(acct), null));
    });
    it('empty → 400', async () => {
      expectValidation(await registerRaw(c, expectation(acct), ''));
    });
    it('256 characters → 400', async () => {
      expectValidation(await registerRaw(c, expectation(acct), 'k'.repeat(256)));
    });
    it('255 characters → 201', async () => {
      const res = await registerRaw(c, expectation(acct), randomUUID().padEnd(255, 'k'));
      expect(res.status, res.text).toBe(201);
    });
  });

  describe('POST /api/v1/settlements: invalid bodies → 400', () => {
    const cases: Array<[string, (a: string) => Record<string, unknown>]> = [
      ['accountId missing', (a) => without(expectation(a), 'accountId')],
      ['accountId not a UUID', (a) => expectation(a, { accountId: 'not-a-uuid' })],
      ['expectedToken missing', (a) => without(expectation(a), 'expectedToken')],
      ['expectedAmount missing', (a) => without(expectation(a), 'expectedAmount')],
      ['expectedWalletAddress missing', (a) => without(expectation(a), 'expectedWalletAddress')],
      ['expectedChainId missing', (a) => without(expectation(a), 'expectedChainId')],
      ['an unknown field', (a) => expectation(a, { memo: 'hello' })],
      ['expectedToken empty', (a) => expectation(a, { expectedToken: '' })],
      ['expectedToken outside the list (DAI)', (a) => expectation(a, { expectedToken: 'DAI' })],
      ['expectedToken lower case', (a) => expectation(a, { expectedToken: 'usdc' })],
      ['expectedChainId outside the list', (a) => expectation(a, { expectedChainId: 'BITCOIN' })],
      ['expectedChainId lower case', (a) => expectation(a, { expectedChainId: 'evm' })],
      ['expectedAmount as a JSON number', (a) => expectation(a, { expectedAmount: 10 })],
      ['expectedAmount zero', (a) => expectation(a, { expectedAmount: '0' })],
      ['expectedAmount negative', (a) => expectation(a, { expectedAmount: '-1' })],
      ['expectedAmount with more places than USDC has', (a) => expectation(a, { expectedAmount: '1.0000001' })],
      ['expectedAmount with more places than BRZ has', (a) => expectation(a, { expectedToken: 'BRZ', expectedAmount: '1.0000000000000000001' })],
      ['expectedAmount with an exponent', (a) => expectation(a, { expectedAmount: '1e3' })],
      ['expectedAmount empty', (a) => expectation(a, { expectedAmount: '' })],
      ['expectedAmount blank', (a) => expectation(a, { expectedAmount: '   ' })],
      ['expectedAmount not a number', (a) => expectation(a, { expectedAmount: 'ten' })],
      ['EVM wallet not hex', (a) => expectation(a, { expectedWalletAddress: '0xZZ00000000000000000000000000000000000001' })],
      ['EVM wallet too short', (a) => expectation(a, { expectedWalletAddress: '0x00000000000000000000000000000000000001' })],
      ['EVM wallet without 0x', (a) => expectation(a, { expectedWalletAddress: '0000000000000000000000000000000000000001' })],
      ['EVM wallet with a bad EIP-55 checksum (mixed case)', (a) => expectation(a, { expectedWalletAddress: EVM_BAD_CHECKSUM })],
      ['EVM sender with a bad EIP-55 checksum (mixed case)', (a) => expectation(a, { expectedFromAddress: EVM_BAD_CHECKSUM })],
      ['Solana wallet with a non-base58 character', (a) => expectation(a, { expectedChainId: 'SOLANA', expectedWalletAddress: `${SOL.slice(0, -1)}0` })],
      ['Solana wallet too long', (a) => expectation(a, { expectedChainId: 'SOLANA', expectedWalletAddress: `${SOL}EPjF` })],
      ['Solana wallet too short', (a) => expectation(a, { expectedChainId: 'SOLANA', expectedWalletAddress: SOL.slice(0, 26) })],
      ['TRON wallet with a bad checksum', (a) => expectation(a, { expectedChainId: 'TRON', expectedWalletAddress: `${TRON.slice(0, -1)}u` })],
      ['TRON wallet too short', (a) => expectation(a, { expectedChainId: 'TRON', expectedWalletAddress: TRON.slice(0, -1) })],
      ['TRON wallet in hex form', (a) => expectation(a, { expectedChainId: 'TRON', expectedWalletAddress: TRON_HEX })],
      ['an EVM address on SOLANA', (a) => expectation(a, { expectedChainId: 'SOLANA', expectedWalletAddress: EVM_1 })],
      ['a Solana address on EVM', (a) => expectation(a, { expectedWalletAddress: SOL })],
      ['a TRON address on SOLANA', (a) => expectation(a, { expectedChainId: 'SOLANA', expectedWalletAddress: TRON })],
      ['a sender of another chain (TRON sender on EVM)', (a) => expectation(a, { expectedFromAddress: TRON })],
      ['a sender of another chain (EVM sender on SOLANA)', (a) => expectation(a, { expectedChainId: 'SOLANA', expectedWalletAddress: SOL, expectedFromAddress: EVM_1 })],
      ['a sender that is no address', (a) => expectation(a, { expectedFromAddress: 'nobody' })],
    ];

    it.each(cases)('%s → 400 with {message, code}', async (_name, make) => {
      expectValidation(await registerRaw(c, make(acct)));
    });

    it('malformed JSON → 400', async () => {
      expectValidation(await registerRaw(c, '{"accountId": "', newKey(), true));
    });

    it('a body that is not an object → 400', async () => {
      expectValidation(await registerRaw(c, [expectation(acct)]));
      expectValidation(await registerRaw(c, 'null', newKey(), true));
    });

    it('creates nothing', async () => {
      const before = (await allSettlements(c)).length;
      for (const [, make] of cases.slice(0, 5)) expectValidation(await registerRaw(c, make(acct)));
      expect((await allSettlements(c)).length).toBe(before);
    });
  });

  describe('POST /api/v1/settlements: account of the tenant → else 422 ACCOUNT_NOT_FOUND', () => {
    it("another tenant's account → 422 ACCOUNT_NOT_FOUND", async () => {
      expectError(await registerRaw(c, expectation(otherTenantAcct)), 422, 'ACCOUNT_NOT_FOUND');
    });
    it('a random UUID → 422 ACCOUNT_NOT_FOUND', async () => {
      expectError(await registerRaw(c, expectation(randomUUID())), 422, 'ACCOUNT_NOT_FOUND');
    });
  });

  describe('authentication and scopes', () => {
    let readOnly: Client; // TRANSACTIONS_READ
    let writeOnly: Client; // TRANSACTIONS_WRITE
    let accountsRead: Client; // ACCOUNTS_READ
    let s: any;

    async function keyWith(scopes: string[]): Promise<Client> {
      const res = await c.post('/api/v1/api-keys', { scopes });
      expect(res.status, res.text).toBe(201);
      return client(t.url, res.body.rawKey);
    }

    beforeAll(async () => {
      readOnly = await keyWith(['TRANSACTIONS_READ']);
      writeOnly = await keyWith(['TRANSACTIONS_WRITE']);
      accountsRead = await keyWith(['ACCOUNTS_READ']);
      s = await register(c, expectation(acct));
    });

    it('no key, a malformed key and an unknown key → 401 UNAUTHENTICATED on every endpoint', async () => {
      const anon = client(t.url);
      const malformed = client(t.url, 'not-a-key');
      const unknown = client(t.url, `sk_live_${randomUUID().replaceAll('-', '')}`);
      for (const k of [anon, malformed, unknown]) {
        expectError(await registerRaw(k, expectation(acct)), 401, 'UNAUTHENTICATED');
        expectError(await k.get('/api/v1/settlements'), 401, 'UNAUTHENTICATED');
        expectError(await k.get(`/api/v1/settlements/${s.settlementId}`), 401, 'UNAUTHENTICATED');
        expectError(await k.del(`/api/v1/settlements/${s.settlementId}`), 401, 'UNAUTHENTICATED');
      }
      expect((await getSettlement(c, s.settlementId)).status).toBe('PENDING');
    });

    it('a TRANSACTIONS_READ key cannot POST or DELETE (403 FORBIDDEN) but can read', async () => {
      expectError(await registerRaw(readOnly, expectation(acct)), 403, 'FORBIDDEN');
      expectError(await readOnly.del(`/api/v1/settlements/${s.settlementId}`), 403, 'FORBIDDEN');
      expect((await getSettlement(c, s.settlementId)).status).toBe('PENDING');
      expect((await readOnly.get(`/api/v1/settlements/${s.settlementId}`)).status).toBe(200);
      expect((await readOnly.get('/api/v1/settlements')).status).toBe(200);
    });

    it('an ACCOUNTS_READ key cannot GET (403 FORBIDDEN)', async () => {
      expectError(await accountsRead.get('/api/v1/settlements'), 403, 'FORBIDDEN');
      expectError(await accountsRead.get(`/api/v1/settlements/${s.settlementId}`), 403, 'FORBIDDEN');
      expectError(await registerRaw(accountsRead, expectation(acct)), 403, 'FORBIDDEN');
    });

    it('a TRANSACTIONS_WRITE key can register and cancel but not read', async () => {
      const res = await registerRaw(writeOnly, expectation(acct));
      expect(res.status, res.text).toBe(201);
      expectError(await writeOnly.get('/api/v1/settlements'), 403, 'FORBIDDEN');
      expectError(await writeOnly.get(`/api/v1/settlements/${res.body.settlementId}`), 403, 'FORBIDDEN');
      const del = await writeOnly.del(`/api/v1/settlements/${res.body.settlementId}`);
      expect(del.status, del.text).toBe(200);
      expect(del.body.status).toBe('CANCELLED');
    });
  });

  describe('idempotency', () => {
    it('same key and same body → same 201 and byte-identical body, one settlement', async () => {
      const [recv] = await pair();
      const key = newKey();
      const body = expectation(recv, { expectedAmount: '3.5' });
      const first = await registerRaw(c, body, key);
      const second = await registerRaw(c, body, key);
      expect(first.status, first.text).toBe(201);
      expect(second.status, second.text).toBe(201);
      expect(second.text).toBe(first.text);
      const mine = (await allSettlements(c)).filter((x) => x.accountId === recv);
      expect(mine.map((x) => x.settlementId)).toEqual([first.body.settlementId]);
    });

    it('same key and a different body → 422 IDEMPOTENCY_KEY_REUSED, nothing written, original still replayed', async () => {
      const [recv] = await pair();
      const key = newKey();
      const first = await registerRaw(c, expectation(recv), key);
      expect(first.status, first.text).toBe(201);
      expectError(await registerRaw(c, expectation(recv, { expectedAmount: '11' }), key), 422, 'IDEMPOTENCY_KEY_REUSED');
      expectError(await registerRaw(c, expectation(recv, { expectedFromAddress: EVM_2 }), key), 422, 'IDEMPOTENCY_KEY_REUSED');
      const mine = (await allSettlements(c)).filter((x) => x.accountId === recv);
      expect(mine).toHaveLength(1);
      const again = await registerRaw(c, expectation(recv), key);
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
    });

    it('a 400 does not consume the key', async () => {
      const key = newKey();
      expectValidation(await registerRaw(c, expectation(acct, { expectedAmount: '0' }), key));
      const fixed = await registerRaw(c, expectation(acct), key);
      expect(fixed.status, fixed.text).toBe(201);
      expect(fixed.body.settlementId).toMatch(UUID);
    });

    it('a 422 ACCOUNT_NOT_FOUND does not consume the key', async () => {
      const key = newKey();
      expectError(await registerRaw(c, expectation(randomUUID()), key), 422, 'ACCOUNT_NOT_FOUND');
      const fixed = await registerRaw(c, expectation(acct), key);
      expect(fixed.status, fixed.text).toBe(201);
    });

    it('concurrent identical requests with one key create exactly one settlement (others 201 replay or 409)', async () => {
      const [recv] = await pair();
      const key = newKey();
      const body = expectation(recv);
      const results = await Promise.all(Array.from({ length: 8 }, () => registerRaw(c, body, key)));
      // Which of them find the first still in progress is a race; each answer is one of the two documented ones.
      for (const r of results) {
        if (r.status === 201) expect(r.body.settlementId, r.text).toMatch(UUID);
        else expectError(r, 409, 'IDEMPOTENCY_IN_PROGRESS');
      }
      const created = results.filter((r) => r.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((r) => r.body.settlementId)).size).toBe(1);
      expect((await allSettlements(c)).filter((x) => x.accountId === recv)).toHaveLength(1);
    });

    it('keys are per endpoint: a key used for a transaction can register a settlement', async () => {
      const [recv, counter] = await pair();
      const key = newKey();
      const tx = await post(c, transferLines(recv, counter, { amount: '1' }), { key });
      expect(tx.status, tx.text).toBe(201);
      const res = await registerRaw(c, expectation(recv, { expectedAmount: '2' }), key);
      expect(res.status, res.text).toBe(201);
      expect(res.body.settlementId).toMatch(UUID);
    });

    it('keys are per tenant: the same key in two tenants makes two settlements', async () => {
      const key = newKey();
      const mine = await registerRaw(c, expectation(acct), key);
      const theirs = await registerRaw(c2, expectation(otherTenantAcct), key);
      expect(mine.status, mine.text).toBe(201);
      expect(theirs.status, theirs.text).toBe(201);
      expect(theirs.body.settlementId).not.toBe(mine.body.settlementId);
    });
  });

  describe('GET /api/v1/settlements/{id}', () => {
    it('answers the settlement as registered', async () => {
      const created = await register(c, expectation(acct, { expectedAmount: '4.2', expectedFromAddress: EVM_2 }));
      const got = await c.get(`/api/v1/settlements/${created.settlementId}`);
      expect(got.status, got.text).toBe(200);
      expect(got.body).toEqual(created);
    });
    it('unknown id → 404 NOT_FOUND', async () => {
      expectError(await c.get(`/api/v1/settlements/${randomUUID()}`), 404, 'NOT_FOUND');
    });
    it("another tenant's settlement → 404 NOT_FOUND", async () => {
      const theirs = await register(c2, expectation(otherTenantAcct));
      expectError(await c.get(`/api/v1/settlements/${theirs.settlementId}`), 404, 'NOT_FOUND');
    });
    it('an id that is not a UUID → 404', async () => {
      expectError(await c.get('/api/v1/settlements/not-a-uuid'), 404, 'NOT_FOUND');
    });
  });

  describe('GET /api/v1/settlements (list)', () => {
    let cl: Client; // a tenant holding only the six settlements below
    let s: any[]; // s[0] oldest … s[5] newest

    beforeAll(async () => {
      const lt = await createTenant(t.dbPath, 'Lists');
      cl = client(t.url, lt.apiKey.rawKey);
      const [recv, counter] = await pair(cl);
      s = [];
      for (let i = 0; i < 6; i++) s.push(await register(cl, expectation(recv, { expectedAmount: String(i + 1) })));
      // s0 SETTLED (a matching posting), s1 and s3 CANCELLED, s2 s4 s5 PENDING
      await postOk(cl, transferLines(recv, counter, { amount: '1' }));
      expect((await cl.del(`/api/v1/settlements/${s[1].settlementId}`)).status).toBe(200);
      expect((await cl.del(`/api/v1/settlements/${s[3].settlementId}`)).status).toBe(200);
    });

    const ofIdx = (...idx: number[]) => idx.map((i) => s[i].settlementId);

    it('answers {items, nextCursor}: the tenant’s settlements, newest first, nextCursor null on the last page', async () => {
      const res = await cl.get('/api/v1/settlements');
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['items', 'nextCursor']);
      expect(ids(res.body.items)).toEqual(ofIdx(5, 4, 3, 2, 1, 0));
      expect(res.body.nextCursor).toBeNull();
      for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual(item.status === 'PENDING' ? PENDING_KEYS : FINAL_KEYS);
      const byId = new Map(res.body.items.map((x: any) => [x.settlementId, x]));
      expect(byId.get(s[5].settlementId)).toEqual(await getSettlement(cl, s[5].settlementId));
      expect(byId.get(s[0].settlementId)).toEqual(await getSettlement(cl, s[0].settlementId));
    });

    it('filters by status', async () => {
      expect(ids(await allSettlements(cl, 'status=PENDING'))).toEqual(ofIdx(5, 4, 2));
      expect(ids(await allSettlements(cl, 'status=CANCELLED'))).toEqual(ofIdx(3, 1));
      expect(ids(await allSettlements(cl, 'status=SETTLED'))).toEqual(ofIdx(0));
      expect(await allSettlements(cl, 'status=UNMATCHED')).toEqual([]);
      for (const item of await allSettlements(cl, 'status=PENDING')) expect(item.status).toBe('PENDING');
    });

    it('an invalid status → 400', async () => {
      expectValidation(await cl.get('/api/v1/settlements?status=DONE'));
      expectValidation(await cl.get('/api/v1/settlements?status=pending'));
    });

    it('from and to are inclusive bounds on createdAt', async () => {
      const all = await allSettlements(cl);
      const from = s[1].createdAt as string;
      const to = s[4].createdAt as string;
      const inRange = await allSettlements(cl, `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
      expect(ids(inRange)).toEqual(ids(all.filter((x) => x.createdAt >= from && x.createdAt <= to)));
      expect(ids(inRange)).toEqual(expect.arrayContaining(ofIdx(1, 2, 3, 4)));
      // from = to = one createdAt includes that settlement
      const exact = await allSettlements(cl, `from=${encodeURIComponent(to)}&to=${encodeURIComponent(to)}`);
      expect(ids(exact)).toContain(s[4].settlementId);
      for (const x of exact) expect(x.createdAt).toBe(to);
      // one millisecond past either bound excludes it
      const after = new Date(Date.parse(to) + 1).toISOString();
      expect(ids(await allSettlements(cl, `from=${encodeURIComponent(after)}`))).not.toContain(s[4].settlementId);
      const before = new Date(Date.parse(from) - 1).toISOString();
      expect(ids(await allSettlements(cl, `to=${encodeURIComponent(before)}`))).not.toContain(s[1].settlementId);
      // any ISO 8601 instant is accepted
      expect(ids(await allSettlements(cl, 'from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00%2B00:00'))).toEqual(ofIdx(5, 4, 3, 2, 1, 0));
    });

    it('from after to, or an invalid date → 400', async () => {
      expectValidation(await cl.get('/api/v1/settlements?from=2030-01-02T00:00:00.000Z&to=2030-01-01T00:00:00.000Z'));
      expectValidation(await cl.get('/api/v1/settlements?from=yesterday'));
      expectValidation(await cl.get('/api/v1/settlements?to=2030-13-45T00:00:00Z'));
    });

    it('limit must be an integer from 1 to 200', async () => {
      for (const bad of ['0', '201', '-1', '1.5', 'abc']) expectValidation(await cl.get(`/api/v1/settlements?limit=${bad}`));
      for (const good of ['1', '200']) expect((await cl.get(`/api/v1/settlements?limit=${good}`)).status).toBe(200);
    });

    it('pages with limit and cursor through every settlement once, in order', async () => {
      for (const limit of [1, 2, 4, 5]) {
        const { items, pages } = await walkPages(cl, '/api/v1/settlements', { limit, maxPages: 20 });
        expect(ids(items), `limit=${limit}`).toEqual(ofIdx(5, 4, 3, 2, 1, 0));
        expect(pages).toBe(Math.ceil(6 / limit));
      }
    });

    it('pages through a status filter with its cursor', async () => {
      const p1 = await cl.get('/api/v1/settlements?status=PENDING&limit=2');
      expect(p1.status, p1.text).toBe(200);
      expect(ids(p1.body.items)).toEqual(ofIdx(5, 4));
      expect(typeof p1.body.nextCursor).toBe('string');
      const p2 = await cl.get(`/api/v1/settlements?status=PENDING&limit=2&cursor=${encodeURIComponent(p1.body.nextCursor)}`);
      expect(p2.status, p2.text).toBe(200);
      expect(ids(p2.body.items)).toEqual(ofIdx(2));
      expect(p2.body.nextCursor).toBeNull();
    });

    it('a malformed cursor → 400', async () => {
      expectValidation(await cl.get('/api/v1/settlements?cursor=garbage'));
    });

    it('a cursor used with another filter → 400', async () => {
      const p1 = await cl.get('/api/v1/settlements?status=PENDING&limit=1');
      const cursor = encodeURIComponent(p1.body.nextCursor);
      expect(typeof p1.body.nextCursor).toBe('string');
      expectValidation(await cl.get(`/api/v1/settlements?status=CANCELLED&limit=1&cursor=${cursor}`));
      expectValidation(await cl.get(`/api/v1/settlements?limit=1&cursor=${cursor}`));
      expectValidation(await cl.get(`/api/v1/settlements?status=PENDING&from=2000-01-01T00:00:00.000Z&limit=1&cursor=${cursor}`));
      // the same filter accepts it
      expect((await cl.get(`/api/v1/settlements?status=PENDING&limit=1&cursor=${cursor}`)).status).toBe(200);
    });

    it('lists only the caller tenant’s settlements', async () => {
      const mine = new Set(ids(await allSettlements(c)));
      const theirs = ids(await allSettlements(cl));
      expect(theirs).toHaveLength(6);
      for (const id of theirs) expect(mine.has(id)).toBe(false);
      const other = ids(await allSettlements(c2));
      for (const id of other) expect(mine.has(id)).toBe(false);
      for (const id of other) expect(theirs).not.toContain(id);
    });

    it('limit defaults to 50', async () => {
      const dt = await createTenant(t.dbPath, 'Many');
      const cd = client(t.url, dt.apiKey.rawKey);
      const recv = await makeAccount(cd, { name: 'recv' });
      for (let batch = 0; batch < 51; batch += 17) {
        await Promise.all(Array.from({ length: 17 }, () => register(cd, expectation(recv))));
      }
      const p1 = await cd.get('/api/v1/settlements');
      expect(p1.status, p1.text).toBe(200);
      expect(p1.body.items).toHaveLength(50);
      expect(typeof p1.body.nextCursor).toBe('string');
      const p2 = await cd.get(`/api/v1/settlements?cursor=${encodeURIComponent(p1.body.nextCursor)}`);
      expect(p2.status, p2.text).toBe(200);
      expect(p2.body.items).toHaveLength(1);
      expect(p2.body.nextCursor).toBeNull();
      const all = [...p1.body.items, ...p2.body.items];
      expect(new Set(ids(all)).size).toBe(51);
      for (let i = 1; i < all.length; i++) expect(all[i - 1].createdAt >= all[i].createdAt).toBe(true);
    });
  });

  describe('state table', () => {
    it('PENDING → SETTLED by posting a matching transaction: matched fields from the line, expiresAt gone', async () => {
      const [recv, counter] = await pair();
      const created = await register(c, expectation(recv, { expectedAmount: '25.75' }));
      const txHash = newTxHash();
      const txId = await postOk(c, transferLines(recv, counter, { amount: '25.75', txHash, blockNumber: 4242 }));
      // the posting's 201 means the match is already committed
      const s = await getSettlement(c, created.settlementId);
      expect(Object.keys(s).sort()).toEqual(FINAL_KEYS);
      expect(s).not.toHaveProperty('expiresAt');
      expect(s.status).toBe('SETTLED');
      expect(s.matchedTransactionId).toBe(txId);
      expect(s.txHash).toBe(txHash);
      expect(s.blockNumber).toBe(4242);
      expect(s.confirmedAt).toMatch(ISO_MS);
      expect(Date.parse(s.confirmedAt)).toBeGreaterThanOrEqual(Date.parse(s.createdAt));
      // the expectation itself is unchanged
      for (const k of ['settlementId', 'accountId', 'expectedToken', 'expectedAmount', 'expectedWalletAddress', 'expectedChainId', 'expectedFromAddress', 'createdAt']) {
        expect(s[k], k).toEqual(created[k]);
      }
    });

    it('PENDING → CANCELLED by DELETE: 200, CANCELLED, no expiresAt, confirmedAt and matched fields null', async () => {
      const created = await register(c, expectation(acct));
      const res = await c.del(`/api/v1/settlements/${created.settlementId}`);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(FINAL_KEYS);
      expect(res.body).not.toHaveProperty('expiresAt');
      const { expiresAt: _dropped, ...rest } = created;
      expect(res.body).toEqual({ ...rest, status: 'CANCELLED' });
      expect(res.body.confirmedAt).toBeNull();
      expect(res.body.matchedTransactionId).toBeNull();
      expect(await getSettlement(c, created.settlementId)).toEqual(res.body);
    });

    it('DELETE on a CANCELLED settlement → 200, unchanged', async () => {
      const created = await register(c, expectation(acct));
      const first = await c.del(`/api/v1/settlements/${created.settlementId}`);
      expect(first.status, first.text).toBe(200);
      const second = await c.del(`/api/v1/settlements/${created.settlementId}`);
      expect(second.status, second.text).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(await getSettlement(c, created.settlementId)).toEqual(first.body);
    });

    it('DELETE on a SETTLED settlement → 409 CONFLICT, unchanged', async () => {
      const [recv, counter] = await pair();
      const created = await register(c, expectation(recv));
      await postOk(c, transferLines(recv, counter, { amount: '10' }));
      const settled = await getSettlement(c, created.settlementId);
      expect(settled.status).toBe('SETTLED');
      expectError(await c.del(`/api/v1/settlements/${created.settlementId}`), 409, 'CONFLICT');
      expect(await getSettlement(c, created.settlementId)).toEqual(settled);
    });

    it('DELETE: unknown id and another tenant’s settlement → 404 (theirs stays PENDING); a non-UUID id → 404 (README: 400 only for entries and statement)', async () => {
      expectError(await c.del(`/api/v1/settlements/${randomUUID()}`), 404, 'NOT_FOUND');
      const theirs = await register(c2, expectation(otherTenantAcct));
      expectError(await c.del(`/api/v1/settlements/${theirs.settlementId}`), 404, 'NOT_FOUND');
      expect((await getSettlement(c2, theirs.settlementId)).status).toBe('PENDING');
      expectError(await c.del('/api/v1/settlements/not-a-uuid'), 404, 'NOT_FOUND');
    });

    it('a CANCELLED settlement is never matched by a later matching posting', async () => {
      const [recv, counter] = await pair();
      const created = await register(c, expectation(recv));
      const cancelled = (await c.del(`/api/v1/settlements/${created.settlementId}`)).body;
      expect(cancelled.status).toBe('CANCELLED');
      await postOk(c, transferLines(recv, counter, { amount: '10' }));
      expect(await getSettlement(c, created.settlementId)).toEqual(cancelled);
    });
  });

  describe('matching at posting', () => {
    /** Registers one settlement on a fresh pair and posts `miss`; the settlement must be unchanged. */
    async function expectNoMatch(over: Record<string, unknown>, miss: (recv: string, counter: string) => unknown[]) {
      const [recv, counter] = await pair();
      const created = await register(c, expectation(recv, over));
      await postOk(c, miss(recv, counter));
      const after = await getSettlement(c, created.settlementId);
      expect(after).toEqual(created);
      return { recv, counter, created };
    }

    /** As `expectNoMatch`; then the exact transfer must still settle it. */
    async function expectNoMatchThenMatch(over: Record<string, unknown>, miss: (recv: string, counter: string) => unknown[], exact: (recv: string, counter: string) => unknown[]) {
      const { recv, counter, created } = await expectNoMatch(over, miss);
      const txId = await postOk(c, exact(recv, counter));
      const s = await getSettlement(c, created.settlementId);
      expect(s.status).toBe('SETTLED');
      expect(s.matchedTransactionId).toBe(txId);
    }
    const exact10 = (recv: string, counter: string) => transferLines(recv, counter, { amount: '10' });

    it('a line of another token does not match', async () => {
      await expectNoMatchThenMatch({}, (r, k) => transferLines(r, k, { amount: '10', token: 'USDT' }), exact10);
    });

    it('a line of another amount does not match (one minor unit more or less)', async () => {
      await expectNoMatchThenMatch(
        {},
        (r, k) => [...transferLines(r, k, { amount: '10.000001' }), ...transferLines(r, k, { amount: '9.999999' })],
        exact10,
      );
    });

    it('a line on another chain does not match', async () => {
      await expectNoMatchThenMatch({}, (r, k) => transferLines(r, k, { amount: '10', chainId: 'SOLANA' }), exact10);
    });

    it('a line to another wallet does not match', async () => {
      await expectNoMatchThenMatch({}, (r, k) => transferLines(r, k, { amount: '10', walletAddress: EVM_2 }), exact10);
    });

    it('a CREDIT line on the settlement account does not match', async () => {
      await expectNoMatchThenMatch(
        {},
        (r, k) => {
          const [debit, credit] = transferLines(k, r, { amount: '10' }); // DEBIT on counter, CREDIT on the settlement account
          return [debit, credit];
        },
        exact10,
      );
    });

    it('a DEBIT line on another account of the tenant does not match', async () => {
      const third = await makeAccount(c, { name: 'third' });
      await expectNoMatchThenMatch({}, (_r, k) => transferLines(third, k, { amount: '10' }), exact10);
    });

    it('a FIAT line of the same amount does not match', async () => {
      await expectNoMatchThenMatch(
        {},
        (r, k) => [
          { accountId: r, entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount: '10', currency: 'USD', rail: 'ACH' } },
          { accountId: k, entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount: '10', currency: 'USD', rail: 'ACH' } },
        ],
        exact10,
      );
    });

    it('an EVM wallet differing only in letter case matches (both directions)', async () => {
      const [recv, counter] = await pair();
      const checksummed = await register(c, expectation(recv, { expectedWalletAddress: EVM_CHECKSUMMED }));
      const tx1 = await postOk(c, transferLines(recv, counter, { amount: '10', walletAddress: EVM_CHECKSUMMED.toLowerCase() }));
      expect(await getSettlement(c, checksummed.settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: tx1 });

      const [recv2, counter2] = await pair();
      const lower = await register(c, expectation(recv2, { expectedWalletAddress: EVM_CHECKSUMMED.toLowerCase() }));
      const tx2 = await postOk(c, transferLines(recv2, counter2, { amount: '10', walletAddress: EVM_CHECKSUMMED }));
      expect(await getSettlement(c, lower.settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: tx2 });
    });

    it('SOLANA and TRON wallets match when exactly equal', async () => {
      const [recv, counter] = await pair();
      const sol = await register(c, expectation(recv, { expectedChainId: 'SOLANA', expectedWalletAddress: SOL, expectedToken: 'PYUSD' }));
      await postOk(c, transferLines(recv, counter, { amount: '10', token: 'PYUSD', chainId: 'SOLANA', walletAddress: SOL_2 }));
      expect((await getSettlement(c, sol.settlementId)).status).toBe('PENDING');
      const solTx = await postOk(c, transferLines(recv, counter, { amount: '10', token: 'PYUSD', chainId: 'SOLANA', walletAddress: SOL }));
      expect(await getSettlement(c, sol.settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: solTx });

      const tron = await register(c, expectation(recv, { expectedChainId: 'TRON', expectedWalletAddress: TRON, expectedToken: 'USDT' }));
      const tronTx = await postOk(c, transferLines(recv, counter, { amount: '10', token: 'USDT', chainId: 'TRON', walletAddress: TRON }));
      expect(await getSettlement(c, tron.settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: tronTx });
    });

    it('amounts compare by value: "10.5" is matched by 10.50, and "10.50" by 10.5', async () => {
      const [recv, counter] = await pair();
      const a = await register(c, expectation(recv, { expectedAmount: '10.5' }));
      const txA = await postOk(c, transferLines(recv, counter, { amount: '10.50' }));
      expect(await getSettlement(c, a.settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: txA, expectedAmount: '10.5' });

      const [recv2, counter2] = await pair();
      const b = await register(c, expectation(recv2, { expectedAmount: '10.50' }));
      const txB = await postOk(c, transferLines(recv2, counter2, { amount: 10.5 }));
      expect(await getSettlement(c, b.settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: txB, expectedAmount: '10.50' });
    });

    it('a settlement with expectedFromAddress is not matched by a posting', async () => {
      await expectNoMatch({ expectedFromAddress: EVM_2 }, exact10);
    });

    it('of two identical PENDING settlements the oldest wins; the second stays PENDING until a second transfer', async () => {
      const [recv, counter] = await pair();
      const older = await register(c, expectation(recv));
      const newer = await register(c, expectation(recv));
      const tx1 = await postOk(c, exact10(recv, counter));
      expect(await getSettlement(c, older.settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: tx1 });
      expect(await getSettlement(c, newer.settlementId)).toEqual(newer);
      const tx2 = await postOk(c, exact10(recv, counter));
      expect(await getSettlement(c, newer.settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: tx2 });
      expect((await getSettlement(c, older.settlementId)).matchedTransactionId).toBe(tx1);
    });

    it('one transaction with two matching lines settles two settlements, each from its own line', async () => {
      const [recv, counter] = await pair();
      const s1 = await register(c, expectation(recv));
      const s2 = await register(c, expectation(recv));
      const h1 = newTxHash();
      const h2 = newTxHash();
      const [d1] = transferLines(recv, counter, { amount: '10', txHash: h1, blockNumber: 7 });
      const [d2] = transferLines(recv, counter, { amount: '10', txHash: h2, blockNumber: 8 });
      const credit = onchain(counter, 'CREDIT', '20', 'USDC', { chainId: 'EVM', walletAddress: EVM_1, txHash: h1, blockNumber: 7 });
      const txId = await postOk(c, [d1, d2, credit]);
      const a = await getSettlement(c, s1.settlementId);
      const b = await getSettlement(c, s2.settlementId);
      expect(a).toMatchObject({ status: 'SETTLED', matchedTransactionId: txId });
      expect(b).toMatchObject({ status: 'SETTLED', matchedTransactionId: txId });
      expect([a.txHash, b.txHash].sort()).toEqual([h1, h2].sort());
      expect(a.blockNumber).toBe(a.txHash === h1 ? 7 : 8);
      expect(b.blockNumber).toBe(b.txHash === h1 ? 7 : 8);
    });

    it('one line settles at most one settlement', async () => {
      const [recv, counter] = await pair();
      const s1 = await register(c, expectation(recv));
      const s2 = await register(c, expectation(recv));
      const s3 = await register(c, expectation(recv));
      const txId = await postOk(c, transferLines(recv, counter, { amount: '10' }));
      const states = await Promise.all([s1, s2, s3].map((s) => getSettlement(c, s.settlementId)));
      expect(states.map((s) => s.status)).toEqual(['SETTLED', 'PENDING', 'PENDING']);
      expect(states[0].matchedTransactionId).toBe(txId);
    });

    it('concurrent matching postings race for one settlement: all 201, exactly one becomes matchedTransactionId', async () => {
      const [recv, counter] = await pair();
      const created = await register(c, expectation(recv, { expectedAmount: '77' }));
      const results = await Promise.all(Array.from({ length: 10 }, () => post(c, transferLines(recv, counter, { amount: '77' }))));
      for (const r of results) expect(r.status, r.text).toBe(201);
      const txIds = results.map((r) => r.body.transactionId as string);
      expect(new Set(txIds).size).toBe(10);
      const s = await getSettlement(c, created.settlementId);
      expect(s.status).toBe('SETTLED');
      expect(txIds).toContain(s.matchedTransactionId);
      // and it stays bound to that one transaction
      expect((await getSettlement(c, created.settlementId)).matchedTransactionId).toBe(s.matchedTransactionId);
    });

    it('concurrent matching postings settle as many settlements as there are, each by a different transaction', async () => {
      const [recv, counter] = await pair();
      const created: any[] = [];
      for (let i = 0; i < 3; i++) created.push(await register(c, expectation(recv, { expectedAmount: '5' })));
      const results = await Promise.all(Array.from({ length: 8 }, () => post(c, transferLines(recv, counter, { amount: '5' }))));
      for (const r of results) expect(r.status, r.text).toBe(201);
      const states = await Promise.all(created.map((s) => getSettlement(c, s.settlementId)));
      for (const s of states) expect(s.status).toBe('SETTLED');
      const matched = states.map((s) => s.matchedTransactionId);
      expect(new Set(matched).size).toBe(3);
      for (const m of matched) expect(results.map((r) => r.body.transactionId)).toContain(m);
    });
  });

  describe('expiry (server started with settlementTtlSeconds: 1)', () => {
    let cs: Client;

    const ts = useServerWithAccounts({ settlementTtlSeconds: 1 });
    beforeAll(() => {
      cs = ts.client;
    });

    async function shortPair(): Promise<[string, string]> {
      return [await makeAccount(cs, { name: 'recv' }), await makeAccount(cs, { name: 'counter', type: 'LIABILITY' })];
    }

    /** A settlement of this test's own, registered and left to expire: its UNMATCHED body and its account. */
    async function expiredSettlement(): Promise<any> {
      const [recv] = await shortPair();
      const created = await register(cs, expectation(recv));
      const s = await waitWhilePending(cs, created.settlementId);
      expect(s.status).toBe('UNMATCHED');
      return { ...s, recv };
    }

    it('expiresAt = createdAt + 1 s; past it, PENDING becomes UNMATCHED within a few seconds, expiresAt key gone, confirmedAt null', async () => {
      const [recv] = await shortPair();
      const created = await register(cs, expectation(recv));
      expect(Date.parse(created.expiresAt) - Date.parse(created.createdAt)).toBe(1000);
      const s = await waitWhilePending(cs, created.settlementId);
      expect(s.status).toBe('UNMATCHED');
      expect(Object.keys(s).sort()).toEqual(FINAL_KEYS);
      expect(s).not.toHaveProperty('expiresAt');
      expect(s.confirmedAt).toBeNull();
      expect(s.matchedTransactionId).toBeNull();
      expect(s.txHash).toBeNull();
      expect(s.blockNumber).toBeNull();
      expect(s.createdAt).toBe(created.createdAt);
      expect(ids(await allSettlements(cs, 'status=UNMATCHED'))).toContain(created.settlementId);
    });

    it('DELETE on an UNMATCHED settlement → 409 CONFLICT, unchanged', async () => {
      const expired = await expiredSettlement();
      expectError(await cs.del(`/api/v1/settlements/${expired.settlementId}`), 409, 'CONFLICT');
      const { recv: _recv, ...s } = expired;
      expect(await getSettlement(cs, expired.settlementId)).toEqual(s);
    });

    it('a matching posting does not settle an UNMATCHED settlement', async () => {
      const expired = await expiredSettlement();
      const counter = await makeAccount(cs, { name: 'counter', type: 'LIABILITY' });
      await postOk(cs, transferLines(expired.recv, counter, { amount: '10' }));
      const s = await getSettlement(cs, expired.settlementId);
      expect(s.status).toBe('UNMATCHED');
      expect(s.matchedTransactionId).toBeNull();
    });
  });

  describe('expiry on a moved clock (settlementTtlSeconds: 1)', () => {
    let cs: Client;
    let nowMs = Date.now();
    const clock = { now: () => new Date(nowMs) };

    const ts = useServerWithAccounts({ settlementTtlSeconds: 1, clock });
    beforeAll(async () => {
      cs = ts.client;
      // After the tenant the CLI made on the real clock: commit times never go back, so the test's clock starts later.
      nowMs = Date.now() + 1000;
    });

    it('SETTLED and CANCELLED settlements never become UNMATCHED; a PENDING one beside them does', async () => {
      const recv = await makeAccount(cs, { name: 'recv' });
      const counter = await makeAccount(cs, { name: 'counter', type: 'LIABILITY' });
      const toSettle = await register(cs, expectation(recv, { expectedAmount: '1' }));
      const toCancel = await register(cs, expectation(recv, { expectedAmount: '2' }));
      const control = await register(cs, expectation(recv, { expectedAmount: '3' }));
      // The clock stands still: all three are well before their expiry when settled and cancelled.
      await postOk(cs, transferLines(recv, counter, { amount: '1' }));
      const cancel = await cs.del(`/api/v1/settlements/${toCancel.settlementId}`);
      expect(cancel.status, cancel.text).toBe(200);
      const settled = await getSettlement(cs, toSettle.settlementId);
      const cancelled = await getSettlement(cs, toCancel.settlementId);
      expect(settled.status).toBe('SETTLED');
      expect(cancelled.status).toBe('CANCELLED');

      nowMs += 2_000; // past every expiresAt: the sweeper expires what is still PENDING
      expect((await waitWhilePending(cs, control.settlementId)).status).toBe('UNMATCHED');
      expect(await getSettlement(cs, toSettle.settlementId)).toEqual(settled);
      expect(await getSettlement(cs, toCancel.settlementId)).toEqual(cancelled);
    });
  });
});

