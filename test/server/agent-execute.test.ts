// POST /api/v1/agent/transactions under policy rules — black-box, per contract (Agents and policy rules) and the
// issue-5 decisions. Rules are scoped to one agent key (agentKeyPrefix = its raw key) so tests do not meet each
// other's rules; rules without a prefix are tried in a tenant of their own.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS, UUID } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';
import { AGENT_PATH, balanceOf, createRule, execute, exportAudit, fresh, newKey, RULES_PATH, type Key } from '../helpers/agents.js';

const usd = (d: string, c: string, amount: string) => [fiat(d, 'DEBIT', amount), fiat(c, 'CREDIT', amount)];
const eur = (d: string, c: string, amount: string) => [fiat(d, 'DEBIT', amount, 'EUR'), fiat(c, 'CREDIT', amount, 'EUR')];
const tok = (d: string, c: string, amount: string, token = 'USDC', extra: Record<string, unknown> = {}) => [
  onchain(d, 'DEBIT', amount, token, extra),
  onchain(c, 'CREDIT', amount, token, extra),
];

/** A USD ASSET account and a USD LIABILITY account. */
async function usdPair(c: Client): Promise<[string, string]> {
  return [await makeAccount(c, { name: 'agent cash', currency: 'USD', type: 'ASSET' }), await makeAccount(c, { name: 'agent payable', currency: 'USD', type: 'LIABILITY' })];
}

function expectViolation(res: { status: number; body: any; text: string }, ruleId: string) {
  expectError(res, 422, 'POLICY_VIOLATION');
  expect(res.body.ruleId, res.text).toBe(ruleId);
}

