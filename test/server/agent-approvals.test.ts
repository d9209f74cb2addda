// Held agent transactions (approve / reject), rollback, and the agent reads (transactions, audit) — black-box, per
// contract (Agents and policy rules, Audit records) and the issue-5 decisions.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, onchain, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS, UUID } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';
import { AGENT_PATH, balanceOf, createRule, execute, exportAudit, fresh, newKey, type Key } from '../helpers/agents.js';

const usd = (d: string, c: string, amount: string) => [fiat(d, 'DEBIT', amount), fiat(c, 'CREDIT', amount)];
const AUDIT_PATH = '/api/v1/agent/audit';
const AUDIT_FIELDS = ['action', 'actorKeyId', 'hash', 'id', 'occurredAt', 'payload', 'prevHash', 'type'];

describe('agent approvals, rollbacks and reads', () => {
  let admin: Client;
  let x: string; // USD ASSET
  let y: string; // USD LIABILITY
  let agent: Key; // AGENTS_EXECUTE only; held above 50
  let human: Key; // TRANSACTIONS_WRITE only
  let roller: Key; // AGENTS_ROLLBACK only
  let reader: Key; // AGENTS_AUDIT_READ only

  const holdFor = (k: Key) => createRule(admin, { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '50', agentKeyPrefix: k.rawKey });
  const record = async (id: string) => {
    const res = await reader.c.get(`${AGENT_PATH}/${id}`);
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const approve = (c: Client, id: string) => c.post(`${AGENT_PATH}/${id}/approve`);
  const reject = (c: Client, id: string) => c.post(`${AGENT_PATH}/${id}/reject`);
  const rollback = (c: Client, id: string) => c.post(`${AGENT_PATH}/${id}/rollback`);
  /** Executes an amount above 50 with the agent key and expects it held. */
  const held = async (amount = '60', k: Key = agent, session = fresh('s')) => {
    const res = await execute(k.c, usd(x, y, amount), { session });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({ transactionId: res.body.transactionId, status: 'PENDING_APPROVAL' });
    return res.body.transactionId as string;
  };
  const posted = async (amount = '10', k: Key = agent) => {
    const res = await execute(k.c, usd(x, y, amount));
    expect(res.status, res.text).toBe(201);
    return res.body.transactionId as string;
  };

  const t = useServerWithAccounts({ accounts: { x: { name: 'cash', type: 'ASSET' }, y: { name: 'payable', type: 'LIABILITY' } } });
  beforeAll(async () => {
    ({ client: admin, accounts: { x, y } } = t);
    agent = await newKey(admin, t.url, ['AGENTS_EXECUTE']);
    human = await newKey(admin, t.url, ['TRANSACTIONS_WRITE']);
    roller = await newKey(admin, t.url, ['AGENTS_ROLLBACK']);
    reader = await newKey(admin, t.url, ['AGENTS_AUDIT_READ']);
    await holdFor(agent);
  });

  describe('holding', () => {
    it('202 PENDING_APPROVAL: no balance change, GET /api/v1/transactions/{id} → 404, the record is PENDING_APPROVAL', async () => {
      const before = await balanceOf(admin, x);
      const session = fresh('s');
      const id = await held('60', agent, session);
      expect(id).toMatch(UUID);
      expect(await balanceOf(admin, x)).toBe(before);
      expectError(await admin.get(`/api/v1/transactions/${id}`), 404, 'NOT_FOUND');
      const rec = await record(id);
      expect(rec).toMatchObject({ id, status: 'PENDING_APPROVAL', sessionId: session, actorKeyId: agent.id, decidedAt: null, reversalTransactionId: null, metadata: {} });
      expect(rec.createdAt).toMatch(ISO_MS);
      expect(rec.lines).toHaveLength(2);
      expect(rec.lines[0]).toMatchObject({ accountId: x, entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', currency: 'USD', rail: 'ACH' } });
      expect(rec.lines[1]).toMatchObject({ accountId: y, entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', currency: 'USD' } });
      expect(Number(rec.lines[0].monetaryEntry.amount)).toBe(60);
    });
  });

  describe('approve and reject', () => {
    it('a human key (TRANSACTIONS_WRITE only) approves → 200 POSTED; posted now under the same id; a second approve → 409', async () => {
      const key = fresh('idem');
      const session = fresh('s');
      const first = await execute(agent.c, usd(x, y, '75.5'), { key, session });
      expect(first.status, first.text).toBe(202);
      const id = first.body.transactionId;
      const before = await balanceOf(admin, x);
      const res = await approve(human.c, id);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ transactionId: id, status: 'POSTED' });
      expect(await balanceOf(admin, x)).toBe(before + 75.5);
      const tx = await admin.get(`/api/v1/transactions/${id}`);
      expect(tx.status, tx.text).toBe(200);
      expect(tx.body.transactionId).toBe(id);
      expect(tx.body.lines).toHaveLength(2);
      const rec = await record(id);
      expect(rec.status).toBe('POSTED');
      expect(rec.decidedAt).toMatch(ISO_MS);
      expectError(await approve(human.c, id), 409, 'CONFLICT');
      expectError(await reject(human.c, id), 409, 'CONFLICT');
      expect(await balanceOf(admin, x)).toBe(before + 75.5);
      // the Idempotency-Key still replays the original 202
      const replay = await execute(agent.c, usd(x, y, '75.5'), { key, session });
      expect(replay.status).toBe(202);
      expect(replay.text).toBe(first.text);
      expect(await balanceOf(admin, x)).toBe(before + 75.5);
    });

    it('an ADMIN key may approve', async () => {
      const id = await held();
      const res = await approve(admin, id);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ transactionId: id, status: 'POSTED' });
    });

    it('an agent key (AGENTS_EXECUTE + TRANSACTIONS_WRITE) → 403 on approve and reject', async () => {
      const other = await newKey(admin, t.url, ['AGENTS_EXECUTE', 'TRANSACTIONS_WRITE']);
      const id = await held();
      expectError(await approve(other.c, id), 403, 'FORBIDDEN');
      expectError(await reject(other.c, id), 403, 'FORBIDDEN');
      expect((await record(id)).status).toBe('PENDING_APPROVAL');
    });

    it('the key that executed it can never decide it: an agent with TRANSACTIONS_WRITE, or an ADMIN key', async () => {
      const both = await newKey(admin, t.url, ['AGENTS_EXECUTE', 'TRANSACTIONS_WRITE']);
      await holdFor(both);
      const id1 = await held('60', both);
      expectError(await approve(both.c, id1), 403, 'FORBIDDEN');
      expectError(await reject(both.c, id1), 403, 'FORBIDDEN');

      const admin2 = await newKey(admin, t.url, ['ADMIN']);
      await holdFor(admin2);
      const id2 = await held('60', admin2);
      expectError(await approve(admin2.c, id2), 403, 'FORBIDDEN');
      expectError(await reject(admin2.c, id2), 403, 'FORBIDDEN');
      expect((await record(id2)).status).toBe('PENDING_APPROVAL');
      // another person may
      expect((await approve(admin, id2)).status).toBe(200);
      expect((await approve(human.c, id1)).status).toBe(200);
    });

    it('a key without TRANSACTIONS_WRITE → 403', async () => {
      const readOnly = await newKey(admin, t.url, ['TRANSACTIONS_READ', 'AGENTS_AUDIT_READ']);
      const id = await held();
      expectError(await approve(readOnly.c, id), 403, 'FORBIDDEN');
      expectError(await reject(readOnly.c, id), 403, 'FORBIDDEN');
    });

    it('reject → 200 REJECTED, nothing posted; approving or rejecting afterwards → 409', async () => {
      const before = await balanceOf(admin, x);
      const id = await held('99');
      const res = await reject(human.c, id);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ transactionId: id, status: 'REJECTED' });
      expect(await balanceOf(admin, x)).toBe(before);
      expectError(await admin.get(`/api/v1/transactions/${id}`), 404, 'NOT_FOUND');
      const rec = await record(id);
      expect(rec.status).toBe('REJECTED');
      expect(rec.decidedAt).toMatch(ISO_MS);
      expectError(await approve(human.c, id), 409, 'CONFLICT');
      expectError(await reject(human.c, id), 409, 'CONFLICT');
      expect(await balanceOf(admin, x)).toBe(before);
    });

    it('unknown ids → 404', async () => {
      const ghost = randomUUID();
      expectError(await approve(human.c, ghost), 404, 'NOT_FOUND');
      expectError(await reject(human.c, ghost), 404, 'NOT_FOUND');
      expectError(await rollback(roller.c, ghost), 404, 'NOT_FOUND');
      expectError(await reader.c.get(`${AGENT_PATH}/${ghost}`), 404, 'NOT_FOUND');
    });
  });

  describe('rollback', () => {
    it('POSTED → 201 with the reversal: lines mirrored, metadata.reversesTransactionId, balances back; record ROLLED_BACK', async () => {
      const eurA = await makeAccount(admin, { name: 'eur cash', currency: 'EUR', type: 'ASSET' });
      const eurB = await makeAccount(admin, { name: 'eur payable', currency: 'EUR', type: 'LIABILITY' });
      const accounts = [x, y, eurA, eurB];
      const before = await Promise.all(accounts.map((id) => balanceOf(admin, id)));
      const beforeOnchain = (await admin.get(`/api/v1/accounts/${x}/balance`)).body.onChainBalances;
      const lines = [
        fiat(x, 'DEBIT', '12.34', 'USD', { rail: 'WIRE', bankReference: 'BR-7' }),
        fiat(y, 'CREDIT', '12.34'),
        fiat(eurA, 'DEBIT', '3', 'EUR', { rail: 'SEPA' }),
        fiat(eurB, 'CREDIT', '3', 'EUR', { rail: 'SEPA' }),
        onchain(x, 'DEBIT', '1.5', 'USDC', { chainId: 'SOLANA' }),
        onchain(y, 'CREDIT', '1.5', 'USDC', { chainId: 'SOLANA' }),
      ];
      const res = await execute(agent.c, lines, { metadata: { job: 'j1' } });
      expect(res.status, res.text).toBe(201);
      const id = res.body.transactionId;
      expect(await balanceOf(admin, x)).toBe(before[0]! + 12.34);

      const rb = await rollback(roller.c, id);
      expect(rb.status, rb.text).toBe(201);
      expect(Object.keys(rb.body).sort()).toEqual(['reversesTransactionId', 'transactionId']);
      expect(rb.body.reversesTransactionId).toBe(id);
      const rev = rb.body.transactionId;
      expect(rev).toMatch(UUID);
      expect(rev).not.toBe(id);

      const original = (await admin.get(`/api/v1/transactions/${id}`)).body;
      const reversal = await admin.get(`/api/v1/transactions/${rev}`);
      expect(reversal.status, reversal.text).toBe(200);
      expect(reversal.body.metadata).toEqual({ reversesTransactionId: id });
      const flip = (s: string) => (s === 'DEBIT' ? 'CREDIT' : 'DEBIT');
      const sig = (l: any, flipped = false) => `${flipped ? flip(l.type) : l.type}|${JSON.stringify(l.monetary)}`;
      expect(reversal.body.lines).toHaveLength(original.lines.length);
      expect(reversal.body.lines.map((l: any) => sig(l)).sort()).toEqual(original.lines.map((l: any) => sig(l, true)).sort());

      expect(await Promise.all(accounts.map((acc) => balanceOf(admin, acc)))).toEqual(before);
      expect((await admin.get(`/api/v1/accounts/${x}/balance`)).body.onChainBalances.filter((b: any) => b.amount !== 0)).toEqual(
        beforeOnchain.filter((b: any) => b.amount !== 0),
      );

      const rec = await record(id);
      expect(rec.status).toBe('ROLLED_BACK');
      expect(rec.reversalTransactionId).toBe(rev);
      // Reversed once: the one reversal record answers, and names the reversal.
      const again = await rollback(roller.c, id);
      expectError(again, 409, 'ALREADY_REVERSED');
      expect(again.body.reversalTransactionId).toBe(rev);
      expect(await Promise.all(accounts.map((acc) => balanceOf(admin, acc)))).toEqual(before);
    });

    it('an approved transaction can be rolled back', async () => {
      const before = await balanceOf(admin, x);
      const id = await held('70');
      expect((await approve(human.c, id)).status).toBe(200);
      const rb = await rollback(roller.c, id);
      expect(rb.status, rb.text).toBe(201);
      expect(await balanceOf(admin, x)).toBe(before);
    });

    it('rollback of a held or a rejected transaction → 409', async () => {
      const h = await held();
      expectError(await rollback(roller.c, h), 409, 'CONFLICT');
      const r = await held();
      expect((await reject(human.c, r)).status).toBe(200);
      expectError(await rollback(roller.c, r), 409, 'CONFLICT');
      expect((await record(h)).status).toBe('PENDING_APPROVAL');
    });

    it('a key without AGENTS_ROLLBACK → 403 (the executing agent, a TRANSACTIONS_WRITE key)', async () => {
      const id = await posted();
      expectError(await rollback(agent.c, id), 403, 'FORBIDDEN');
      expectError(await rollback(human.c, id), 403, 'FORBIDDEN');
      expect((await record(id)).status).toBe('POSTED');
    });

    it('a human key (no AGENTS_EXECUTE) on execute → 403', async () => {
      expectError(await execute(human.c, usd(x, y, '1')), 403, 'FORBIDDEN');
      expectError(await execute(roller.c, usd(x, y, '1')), 403, 'FORBIDDEN');
    });
  });

  describe('GET /api/v1/agent/transactions', () => {
    it('newest first, with GET by id answering the same item', async () => {
      const session = fresh('list');
      const ids: string[] = [];
      for (const amount of ['1', '2', '3']) {
        const res = await execute(agent.c, usd(x, y, amount), { session });
        expect(res.status).toBe(201);
        ids.push(res.body.transactionId);
      }
      const res = await reader.c.get(AGENT_PATH);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['items', 'nextCursor']);
      expect(res.body.items.slice(0, 3).map((r: any) => r.id)).toEqual([ids[2], ids[1], ids[0]]);
      const item = res.body.items[0];
      expect(Object.keys(item).sort()).toEqual(['actorKeyId', 'createdAt', 'decidedAt', 'id', 'lines', 'metadata', 'reversalTransactionId', 'sessionId', 'status']);
      expect(item).toMatchObject({ id: ids[2], status: 'POSTED', sessionId: session, actorKeyId: agent.id, reversalTransactionId: null });
      expect(await record(ids[2]!)).toEqual(item);
      const all = (await walkPages(reader.c, AGENT_PATH, { limit: 200 })).items;
      for (let i = 1; i < all.length; i++) expect(all[i - 1].createdAt >= all[i].createdAt).toBe(true);
    });

    it('status filter', async () => {
      // make sure each status exists
      const p = await posted();
      const h = await held();
      const r = await held();
      expect((await reject(human.c, r)).status).toBe(200);
      const rb = await posted();
      expect((await rollback(roller.c, rb)).status).toBe(201);
      const all = (await walkPages(reader.c, AGENT_PATH, { limit: 200 })).items;
      for (const [status, id] of [['POSTED', p], ['PENDING_APPROVAL', h], ['REJECTED', r], ['ROLLED_BACK', rb]] as const) {
        const items = (await walkPages(reader.c, `${AGENT_PATH}?status=${status}`, { limit: 200 })).items;
        expect(items.length).toBeGreaterThan(0);
        for (const item of items) expect(item.status).toBe(status);
        expect(items.map((i) => i.id)).toContain(id);
        expect(items.map((i) => i.id)).toEqual(all.filter((i) => i.status === status).map((i) => i.id));
      }
      expectValidation(await reader.c.get(`${AGENT_PATH}?status=HELD`));
    });

    it('pagination: limit and cursor walk every record once, in the same order', async () => {
      // records of its own, so the list spans several pages of 2 whatever ran before
      for (const amount of ['1', '2', '3', '4', '5', '6']) await posted(amount);
      const all = (await walkPages(reader.c, AGENT_PATH, { limit: 200 })).items;
      expect(all.length).toBeGreaterThan(5);
      const walked = await walkPages(reader.c, AGENT_PATH, { limit: 2 });
      const paged = walked.items;
      expect(walked.pages).toBeGreaterThanOrEqual(3);
      expect(paged.map((i) => i.id)).toEqual(all.map((i) => i.id));
      expect(new Set(paged.map((i) => i.id)).size).toBe(paged.length);
      const p1 = await reader.c.get(`${AGENT_PATH}?limit=2`);
      expect(p1.body.items).toHaveLength(2);
      expect(typeof p1.body.nextCursor).toBe('string');
      expectValidation(await reader.c.get(`${AGENT_PATH}?limit=0`));
      expectValidation(await reader.c.get(`${AGENT_PATH}?cursor=garbage`));
    });

    it("another tenant's records: not listed, GET → 404", async () => {
      const other = await createTenant(t.dbPath, 'Other');
      const oAdmin = client(t.url, other.apiKey.rawKey);
      const oa = await makeAccount(oAdmin, { name: 'a', currency: 'USD', type: 'ASSET' });
      const ob = await makeAccount(oAdmin, { name: 'b', currency: 'USD', type: 'LIABILITY' });
      const res = await execute(oAdmin, usd(oa, ob, '5'));
      expect(res.status, res.text).toBe(201);
      expectError(await reader.c.get(`${AGENT_PATH}/${res.body.transactionId}`), 404, 'NOT_FOUND');
      expect((await walkPages(reader.c, AGENT_PATH, { limit: 200 })).items.map((i) => i.id)).not.toContain(res.body.transactionId);
      expectError(await approve(human.c, res.body.transactionId), 404, 'NOT_FOUND');
      expectError(await rollback(roller.c, res.body.transactionId), 404, 'NOT_FOUND');
    });

    it('a key without AGENTS_AUDIT_READ → 403 on the reads', async () => {
      const id = await posted();
      for (const k of [agent, human, roller]) {
        expectError(await k.c.get(AGENT_PATH), 403, 'FORBIDDEN');
        expectError(await k.c.get(`${AGENT_PATH}/${id}`), 403, 'FORBIDDEN');
        expectError(await k.c.get(AUDIT_PATH), 403, 'FORBIDDEN');
      }
    });
  });

  describe('GET /api/v1/agent/audit and the compliance export', () => {
    it('lists AGENTS_EXECUTE, POLICY_VIOLATION, AGENTS_APPROVE, AGENTS_REJECT, AGENTS_ROLLBACK newest first, all type AGENT; the export agrees', async () => {
      const k = await newKey(admin, t.url, ['AGENTS_EXECUTE']);
      await holdFor(k);
      const violation = await createRule(admin, { type: 'ALLOWED_TOKENS', tokens: ['USDC'], agentKeyPrefix: k.rawKey });
      const session = fresh('audit');

      const p = await execute(k.c, usd(x, y, '5'), { session });
      expect(p.status).toBe(201);
      const v = await execute(k.c, [onchain(x, 'DEBIT', '1', 'USDT'), onchain(y, 'CREDIT', '1', 'USDT')], { session });
      expectError(v, 422, 'POLICY_VIOLATION');
      expect(v.body.ruleId, v.text).toBe(violation.id);
      const h1 = await execute(k.c, usd(x, y, '60'), { session });
      expect(h1.status).toBe(202);
      expect((await approve(human.c, h1.body.transactionId)).status).toBe(200);
      const h2 = await execute(k.c, usd(x, y, '61'), { session });
      expect(h2.status).toBe(202);
      expect((await reject(human.c, h2.body.transactionId)).status).toBe(200);
      const rb = await rollback(roller.c, p.body.transactionId);
      expect(rb.status).toBe(201);

      const res = await reader.c.get(`${AUDIT_PATH}?limit=7`);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['items', 'nextCursor']);
      const items = res.body.items;
      expect(items.map((r: any) => r.action)).toEqual(['AGENTS_ROLLBACK', 'AGENTS_REJECT', 'AGENTS_EXECUTE', 'AGENTS_APPROVE', 'AGENTS_EXECUTE', 'POLICY_VIOLATION', 'AGENTS_EXECUTE']);
      for (const r of items) {
        expect(Object.keys(r).sort()).toEqual(AUDIT_FIELDS);
        expect(r.type).toBe('AGENT');
        expect(r.occurredAt).toMatch(ISO_MS);
      }
      for (let i = 1; i < items.length; i++) expect(items[i - 1].occurredAt >= items[i].occurredAt).toBe(true);
      const [rollbackRec, rejectRec, exec3, approveRec, exec2, violationRec, exec1] = items;
      expect(exec1).toMatchObject({ actorKeyId: k.id, payload: { transactionId: p.body.transactionId, sessionId: session, status: 'POSTED' } });
      expect(violationRec).toMatchObject({ actorKeyId: k.id, payload: { ruleId: violation.id, ruleType: 'ALLOWED_TOKENS', sessionId: session } });
      expect(typeof violationRec.payload.reason).toBe('string');
      expect(exec2).toMatchObject({ actorKeyId: k.id, payload: { transactionId: h1.body.transactionId, sessionId: session, status: 'PENDING_APPROVAL' } });
      expect(approveRec).toMatchObject({ actorKeyId: human.id, payload: { transactionId: h1.body.transactionId } });
      expect(exec3).toMatchObject({ actorKeyId: k.id, payload: { transactionId: h2.body.transactionId, status: 'PENDING_APPROVAL' } });
      expect(rejectRec).toMatchObject({ actorKeyId: human.id, payload: { transactionId: h2.body.transactionId } });
      expect(rollbackRec).toMatchObject({ actorKeyId: roller.id, payload: { transactionId: rb.body.transactionId, reversesTransactionId: p.body.transactionId } });
      // no raw key in any payload
      expect(JSON.stringify(items)).not.toContain(k.rawKey);

      // every record of the agent audit is AGENT; paging walks the same list
      const allAudit = (await walkPages(reader.c, AUDIT_PATH, { limit: 200 })).items;
      for (const r of allAudit) expect(r.type).toBe('AGENT');
      expect((await walkPages(reader.c, AUDIT_PATH, { limit: 3 })).items.map((r) => r.id)).toEqual(allAudit.map((r) => r.id));

      // the compliance export: the same records with type=AGENT, none with type=HUMAN
      const agentExport = await exportAudit(admin, 'AGENT');
      const humanExport = await exportAudit(admin, 'HUMAN');
      const allExport = await exportAudit(admin);
      for (const r of agentExport) expect(r.type).toBe('AGENT');
      for (const r of humanExport) expect(r.type).toBe('HUMAN');
      const byId = new Map(agentExport.map((r) => [r.id, r]));
      for (const r of items) expect(byId.get(r.id), r.action).toEqual(r);
      const humanIds = new Set(humanExport.map((r) => r.id));
      for (const r of items) expect(humanIds.has(r.id), r.action).toBe(false);
      for (const r of humanExport) expect(['AGENTS_EXECUTE', 'AGENTS_APPROVE', 'AGENTS_REJECT', 'AGENTS_ROLLBACK', 'POLICY_VIOLATION']).not.toContain(r.action);
      expect(new Set(agentExport.map((r) => r.id))).toEqual(new Set(allAudit.map((r) => r.id)));
      expect(allExport.length).toBe(agentExport.length + humanExport.length);
    });
  });
});
