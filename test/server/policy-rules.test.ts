// POST/GET/DELETE /api/v1/admin/policy-rules — black-box, per spec, contract and the issue-5 decisions (Policy rules).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, scopesExcept, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS, UUID } from '../helpers/expect.js';
import { createRule, exportAudit, newKey, RULES_PATH } from '../helpers/agents.js';

const ALL_BUT_ADMIN = scopesExcept('ADMIN');

describe('policy rules', () => {
  let admin: Client;
  let other: Client;

  const t = useServerWithAccounts();
  beforeAll(async () => {
    admin = t.client;
    const tenant2 = await createTenant(t.dbPath, 'Other');
    other = client(t.url, tenant2.apiKey.rawKey);
  });

  const debitAccountId = randomUUID();
  const creditAccountId = randomUUID();
  const valid: Array<[string, Record<string, unknown>]> = [
    ['MAX_DEBIT_PER_SESSION', { amount: '100' }],
    ['MAX_DEBIT_PER_HOUR', { amount: '2500.50' }],
    ['REQUIRE_HUMAN_APPROVAL_ABOVE', { amount: '0.000001' }],
    ['FORBIDDEN_ACCOUNT_PAIR', { debitAccountId, creditAccountId }],
    ['ALLOWED_TOKENS', { tokens: ['USDC', 'PYUSD'] }],
    ['ALLOWED_CHAINS', { chains: ['SOLANA', 'EVM', 'TRON'] }],
  ];

  describe('POST: each of the six types', () => {
    for (const [type, fields] of valid) {
      it(`${type} → 201 {id, type, agentKeyPrefix: null, params, createdAt} with params exactly its fields`, async () => {
        const res = await admin.post(RULES_PATH, { type, ...fields });
        expect(res.status, res.text).toBe(201);
        expect(Object.keys(res.body).sort()).toEqual(['agentKeyPrefix', 'createdAt', 'id', 'params', 'type']);
        expect(res.body.id).toMatch(UUID);
        expect(res.body.type).toBe(type);
        expect(res.body.agentKeyPrefix).toBeNull();
        expect(res.body.params).toEqual(fields);
        expect(res.body.createdAt).toMatch(ISO_MS);
      });
    }

    it('agentKeyPrefix is kept as given', async () => {
      const res = await admin.post(RULES_PATH, { type: 'MAX_DEBIT_PER_HOUR', amount: '10', agentKeyPrefix: 'sk_live_abcd' });
      expect(res.status, res.text).toBe(201);
      expect(res.body.agentKeyPrefix).toBe('sk_live_abcd');
      expect(res.body.params).toEqual({ amount: '10' });
    });
  });

  describe('POST: 400 VALIDATION_FAILED naming the field', () => {
    const amountRule = (amount: unknown) => ({ type: 'MAX_DEBIT_PER_SESSION', amount });
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['unknown type', { type: 'MAX_CREDIT', amount: '1' }, 'type'],
      ['type missing', { amount: '1' }, 'type'],
      ['amount missing (MAX_DEBIT_PER_SESSION)', { type: 'MAX_DEBIT_PER_SESSION' }, 'amount'],
      ['amount missing (MAX_DEBIT_PER_HOUR)', { type: 'MAX_DEBIT_PER_HOUR' }, 'amount'],
      ['amount missing (REQUIRE_HUMAN_APPROVAL_ABOVE)', { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE' }, 'amount'],
      ['creditAccountId missing', { type: 'FORBIDDEN_ACCOUNT_PAIR', debitAccountId: randomUUID() }, 'creditAccountId'],
      ['debitAccountId missing', { type: 'FORBIDDEN_ACCOUNT_PAIR', creditAccountId: randomUUID() }, 'debitAccountId'],
      ['tokens missing', { type: 'ALLOWED_TOKENS' }, 'tokens'],
      ['chains missing', { type: 'ALLOWED_CHAINS' }, 'chains'],
      ['amount on ALLOWED_TOKENS', { type: 'ALLOWED_TOKENS', tokens: ['USDC'], amount: '5' }, 'amount'],
      ['tokens on MAX_DEBIT_PER_HOUR', { type: 'MAX_DEBIT_PER_HOUR', amount: '5', tokens: ['USDC'] }, 'tokens'],
      ['chains on ALLOWED_TOKENS', { type: 'ALLOWED_TOKENS', tokens: ['USDC'], chains: ['EVM'] }, 'chains'],
      ['debitAccountId on REQUIRE_HUMAN_APPROVAL_ABOVE', { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '5', debitAccountId: randomUUID() }, 'debitAccountId'],
      ['amount on FORBIDDEN_ACCOUNT_PAIR', { type: 'FORBIDDEN_ACCOUNT_PAIR', debitAccountId: randomUUID(), creditAccountId: randomUUID(), amount: '1' }, 'amount'],
      ['unknown field', { type: 'MAX_DEBIT_PER_SESSION', amount: '1', limit: '5' }, 'limit'],
      ['amount "0"', amountRule('0'), 'amount'],
      ['amount "0.00"', amountRule('0.00'), 'amount'],
      ['amount "-1"', amountRule('-1'), 'amount'],
      ['amount "1e3"', amountRule('1e3'), 'amount'],
      ['amount 100 as a number', amountRule(100), 'amount'],
      ['amount ""', amountRule(''), 'amount'],
      ['amount "abc"', amountRule('abc'), 'amount'],
      ['tokens empty', { type: 'ALLOWED_TOKENS', tokens: [] }, 'tokens'],
      ['tokens not an array', { type: 'ALLOWED_TOKENS', tokens: 'USDC' }, 'tokens'],
      ['tokens with an unknown value', { type: 'ALLOWED_TOKENS', tokens: ['USDC', 'DAI'] }, 'tokens'],
      ['tokens duplicated', { type: 'ALLOWED_TOKENS', tokens: ['USDC', 'USDC'] }, 'tokens'],
      ['chains empty', { type: 'ALLOWED_CHAINS', chains: [] }, 'chains'],
      ['chains not an array', { type: 'ALLOWED_CHAINS', chains: 'EVM' }, 'chains'],
      ['chains with an unknown value', { type: 'ALLOWED_CHAINS', chains: ['BITCOIN'] }, 'chains'],
      ['chains duplicated', { type: 'ALLOWED_CHAINS', chains: ['EVM', 'SOLANA', 'EVM'] }, 'chains'],
      ['debitAccountId not a UUID', { type: 'FORBIDDEN_ACCOUNT_PAIR', debitAccountId: 'acct-1', creditAccountId: randomUUID() }, 'debitAccountId'],
      ['creditAccountId not a UUID', { type: 'FORBIDDEN_ACCOUNT_PAIR', debitAccountId: randomUUID(), creditAccountId: '12345' }, 'creditAccountId'],
      ['agentKeyPrefix empty', { type: 'MAX_DEBIT_PER_SESSION', amount: '1', agentKeyPrefix: '' }, 'agentKeyPrefix'],
    ];
    for (const [name, body, field] of cases) {
      it(`${name} → 400 (${field})`, async () => {
        const res = await admin.post(RULES_PATH, body);
        expectValidation(res, { message: field, detail: { path: new RegExp(`^${field}(\\.|$)`) } });
        expect(Array.isArray(res.body.details), res.text).toBe(true);
      });
    }

    it('a body that is not an object → 400', async () => {
      expectValidation(await admin.post(RULES_PATH, ['MAX_DEBIT_PER_SESSION']));
    });

    it('a refused body creates no rule', async () => {
      const before = (await admin.get(RULES_PATH)).body.length;
      expectValidation(await admin.post(RULES_PATH, { type: 'ALLOWED_TOKENS', tokens: ['USDC'], amount: '5' }));
      expectValidation(await admin.post(RULES_PATH, { type: 'MAX_DEBIT_PER_SESSION', amount: '0' }));
      expect((await admin.get(RULES_PATH)).body.length).toBe(before);
    });
  });

  describe('GET and DELETE', () => {
    it('GET → 200 plain array, oldest first, each as created', async () => {
      const a = await createRule(admin, { type: 'MAX_DEBIT_PER_SESSION', amount: '1' });
      const b = await createRule(admin, { type: 'ALLOWED_CHAINS', chains: ['TRON'], agentKeyPrefix: 'sk_live_0000' });
      const c = await createRule(admin, { type: 'FORBIDDEN_ACCOUNT_PAIR', debitAccountId: randomUUID(), creditAccountId: randomUUID() });
      const res = await admin.get(RULES_PATH);
      expect(res.status, res.text).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      const ids = res.body.map((r: any) => r.id);
      const [ia, ib, ic] = [ids.indexOf(a.id), ids.indexOf(b.id), ids.indexOf(c.id)];
      expect(ia).toBeGreaterThanOrEqual(0);
      expect(ib).toBe(ia + 1);
      expect(ic).toBe(ib + 1);
      expect(res.body[ia]).toEqual(a);
      expect(res.body[ib]).toEqual(b);
      expect(res.body[ic]).toEqual(c);
      for (let i = 1; i < res.body.length; i++) expect(res.body[i - 1].createdAt <= res.body[i].createdAt).toBe(true);
    });

    it('DELETE → 204 with an empty body, then the rule is gone and a second DELETE → 404', async () => {
      const rule = await createRule(admin, { type: 'MAX_DEBIT_PER_HOUR', amount: '7' });
      const del = await admin.del(`${RULES_PATH}/${rule.id}`);
      expect(del.status, del.text).toBe(204);
      expect(del.text).toBe('');
      const list = await admin.get(RULES_PATH);
      expect(list.body.map((r: any) => r.id)).not.toContain(rule.id);
      expectError(await admin.del(`${RULES_PATH}/${rule.id}`), 404, 'NOT_FOUND');
    });

    it('DELETE of an unknown rule → 404', async () => {
      expectError(await admin.del(`${RULES_PATH}/${randomUUID()}`), 404, 'NOT_FOUND');
    });

    it("another tenant's rule: not listed, DELETE → 404, and it survives", async () => {
      const theirs = await createRule(other, { type: 'ALLOWED_TOKENS', tokens: ['BRZ'] });
      const mine = await admin.get(RULES_PATH);
      expect(mine.body.map((r: any) => r.id)).not.toContain(theirs.id);
      expectError(await admin.del(`${RULES_PATH}/${theirs.id}`), 404, 'NOT_FOUND');
      const theirList = await other.get(RULES_PATH);
      expect(theirList.body.map((r: any) => r.id)).toContain(theirs.id);
      // and theirs does not see mine
      const m = await createRule(admin, { type: 'ALLOWED_TOKENS', tokens: ['USDT'] });
      expect((await other.get(RULES_PATH)).body.map((r: any) => r.id)).not.toContain(m.id);
    });
  });

  describe('authorization', () => {
    it('a key with every scope but ADMIN → 403 on POST, GET and DELETE', async () => {
      const rule = await createRule(admin, { type: 'MAX_DEBIT_PER_SESSION', amount: '3' });
      const k = await newKey(admin, t.url, ALL_BUT_ADMIN);
      expectError(await k.c.post(RULES_PATH, { type: 'MAX_DEBIT_PER_SESSION', amount: '3' }), 403, 'FORBIDDEN');
      expectError(await k.c.get(RULES_PATH), 403, 'FORBIDDEN');
      expectError(await k.c.del(`${RULES_PATH}/${rule.id}`), 403, 'FORBIDDEN');
      expect((await admin.get(RULES_PATH)).body.map((r: any) => r.id)).toContain(rule.id);
    });

    it('no key → 401', async () => {
      const anon = client(t.url);
      expectError(await anon.post(RULES_PATH, { type: 'MAX_DEBIT_PER_SESSION', amount: '3' }), 401, 'UNAUTHENTICATED');
      expectError(await anon.get(RULES_PATH), 401, 'UNAUTHENTICATED');
    });

    it('a second ADMIN key may manage rules', async () => {
      const k = await newKey(admin, t.url, ['ADMIN']);
      const rule = await createRule(k.c, { type: 'ALLOWED_CHAINS', chains: ['EVM'] });
      expect((await admin.get(RULES_PATH)).body.map((r: any) => r.id)).toContain(rule.id);
      expect((await k.c.del(`${RULES_PATH}/${rule.id}`)).status).toBe(204);
    });
  });

  describe('audit', () => {
    it('CREATE_POLICY_RULE and DELETE_POLICY_RULE records (type HUMAN) name the rule', async () => {
      const rule = await createRule(admin, { type: 'ALLOWED_TOKENS', tokens: ['USDC'], agentKeyPrefix: 'sk_live_ffff' });
      expect((await admin.del(`${RULES_PATH}/${rule.id}`)).status).toBe(204);
      const records = await exportAudit(admin);
      const created = records.filter((r) => r.action === 'CREATE_POLICY_RULE' && r.payload?.ruleId === rule.id);
      const deleted = records.filter((r) => r.action === 'DELETE_POLICY_RULE' && r.payload?.ruleId === rule.id);
      expect(created).toHaveLength(1);
      expect(deleted).toHaveLength(1);
      for (const r of [created[0]!, deleted[0]!]) {
        expect(r.type).toBe('HUMAN');
        expect(r.actorKeyId).toBe(t.tenant.apiKey.id);
        expect(r.occurredAt).toMatch(ISO_MS);
      }
      expect(records.indexOf(created[0]!)).toBeLessThan(records.indexOf(deleted[0]!));
      // neither appears among AGENT records
      const agent = await exportAudit(admin, 'AGENT');
      expect(agent.filter((r) => r.payload?.ruleId === rule.id && (r.action === 'CREATE_POLICY_RULE' || r.action === 'DELETE_POLICY_RULE'))).toHaveLength(0);
    });

    it('refused creations and deletions of unknown rules write no record', async () => {
      const before = (await exportAudit(admin)).filter((r) => r.action === 'CREATE_POLICY_RULE' || r.action === 'DELETE_POLICY_RULE').length;
      expectValidation(await admin.post(RULES_PATH, { type: 'NOPE' }));
      const ghost = randomUUID();
      expectError(await admin.del(`${RULES_PATH}/${ghost}`), 404, 'NOT_FOUND');
      const after = await exportAudit(admin);
      expect(after.filter((r) => r.action === 'CREATE_POLICY_RULE' || r.action === 'DELETE_POLICY_RULE').length).toBe(before);
      expect(after.some((r) => r.payload?.ruleId === ghost)).toBe(false);
    });
  });
});