describe('agent execute', () => {
  let admin: Client;
  let a: string; // USD ASSET
  let b: string; // USD LIABILITY
  let ea: string; // EUR ASSET
  let eb: string; // EUR LIABILITY

  const agent = (extra: string[] = []) => newKey(admin, t.url, ['AGENTS_EXECUTE', ...extra]);
  /** A rule that applies to this key only. */
  const ruleFor = (k: Key, body: Record<string, unknown>) => createRule(admin, { ...body, agentKeyPrefix: k.rawKey });
  const agentRecord = async (id: string) => {
    const res = await admin.get(`${AGENT_PATH}/${id}`);
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  const t = useServerWithAccounts();
  beforeAll(async () => {
    admin = t.client;
    [a, b] = await usdPair(admin);
    ea = await makeAccount(admin, { name: 'eur cash', currency: 'EUR', type: 'ASSET' });
    eb = await makeAccount(admin, { name: 'eur payable', currency: 'EUR', type: 'LIABILITY' });
  });

  describe('without rules', () => {
    it('201 {transactionId, status: POSTED}; the transaction is posted and readable', async () => {
      const k = await agent();
      const [x, y] = await usdPair(admin);
      const res = await execute(k.c, usd(x, y, '12.34'), { metadata: { order: '7' } });
      expect(res.status, res.text).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['status', 'transactionId']);
      expect(res.body.status).toBe('POSTED');
      expect(res.body.transactionId).toMatch(UUID);
      const got = await admin.get(`/api/v1/transactions/${res.body.transactionId}`);
      expect(got.status, got.text).toBe(200);
      expect(got.body.metadata).toEqual({ order: '7' });
      expect(got.body.lines).toHaveLength(2);
      expect(await balanceOf(admin, x)).toBe(12.34);
      expect(await balanceOf(admin, y)).toBe(12.34);
      const rec = await agentRecord(res.body.transactionId);
      expect(rec).toMatchObject({ id: res.body.transactionId, status: 'POSTED', sessionId: 'session-default', actorKeyId: k.id });
    });

    it('an ADMIN key may execute', async () => {
      const res = await execute(admin, usd(a, b, '1'));
      expect(res.status, res.text).toBe(201);
      expect(res.body.status).toBe('POSTED');
    });

    it('a key without AGENTS_EXECUTE (TRANSACTIONS_WRITE only) → 403', async () => {
      const human = await newKey(admin, t.url, ['TRANSACTIONS_WRITE']);
      expectError(await execute(human.c, usd(a, b, '1')), 403, 'FORBIDDEN');
    });

    it('the usual 422s still apply: UNBALANCED, ACCOUNT_NOT_FOUND', async () => {
      const k = await agent();
      expectError(await execute(k.c, [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '0.99')]), 422, 'UNBALANCED');
      expectError(await execute(k.c, usd(a, randomUUID(), '1')), 422, 'ACCOUNT_NOT_FOUND');
    });

    it('a malformed body → 400 VALIDATION_FAILED', async () => {
      const k = await agent();
      expectValidation(await execute(k.c, [fiat(a, 'DEBIT', '1')]));
      expectValidation(await execute(k.c, usd(a, b, '1.001')));
    });
  });

  describe('X-Agent-Session-Id', () => {
    it('missing → 400', async () => {
      const k = await agent();
      expectValidation(await execute(k.c, usd(a, b, '1'), { session: null }));
    });
    it('empty → 400', async () => {
      const k = await agent();
      expectValidation(await execute(k.c, usd(a, b, '1'), { session: '' }));
    });
    it('256 characters → 400', async () => {
      const k = await agent();
      expectValidation(await execute(k.c, usd(a, b, '1'), { session: 's'.repeat(256) }));
    });
    it('255 characters → 201, kept on the record', async () => {
      const k = await agent();
      const session = randomUUID().padEnd(255, 's');
      const res = await execute(k.c, usd(a, b, '1'), { session });
      expect(res.status, res.text).toBe(201);
      expect((await agentRecord(res.body.transactionId)).sessionId).toBe(session);
    });
    it('a refused header writes nothing', async () => {
      const k = await agent();
      const [x, y] = await usdPair(admin);
      expectValidation(await execute(k.c, usd(x, y, '1'), { session: '' }));
      expectValidation(await execute(k.c, usd(x, y, '1'), { session: null }));
      expect(await balanceOf(admin, x)).toBe(0);
    });
  });

  describe('Idempotency-Key', () => {
    it('missing, empty or 256 characters → 400 VALIDATION_FAILED', async () => {
      const k = await agent();
      expectValidation(await execute(k.c, usd(a, b, '1'), { key: null }));
      expectValidation(await execute(k.c, usd(a, b, '1'), { key: '' }));
      expectValidation(await execute(k.c, usd(a, b, '1'), { key: 'k'.repeat(256) }));
    });

    it('same key and body → the original 201 again, byte for byte, posted once', async () => {
      const k = await agent();
      const [x, y] = await usdPair(admin);
      const key = fresh('idem');
      const first = await execute(k.c, usd(x, y, '5'), { key });
      const second = await execute(k.c, usd(x, y, '5'), { key });
      expect(first.status, first.text).toBe(201);
      expect(second.status).toBe(201);
      expect(second.text).toBe(first.text);
      expect(await balanceOf(admin, x)).toBe(5);
    });

    it('a replayed 202 answers the original 202 body, and holds only once', async () => {
      const k = await agent();
      await ruleFor(k, { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '10' });
      const key = fresh('idem');
      const session = fresh('s');
      const first = await execute(k.c, usd(a, b, '20'), { key, session });
      expect(first.status, first.text).toBe(202);
      expect(first.body).toEqual({ transactionId: first.body.transactionId, status: 'PENDING_APPROVAL' });
      const second = await execute(k.c, usd(a, b, '20'), { key, session });
      expect(second.status).toBe(202);
      expect(second.text).toBe(first.text);
      const pending = (await walkPages(admin, `${AGENT_PATH}?status=PENDING_APPROVAL`, { limit: 200 })).items.filter((r) => r.actorKeyId === k.id);
      expect(pending.map((r) => r.id)).toEqual([first.body.transactionId]);
    });

    it('same key with a different body → 422 IDEMPOTENCY_KEY_REUSED, nothing more written', async () => {
      const k = await agent();
      const [x, y] = await usdPair(admin);
      const key = fresh('idem');
      expect((await execute(k.c, usd(x, y, '5'), { key })).status).toBe(201);
      expectError(await execute(k.c, usd(x, y, '6'), { key }), 422, 'IDEMPOTENCY_KEY_REUSED');
      expectError(await execute(k.c, usd(x, y, '5'), { key, metadata: { a: 'b' } }), 422, 'IDEMPOTENCY_KEY_REUSED');
      expect(await balanceOf(admin, x)).toBe(5);
    });

    it('keys are per endpoint: the same key on POST /api/v1/transactions is a different request', async () => {
      const k = await agent(['TRANSACTIONS_WRITE']);
      const key = fresh('idem');
      const human = await post(k.c, usd(a, b, '1'), { key });
      const agentRes = await execute(k.c, usd(a, b, '2'), { key });
      expect(human.status, human.text).toBe(201);
      expect(agentRes.status, agentRes.text).toBe(201);
      expect(agentRes.body.transactionId).not.toBe(human.body.transactionId);
    });
  });

  describe('MAX_DEBIT_PER_SESSION', () => {
    it('a total equal to the limit passes; one minor unit more → 422 POLICY_VIOLATION with ruleId', async () => {
      const k = await agent();
      const rule = await ruleFor(k, { type: 'MAX_DEBIT_PER_SESSION', amount: '100' });
      const session = fresh('s');
      expect((await execute(k.c, usd(a, b, '60'), { session })).status).toBe(201);
      expect((await execute(k.c, usd(a, b, '40'), { session })).status).toBe(201);
      const res = await execute(k.c, usd(a, b, '0.01'), { session });
      expectViolation(res, rule.id);
      expect(Object.keys(res.body)).toEqual(expect.arrayContaining(['message', 'code', 'ruleId']));
    });

    it('sums the DEBIT lines of one transaction: 50 + 50.01 refused, 50 + 50 passes', async () => {
      const k = await agent();
      const rule = await ruleFor(k, { type: 'MAX_DEBIT_PER_SESSION', amount: '100' });
      const over = [fiat(a, 'DEBIT', '50'), fiat(a, 'DEBIT', '50.01'), fiat(b, 'CREDIT', '100.01')];
      expectViolation(await execute(k.c, over, { session: fresh('s') }), rule.id);
      const at = [fiat(a, 'DEBIT', '50'), fiat(a, 'DEBIT', '50'), fiat(b, 'CREDIT', '100')];
      expect((await execute(k.c, at, { session: fresh('s') })).status).toBe(201);
    });

    it('each asset is compared separately: USD debits do not count toward EUR or USDC', async () => {
      const k = await agent();
      const rule = await ruleFor(k, { type: 'MAX_DEBIT_PER_SESSION', amount: '100' });
      const session = fresh('s');
      expect((await execute(k.c, usd(a, b, '100'), { session })).status).toBe(201);
      expect((await execute(k.c, eur(ea, eb, '100'), { session })).status).toBe(201);
      expect((await execute(k.c, tok(a, b, '100'), { session })).status).toBe(201);
      expectViolation(await execute(k.c, usd(a, b, '0.01'), { session }), rule.id);
      expectViolation(await execute(k.c, eur(ea, eb, '0.01'), { session }), rule.id);
      expectViolation(await execute(k.c, tok(a, b, '0.000001'), { session }), rule.id);
      expect((await execute(k.c, tok(a, b, '100', 'USDT'), { session })).status).toBe(201);
      // one transaction with 100 of two assets passes too
      expect((await execute(k.c, [...usd(a, b, '100'), ...eur(ea, eb, '100')], { session: fresh('s') })).status).toBe(201);
    });

    it('counts only the same key and session: another session passes, another key passes', async () => {
      const g = await createTenant(t.dbPath, 'Global rules');
      const gAdmin = client(t.url, g.apiKey.rawKey);
      const [x, y] = await usdPair(gAdmin);
      const k1 = await newKey(gAdmin, t.url, ['AGENTS_EXECUTE']);
      const k2 = await newKey(gAdmin, t.url, ['AGENTS_EXECUTE']);
      const rule = await createRule(gAdmin, { type: 'MAX_DEBIT_PER_SESSION', amount: '100' });
      expect(rule.agentKeyPrefix).toBeNull();
      expect((await execute(k1.c, usd(x, y, '100'), { session: 'one' })).status).toBe(201);
      expectViolation(await execute(k1.c, usd(x, y, '0.01'), { session: 'one' }), rule.id);
      expect((await execute(k1.c, usd(x, y, '100'), { session: 'two' })).status).toBe(201);
      expect((await execute(k2.c, usd(x, y, '100'), { session: 'one' })).status).toBe(201);
      expectViolation(await execute(k2.c, usd(x, y, '0.01'), { session: 'one' }), rule.id);
      // a rule without prefix in that tenant does not reach this tenant's agents
      const mine = await agent();
      expect((await execute(mine.c, usd(a, b, '150'), { session: 'one' })).status).toBe(201);
    });

    it('held transactions count; rejected ones do not', async () => {
      const k = await agent();
      const human = await newKey(admin, t.url, ['TRANSACTIONS_WRITE']);
      await ruleFor(k, { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '50' });
      const session = await ruleFor(k, { type: 'MAX_DEBIT_PER_SESSION', amount: '100' });
      const s1 = fresh('s');
      const held = await execute(k.c, usd(a, b, '60'), { session: s1 });
      expect(held.status, held.text).toBe(202);
      expectViolation(await execute(k.c, usd(a, b, '40.01'), { session: s1 }), session.id);
      expect((await execute(k.c, usd(a, b, '40'), { session: s1 })).status).toBe(201);

      const s2 = fresh('s');
      const h1 = await execute(k.c, usd(a, b, '60'), { session: s2 });
      expect(h1.status).toBe(202);
      const rej = await human.c.post(`${AGENT_PATH}/${h1.body.transactionId}/reject`);
      expect(rej.status, rej.text).toBe(200);
      // the rejected 60 no longer counts: another 60 is held, not refused
      const h2 = await execute(k.c, usd(a, b, '60'), { session: s2 });
      expect(h2.status, h2.text).toBe(202);
      expectViolation(await execute(k.c, usd(a, b, '40.01'), { session: s2 }), session.id);
      expect((await execute(k.c, usd(a, b, '40'), { session: s2 })).status).toBe(201);
    });

    it('rolled back transactions still count', async () => {
      const k = await agent(['AGENTS_ROLLBACK']);
      const rule = await ruleFor(k, { type: 'MAX_DEBIT_PER_SESSION', amount: '100' });
      const session = fresh('s');
      const first = await execute(k.c, usd(a, b, '100'), { session });
      expect(first.status).toBe(201);
      const rb = await k.c.post(`${AGENT_PATH}/${first.body.transactionId}/rollback`);
      expect(rb.status, rb.text).toBe(201);
      expectViolation(await execute(k.c, usd(a, b, '0.01'), { session }), rule.id);
    });
  });

  describe('MAX_DEBIT_PER_HOUR', () => {
    it('counts the key across sessions; at the limit passes, one minor unit more refused', async () => {
      const k = await agent();
      const rule = await ruleFor(k, { type: 'MAX_DEBIT_PER_HOUR', amount: '100' });
      expect((await execute(k.c, usd(a, b, '60'), { session: fresh('s') })).status).toBe(201);
      expect((await execute(k.c, usd(a, b, '40'), { session: fresh('s') })).status).toBe(201);
      expectViolation(await execute(k.c, usd(a, b, '0.01'), { session: fresh('s') }), rule.id);
      // other assets are unaffected
      expect((await execute(k.c, eur(ea, eb, '100'), { session: fresh('s') })).status).toBe(201);
      expect((await execute(k.c, tok(a, b, '100', 'PYUSD'), { session: fresh('s') })).status).toBe(201);
      expectViolation(await execute(k.c, tok(a, b, '100.000001', 'BRZ'), { session: fresh('s') }), rule.id);
    });

    it('counts only the same key (a rule without prefix)', async () => {
      const g = await createTenant(t.dbPath, 'Hourly');
      const gAdmin = client(t.url, g.apiKey.rawKey);
      const [x, y] = await usdPair(gAdmin);
      const k1 = await newKey(gAdmin, t.url, ['AGENTS_EXECUTE']);
      const k2 = await newKey(gAdmin, t.url, ['AGENTS_EXECUTE']);
      const rule = await createRule(gAdmin, { type: 'MAX_DEBIT_PER_HOUR', amount: '100' });
      expect((await execute(k1.c, usd(x, y, '100'))).status).toBe(201);
      expectViolation(await execute(k1.c, usd(x, y, '0.01'), { session: 'other' }), rule.id);
      expect((await execute(k2.c, usd(x, y, '100'))).status).toBe(201);
    });
  });

  describe('agentKeyPrefix', () => {
    it('a rule applies when the raw key starts with the prefix, not to a key with another prefix', async () => {
      const k1 = await agent();
      const k2 = await agent();
      let n = 16;
      while (k1.rawKey.slice(0, n) === k2.rawKey.slice(0, n)) n++;
      const rule1 = await createRule(admin, { type: 'MAX_DEBIT_PER_SESSION', amount: '1', agentKeyPrefix: k1.rawKey.slice(0, n) });
      expectViolation(await execute(k1.c, usd(a, b, '2'), { session: fresh('s') }), rule1.id);
      expect((await execute(k2.c, usd(a, b, '2'), { session: fresh('s') })).status).toBe(201);
      // a prefix taken from another key does not match
      const k3 = await agent();
      let m = 16;
      while (k3.rawKey.slice(0, m) === k2.rawKey.slice(0, m)) m++;
      const rule3 = await createRule(admin, { type: 'ALLOWED_TOKENS', tokens: ['BRZ'], agentKeyPrefix: k3.rawKey.slice(0, m) });
      expect((await execute(k2.c, tok(a, b, '1', 'USDC'), { session: fresh('s') })).status).toBe(201);
      expectViolation(await execute(k3.c, tok(a, b, '1', 'USDC'), { session: fresh('s') }), rule3.id);
    });

    it('the 12-character visible prefix of a key matches that key', async () => {
      const k = await agent();
      expect(k.prefix).toBe(k.rawKey.slice(0, 12));
      const rule = await createRule(admin, { type: 'FORBIDDEN_ACCOUNT_PAIR', debitAccountId: ea, creditAccountId: eb, agentKeyPrefix: k.prefix });
      expectViolation(await execute(k.c, eur(ea, eb, '1')), rule.id);
      expect((await admin.del(`${RULES_PATH}/${rule.id}`)).status).toBe(204);
    });
  });

  describe('REQUIRE_HUMAN_APPROVAL_ABOVE', () => {
    it('at the amount posts; one minor unit above is held (202), balances unchanged, not readable as a transaction', async () => {
      const k = await agent();
      await ruleFor(k, { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '100' });
      const [x, y] = await usdPair(admin);
      expect((await execute(k.c, usd(x, y, '100'))).status).toBe(201);
      const held = await execute(k.c, usd(x, y, '100.01'));
      expect(held.status, held.text).toBe(202);
      expect(held.body).toEqual({ transactionId: held.body.transactionId, status: 'PENDING_APPROVAL' });
      expect(await balanceOf(admin, x)).toBe(100);
      expectError(await admin.get(`/api/v1/transactions/${held.body.transactionId}`), 404, 'NOT_FOUND');
      expect((await agentRecord(held.body.transactionId)).status).toBe('PENDING_APPROVAL');
    });

    it('per asset: 100 USD + 100 EUR in one transaction posts; 100.000001 USDC is held', async () => {
      const k = await agent();
      await ruleFor(k, { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '100' });
      expect((await execute(k.c, [...usd(a, b, '100'), ...eur(ea, eb, '100')])).status).toBe(201);
      expect((await execute(k.c, tok(a, b, '100.000001'))).status).toBe(202);
    });

    it('refusals win over holds, and the oldest refusing rule is named', async () => {
      const k = await agent();
      await ruleFor(k, { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '10' });
      const hour = await ruleFor(k, { type: 'MAX_DEBIT_PER_HOUR', amount: '50' });
      await ruleFor(k, { type: 'MAX_DEBIT_PER_SESSION', amount: '50' });
      expectViolation(await execute(k.c, usd(a, b, '60'), { session: fresh('s') }), hour.id);

      const k2 = await agent();
      const session2 = await ruleFor(k2, { type: 'MAX_DEBIT_PER_SESSION', amount: '50' });
      await ruleFor(k2, { type: 'MAX_DEBIT_PER_HOUR', amount: '50' });
      await ruleFor(k2, { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '10' });
      expectViolation(await execute(k2.c, usd(a, b, '60'), { session: fresh('s') }), session2.id);
      expect((await execute(k2.c, usd(a, b, '20'), { session: fresh('s') })).status).toBe(202);
    });
  });

  describe('FORBIDDEN_ACCOUNT_PAIR', () => {
    it('refuses a DEBIT on debitAccountId together with a CREDIT on creditAccountId, and nothing else', async () => {
      const k = await agent();
      const [x, y] = await usdPair(admin);
      const z = await makeAccount(admin, { name: 'z', currency: 'USD', type: 'ASSET' });
      const rule = await ruleFor(k, { type: 'FORBIDDEN_ACCOUNT_PAIR', debitAccountId: x, creditAccountId: y });
      expectViolation(await execute(k.c, usd(x, y, '1')), rule.id);
      expect((await execute(k.c, usd(y, x, '1'))).status).toBe(201);
      expect((await execute(k.c, usd(x, z, '1'))).status).toBe(201);
      expect((await execute(k.c, usd(z, y, '1'))).status).toBe(201);
      const together = [fiat(x, 'DEBIT', '1'), fiat(z, 'CREDIT', '1'), fiat(z, 'DEBIT', '2'), fiat(y, 'CREDIT', '2')];
      expectViolation(await execute(k.c, together), rule.id);
      expectViolation(await execute(k.c, tok(x, y, '1')), rule.id);
    });
  });

  describe('ALLOWED_TOKENS and ALLOWED_CHAINS', () => {
    it('ALLOWED_TOKENS refuses ONCHAIN lines of other tokens; FIAT lines are unaffected', async () => {
      const k = await agent();
      const rule = await ruleFor(k, { type: 'ALLOWED_TOKENS', tokens: ['USDC', 'PYUSD'] });
      expect((await execute(k.c, tok(a, b, '1', 'USDC'))).status).toBe(201);
      expect((await execute(k.c, tok(a, b, '1', 'PYUSD'))).status).toBe(201);
      expectViolation(await execute(k.c, tok(a, b, '1', 'USDT')), rule.id);
      expectViolation(await execute(k.c, tok(a, b, '1', 'BRZ')), rule.id);
      expect((await execute(k.c, usd(a, b, '1'))).status).toBe(201);
      expect((await execute(k.c, eur(ea, eb, '1'))).status).toBe(201);
      expectViolation(await execute(k.c, [...tok(a, b, '1', 'USDC'), ...tok(a, b, '1', 'USDT')]), rule.id);
    });

    it('ALLOWED_CHAINS refuses ONCHAIN lines on other chains; FIAT lines are unaffected', async () => {
      const k = await agent();
      const rule = await ruleFor(k, { type: 'ALLOWED_CHAINS', chains: ['EVM'] });
      expect((await execute(k.c, tok(a, b, '1', 'USDC', { chainId: 'EVM' }))).status).toBe(201);
      expectViolation(await execute(k.c, tok(a, b, '1', 'USDC', { chainId: 'SOLANA' })), rule.id);
      expectViolation(await execute(k.c, tok(a, b, '1', 'USDT', { chainId: 'TRON' })), rule.id);
      expectViolation(await execute(k.c, [onchain(a, 'DEBIT', '1', 'USDC', { chainId: 'EVM' }), onchain(b, 'CREDIT', '1', 'USDC', { chainId: 'SOLANA' })]), rule.id);
      expect((await execute(k.c, usd(a, b, '1'))).status).toBe(201);
    });
  });

  describe('a refusal', () => {
    it('changes no balance, posts nothing, records no agent transaction, writes one POLICY_VIOLATION AGENT audit record', async () => {
      const k = await agent();
      const [x, y] = await usdPair(admin);
      const rule = await ruleFor(k, { type: 'MAX_DEBIT_PER_SESSION', amount: '5' });
      const txBefore = (await walkPages(admin, '/api/v1/transactions', { limit: 200 })).items.length;
      const session = fresh('s');
      expectViolation(await execute(k.c, usd(x, y, '6'), { session }), rule.id);
      expect(await balanceOf(admin, x)).toBe(0);
      expect(await balanceOf(admin, y)).toBe(0);
      expect((await walkPages(admin, '/api/v1/transactions', { limit: 200 })).items.length).toBe(txBefore);
      expect((await walkPages(admin, AGENT_PATH, { limit: 200 })).items.filter((r) => r.actorKeyId === k.id)).toEqual([]);

      const audit = await admin.get('/api/v1/agent/audit?limit=5');
      expect(audit.status, audit.text).toBe(200);
      const mine = audit.body.items.filter((r: any) => r.actorKeyId === k.id);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ type: 'AGENT', action: 'POLICY_VIOLATION', payload: { ruleId: rule.id, ruleType: 'MAX_DEBIT_PER_SESSION', sessionId: session } });
      expect(typeof mine[0].payload.reason).toBe('string');
      expect(mine[0].occurredAt).toMatch(ISO_MS);
      const exported = (await exportAudit(admin, 'AGENT')).filter((r) => r.id === mine[0].id);
      expect(exported).toHaveLength(1);
      expect(exported[0]!.action).toBe('POLICY_VIOLATION');
    });

    it('does not consume the Idempotency-Key; deleting the rule takes effect on the next request', async () => {
      const k = await agent();
      const [x, y] = await usdPair(admin);
      const rule = await ruleFor(k, { type: 'MAX_DEBIT_PER_SESSION', amount: '1' });
      const key = fresh('idem');
      expectViolation(await execute(k.c, usd(x, y, '2'), { key }), rule.id);
      expectViolation(await execute(k.c, usd(x, y, '2'), { key }), rule.id);
      expect((await admin.del(`${RULES_PATH}/${rule.id}`)).status).toBe(204);
      const res = await execute(k.c, usd(x, y, '2'), { key });
      expect(res.status, res.text).toBe(201);
      expect(await balanceOf(admin, x)).toBe(2);
    });

    it('a rule created between two requests applies to the second', async () => {
      const k = await agent();
      expect((await execute(k.c, tok(a, b, '1', 'USDT'))).status).toBe(201);
      const rule = await ruleFor(k, { type: 'ALLOWED_TOKENS', tokens: ['USDC'] });
      expectViolation(await execute(k.c, tok(a, b, '1', 'USDT')), rule.id);
    });
  });

  describe('concurrency', () => {
    it('MAX_DEBIT_PER_HOUR "100", 50 parallel requests of 10 USD → exactly 10 × 201 and 40 × 422; balance 100', async () => {
      const k = await agent();
      const [x, y] = await usdPair(admin);
      const rule = await ruleFor(k, { type: 'MAX_DEBIT_PER_HOUR', amount: '100' });
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => execute(k.c, usd(x, y, '10'), { key: fresh(`par${i}`), session: `par-${i % 5}` })));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201).length, JSON.stringify(statuses)).toBe(10);
      expect(statuses.filter((s) => s === 422).length, JSON.stringify(statuses)).toBe(40);
      for (const r of results.filter((r) => r.status === 422)) expectViolation(r, rule.id);
      expect(new Set(results.filter((r) => r.status === 201).map((r) => r.body.transactionId)).size).toBe(10);
      expect(await balanceOf(admin, x)).toBe(100);
      expect(await balanceOf(admin, y)).toBe(100);
    });
  });
});

describe('agent execute: the trailing hour, with a moved clock', () => {
  let admin: Client;
  let a: string;
  let b: string;
  let nowMs = Date.now();
  const clock = { now: () => new Date(nowMs) };
  const MIN = 60_000;

  const agent = () => newKey(admin, t.url, ['AGENTS_EXECUTE']);
  const ruleFor = (k: Key, body: Record<string, unknown>) => createRule(admin, { ...body, agentKeyPrefix: k.rawKey });
  const createdAt = async (id: string): Promise<number> => {
    const res = await admin.get(`${AGENT_PATH}/${id}`);
    expect(res.status, res.text).toBe(200);
    return Date.parse(res.body.createdAt);
  };

  const t = useServerWithAccounts({ clock });
  beforeAll(async () => {
    admin = t.client;
    [a, b] = await usdPair(admin);
  });

  it('after 61 minutes the earlier debits no longer count; after 59 they still do', async () => {
    const k = await agent();
    const rule = await ruleFor(k, { type: 'MAX_DEBIT_PER_HOUR', amount: '100' });
    const first = await execute(k.c, usd(a, b, '100'));
    expect(first.status, first.text).toBe(201);
    const t0 = await createdAt(first.body.transactionId);
    expectViolation(await execute(k.c, usd(a, b, '0.01')), rule.id);
    nowMs = t0 + 59 * MIN;
    expectViolation(await execute(k.c, usd(a, b, '0.01')), rule.id);
    nowMs = t0 + 61 * MIN;
    expect((await execute(k.c, usd(a, b, '100'))).status).toBe(201);
    expectViolation(await execute(k.c, usd(a, b, '0.01')), rule.id);
  });

  it('the window holds what was created strictly after now - 60 minutes', async () => {
    const k = await agent();
    const rule = await ruleFor(k, { type: 'MAX_DEBIT_PER_HOUR', amount: '100' });
    nowMs += 5 * MIN;
    const first = await execute(k.c, usd(a, b, '100'));
    expect(first.status, first.text).toBe(201);
    const t0 = await createdAt(first.body.transactionId);
    nowMs = t0 + 60 * MIN - 1;
    expectViolation(await execute(k.c, usd(a, b, '0.01')), rule.id);
    nowMs = t0 + 60 * MIN;
    const again = await execute(k.c, usd(a, b, '100'));
    expect(again.status, again.text).toBe(201);
  });

  it('held transactions count toward the hour; a session limit does not expire', async () => {
    const k = await agent();
    await ruleFor(k, { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '50' });
    const hour = await ruleFor(k, { type: 'MAX_DEBIT_PER_HOUR', amount: '100' });
    const session = await ruleFor(k, { type: 'MAX_DEBIT_PER_SESSION', amount: '150' });
    nowMs += 5 * MIN;
    const held = await execute(k.c, usd(a, b, '60'), { session: 'long' });
    expect(held.status, held.text).toBe(202);
    expectViolation(await execute(k.c, usd(a, b, '40.01'), { session: 'other' }), hour.id);
    nowMs += 61 * MIN;
    expect((await execute(k.c, usd(a, b, '90'), { session: 'long' })).status).toBe(202);
    nowMs += 120 * MIN;
    expectViolation(await execute(k.c, usd(a, b, '0.01'), { session: 'long' }), session.id);
    expect((await execute(k.c, usd(a, b, '0.01'), { session: 'short' })).status).toBe(201);
  });
});
