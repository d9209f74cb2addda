// Agent transactions (src/core/usecases/agents.ts) and policy rules (src/core/usecases/policyRules.ts) over a real
// SQLite store: judged in the write, posted, held, approved, rejected, refused, rolled back; each step audited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatePolicyRuleBody } from '../../src/core/schemas.js';
import type { Actor } from '../../src/core/audit.js';
import { account, auditOf, chainLine, fiatLine, newKey, openLedger, toJsonText, type Harness } from './ledger-harness.js';
import { AGENT_EXECUTE_ENDPOINT } from '../../src/core/commands/agents.js';

describe('agent transactions and policy rules', () => {
  let h: Harness;
  let cash: string;
  let payable: string;
  let agent: { id: string; rawKey: string; prefix: string };
  let agentActor: Actor;
  let approver: Actor;
  const rules: string[] = [];

  const execute = (lines: ReturnType<typeof fiatLine>[], session = 's1', key = newKey(), metadata?: Record<string, string>) =>
    h.ledger.agents.execute(h.tenantId, agentActor, agent.rawKey, session, key, { lines, ...(metadata ? { metadata } : {}) });
  const pay = (amount: string, session = 's1') => execute([fiatLine(payable, 'DEBIT', amount), fiatLine(cash, 'CREDIT', amount)], session);
  const rule = async (body: CreatePolicyRuleBody) => {
    const view = await h.ledger.policyRules.create(h.tenantId, h.actor, body);
    rules.push(view.id);
    return view;
  };
  const clearRules = async () => {
    for (const id of rules.splice(0)) await h.ledger.policyRules.delete(h.tenantId, h.actor, id);
  };

  beforeAll(async () => {
    h = await openLedger();
    cash = await account(h, { type: 'ASSET' });
    payable = await account(h, { type: 'LIABILITY' });
    agent = await h.ledger.tenants.createApiKey(h.tenantId, ['AGENTS_EXECUTE'], h.actor);
    agentActor = { type: 'AGENT', keyId: agent.id };
    const person = await h.ledger.tenants.createApiKey(h.tenantId, ['TRANSACTIONS_WRITE'], h.actor);
    approver = { type: 'HUMAN', keyId: person.id };
  });
  afterAll(async () => h?.close());

  it('with no rules, an agent transaction posts at once: 201, record, ledger entries, audit and idempotency', async () => {
    h.clock.set('2030-04-01T00:00:00.000Z');
    const key = newKey();
    const res = await execute([fiatLine(payable, 'DEBIT', '1.25', 'USD', { description: 'fee' }), fiatLine(cash, 'CREDIT', '1.25')], 'sess', key, { m: '1' });
    expect(res.status).toBe(201);
    const { transactionId, status } = JSON.parse(res.body) as { transactionId: string; status: string };
    expect(status).toBe('POSTED');
    expect(Object.keys(JSON.parse(res.body))).toEqual(['transactionId', 'status']);
    expect(await h.ledger.agents.get(h.tenantId, transactionId)).toEqual({
      id: transactionId,
      status: 'POSTED',
      sessionId: 'sess',
      actorKeyId: agent.id,
      lines: [
        { accountId: payable, entryType: 'DEBIT', monetaryEntry: expect.objectContaining({ type: 'FIAT', currency: 'USD' }), description: 'fee' },
        { accountId: cash, entryType: 'CREDIT', monetaryEntry: expect.objectContaining({ type: 'FIAT' }) },
      ],
      metadata: { m: '1' },
      createdAt: '2030-04-01T00:00:00.000Z',
      decidedAt: '2030-04-01T00:00:00.000Z',
      reversalTransactionId: null,
    });
    expect(await h.store.currentBalance(h.tenantId, payable, 'USD')).toBe(125n);
    const record = (await auditOf(h)).at(-1)!;
    expect(record).toMatchObject({ action: 'AGENTS_EXECUTE', type: 'AGENT', actorKeyId: agent.id });
    expect(record.payload).toEqual({ transactionId, sessionId: 'sess', status: 'POSTED', lineCount: 2, idempotencyKey: key, effectiveAt: record.occurredAt });
    expect(await h.store.idempotency(h.tenantId, AGENT_EXECUTE_ENDPOINT, key)).toMatchObject({ status: 201, body: res.body });
    expect(AGENT_EXECUTE_ENDPOINT).toBe('POST /api/v1/agent/transactions');
    // A replay under the same key and session answers the same; another session under the key is another request.
    expect(await execute([fiatLine(payable, 'DEBIT', '1.25', 'USD', { description: 'fee' }), fiatLine(cash, 'CREDIT', '1.25')], 'sess', key, { m: '1' })).toEqual(res);
    await expect(execute([fiatLine(payable, 'DEBIT', '1.25', 'USD', { description: 'fee' }), fiatLine(cash, 'CREDIT', '1.25')], 'other', key, { m: '1' })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
  });

  it('an unbalanced agent transaction or an unknown account is refused before any record', async () => {
    await expect(execute([fiatLine(payable, 'DEBIT', '1'), fiatLine(cash, 'CREDIT', '2')])).rejects.toMatchObject({ code: 'UNBALANCED' });
    await expect(execute([fiatLine(payable, 'DEBIT', '1'), fiatLine('0190a1b2-0000-7000-8000-0000000000bb', 'CREDIT', '1')])).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
  });

  it('MAX_DEBIT_PER_SESSION refuses what would pass the limit in the session, inclusive, and audits the refusal', async () => {
    const r = await rule({ type: 'MAX_DEBIT_PER_SESSION', amount: '10' });
    expect((await pay('6', 'cap')).status).toBe(201);
    const key = newKey();
    await expect(execute([fiatLine(payable, 'DEBIT', '4.01'), fiatLine(cash, 'CREDIT', '4.01')], 'cap', key)).rejects.toMatchObject({
      code: 'POLICY_VIOLATION',
      message: "MAX_DEBIT_PER_SESSION: this session's USD debits would total 10.01, above the limit of 10.",
      extra: { ruleId: r.id },
    });
    const refusal = (await auditOf(h)).at(-1)!;
    expect(refusal).toMatchObject({ action: 'POLICY_VIOLATION', type: 'AGENT', actorKeyId: agent.id });
    expect(refusal.payload).toEqual({ ruleId: r.id, ruleType: 'MAX_DEBIT_PER_SESSION', sessionId: 'cap', reason: "MAX_DEBIT_PER_SESSION: this session's USD debits would total 10.01, above the limit of 10.", idempotencyKey: key });
    // A refusal stores no idempotency record: the key may be used again.
    expect(await h.store.idempotency(h.tenantId, AGENT_EXECUTE_ENDPOINT, key)).toBeUndefined();
    expect((await pay('4', 'cap')).status).toBe(201);
    // Another session starts from zero.
    expect((await pay('10', 'cap2')).status).toBe(201);
    await clearRules();
  });

  it('MAX_DEBIT_PER_HOUR counts the trailing hour of the key across sessions', async () => {
    h.clock.set('2030-04-02T00:00:00.000Z');
    await rule({ type: 'MAX_DEBIT_PER_HOUR', amount: '5' });
    expect((await pay('3', 'h1')).status).toBe(201);
    h.clock.advance(30 * 60_000);
    await expect(pay('2.01', 'h2')).rejects.toMatchObject({ code: 'POLICY_VIOLATION', message: 'MAX_DEBIT_PER_HOUR: the last hour of USD debits would total 5.01, above the limit of 5.' });
    h.clock.advance(30 * 60_000 + 1);
    expect((await pay('5', 'h3')).status).toBe(201);
    await clearRules();
  });

  it('a rule with an agentKeyPrefix binds only keys that start with it', async () => {
    await rule({ type: 'MAX_DEBIT_PER_SESSION', amount: '1', agentKeyPrefix: 'sk_live_zzzz' });
    expect((await pay('2', 'prefix')).status).toBe(201);
    await clearRules();
    await rule({ type: 'MAX_DEBIT_PER_SESSION', amount: '1', agentKeyPrefix: agent.rawKey.slice(0, 14) });
    await expect(pay('2', 'prefix2')).rejects.toMatchObject({ code: 'POLICY_VIOLATION' });
    await clearRules();
  });

  it('REQUIRE_HUMAN_APPROVAL_ABOVE holds a transaction for a person, who approves it (posted) or rejects it', async () => {
    h.clock.set('2030-04-03T00:00:00.000Z');
    const r = await rule({ type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '100' });
    expect((await pay('100', 'ok')).status).toBe(201);
    const key = newKey();
    const held = await execute([fiatLine(payable, 'DEBIT', '100.01'), fiatLine(cash, 'CREDIT', '100.01')], 'big', key);
    expect(held.status).toBe(202);
    const { transactionId } = JSON.parse(held.body) as { transactionId: string };
    expect(JSON.parse(held.body)).toEqual({ transactionId, status: 'PENDING_APPROVAL' });
    expect(await h.store.idempotency(h.tenantId, AGENT_EXECUTE_ENDPOINT, key)).toMatchObject({ status: 202 });
    expect(await h.ledger.agents.get(h.tenantId, transactionId)).toMatchObject({ status: 'PENDING_APPROVAL', decidedAt: null });
    expect(await h.store.transaction(h.tenantId, transactionId)).toBeUndefined();
    const heldAudit = (await auditOf(h)).at(-1)!;
    expect(heldAudit.payload).toEqual({ transactionId, sessionId: 'big', status: 'PENDING_APPROVAL', lineCount: 2, idempotencyKey: key, effectiveAt: heldAudit.occurredAt, ruleId: r.id });

    // Not by the key that executed it, nor by an agent key.
    await expect(h.ledger.agents.decide(h.tenantId, agentActor, ['TRANSACTIONS_WRITE'], transactionId, 'APPROVE')).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: 'The key that executed a transaction cannot approve or reject it.',
    });
    await expect(h.ledger.agents.decide(h.tenantId, approver, ['AGENTS_EXECUTE', 'ADMIN'], transactionId, 'APPROVE')).rejects.toThrow(
      expect.objectContaining({ code: 'FORBIDDEN', message: 'An agent key (one with AGENTS_EXECUTE) cannot approve or reject.' }),
    );
    h.clock.advance(5000);
    const approved = await h.ledger.agents.decide(h.tenantId, approver, ['ADMIN'], transactionId, 'APPROVE');
    expect(approved).toEqual({ transactionId, status: 'POSTED' });
    const at = h.clock.now().toISOString();
    expect(await h.ledger.agents.get(h.tenantId, transactionId)).toMatchObject({ status: 'POSTED', decidedAt: at });
    expect((await h.store.agentTransaction(h.tenantId, transactionId))!.decidedBy).toBe(approver.keyId);
    expect(JSON.parse((await h.store.transaction(h.tenantId, transactionId))!.document).createdAt).toBe(at);
    const approveAudit = (await auditOf(h)).at(-1)!;
    expect(approveAudit).toMatchObject({ action: 'AGENTS_APPROVE', actorKeyId: approver.keyId, type: 'HUMAN' });
    expect(approveAudit.payload).toEqual({ transactionId, sessionId: 'big', executedBy: agent.id, effectiveAt: approveAudit.occurredAt });
    await expect(h.ledger.agents.decide(h.tenantId, approver, [], transactionId, 'REJECT')).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `Agent transaction ${transactionId} is POSTED, not PENDING_APPROVAL.`,
    });

    const other = JSON.parse((await pay('200', 'big2')).body) as { transactionId: string };
    const balance = await h.store.currentBalance(h.tenantId, payable, 'USD');
    expect(await h.ledger.agents.decide(h.tenantId, approver, [], other.transactionId, 'REJECT')).toEqual({ transactionId: other.transactionId, status: 'REJECTED' });
    expect(await h.store.currentBalance(h.tenantId, payable, 'USD')).toBe(balance);
    expect(await h.store.transaction(h.tenantId, other.transactionId)).toBeUndefined();
    const rejectAudit = (await auditOf(h)).at(-1)!;
    expect(rejectAudit.action).toBe('AGENTS_REJECT');
    expect(rejectAudit.payload).toEqual({ transactionId: other.transactionId, sessionId: 'big2', executedBy: agent.id });
    await expect(h.ledger.agents.decide(h.tenantId, approver, [], '0190a1b2-0000-7000-8000-0000000000ba', 'APPROVE')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Agent transaction 0190a1b2-0000-7000-8000-0000000000ba was not found.',
    });
    await clearRules();
  });

  it('rolls back a POSTED agent transaction once, with the exact reverse, linked both ways', async () => {
    const { transactionId } = JSON.parse((await pay('7.5', 'rb')).body) as { transactionId: string };
    const before = await h.store.currentBalance(h.tenantId, payable, 'USD');
    h.clock.advance(1000);
    const rolled = await h.ledger.agents.rollback(h.tenantId, approver, transactionId);
    expect(rolled).toEqual({ transactionId: rolled.transactionId, reversesTransactionId: transactionId });
    expect(await h.store.currentBalance(h.tenantId, payable, 'USD')).toBe(before - 750n);
    const record = (await h.store.agentTransaction(h.tenantId, transactionId))!;
    expect(record.status).toBe('ROLLED_BACK');
    expect(record.reversalTransactionId).toBe(rolled.transactionId);
    // The decision fields are kept as they were.
    expect(record.decidedAt).not.toBeNull();
    expect(record.decidedBy).toBeNull();
    const reversal = JSON.parse((await h.store.transaction(h.tenantId, rolled.transactionId))!.document);
    expect(reversal.metadata).toEqual({ reversesTransactionId: transactionId });
    expect(reversal.lines.map((l: { accountId: string; type: string }) => [l.accountId, l.type])).toEqual([
      [payable, 'CREDIT'],
      [cash, 'DEBIT'],
    ]);
    const audit = (await auditOf(h)).at(-1)!;
    expect(audit).toMatchObject({ action: 'AGENTS_ROLLBACK', actorKeyId: approver.keyId });
    expect(audit.payload).toEqual({ transactionId: rolled.transactionId, reversesTransactionId: transactionId, sessionId: 'rb' });
    await expect(h.ledger.agents.rollback(h.tenantId, approver, transactionId)).rejects.toMatchObject({
      code: 'ALREADY_REVERSED',
      message: `Transaction ${transactionId} was already reversed by transaction ${rolled.transactionId}; a transaction is reversed once.`,
    });
  });

  it('only a POSTED agent transaction can be rolled back; a reversal settles nothing', async () => {
    await rule({ type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '1' });
    const { transactionId } = JSON.parse((await pay('2', 'hold')).body) as { transactionId: string };
    await expect(h.ledger.agents.rollback(h.tenantId, approver, transactionId)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `Agent transaction ${transactionId} is PENDING_APPROVAL; only a POSTED one can be rolled back.`,
    });
    await expect(h.ledger.agents.rollback(h.tenantId, approver, '0190a1b2-0000-7000-8000-0000000000b9')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await clearRules();
    // An on-chain agent posting whose reverse would match a settlement: the reversal leaves it PENDING.
    const res = await h.ledger.settlements.register(h.tenantId, h.actor, newKey(), {
      accountId: cash,
      expectedToken: 'USDC',
      expectedAmount: '9',
      expectedWalletAddress: '0x00000000000000000000000000000000000000aa',
      expectedChainId: 'EVM',
    });
    const settlementId = (JSON.parse(res.body) as { settlementId: string }).settlementId;
    const posted = JSON.parse((await execute([chainLine(payable, 'DEBIT', '9', { txHash: '0xrb' }), chainLine(cash, 'CREDIT', '9', { txHash: '0xrb' })], 'chain')).body) as {
      transactionId: string;
    };
    await h.ledger.agents.rollback(h.tenantId, approver, posted.transactionId);
    expect((await h.ledger.settlements.get(h.tenantId, settlementId)).status).toBe('PENDING');
    // An approved agent posting settles too.
    const held = await h.ledger.settlements.register(h.tenantId, h.actor, newKey(), {
      accountId: cash,
      expectedToken: 'USDC',
      expectedAmount: '3',
      expectedWalletAddress: '0x00000000000000000000000000000000000000aa',
      expectedChainId: 'EVM',
    });
    const heldId = (JSON.parse(held.body) as { settlementId: string }).settlementId;
    await rule({ type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '1' });
    const waiting = JSON.parse((await execute([chainLine(cash, 'DEBIT', '3', { txHash: '0xap' }), chainLine(payable, 'CREDIT', '3', { txHash: '0xap' })], 'chain')).body) as { transactionId: string };
    expect((await h.ledger.settlements.get(h.tenantId, heldId)).status).toBe('PENDING');
    await h.ledger.agents.decide(h.tenantId, approver, [], waiting.transactionId, 'APPROVE');
    expect(await h.ledger.settlements.get(h.tenantId, heldId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: waiting.transactionId });
    await clearRules();
    // An agent posting itself does settle.
    await execute([chainLine(cash, 'DEBIT', '9', { txHash: '0xag' }), chainLine(payable, 'CREDIT', '9', { txHash: '0xag' })], 'chain');
    expect((await h.ledger.settlements.get(h.tenantId, settlementId)).status).toBe('SETTLED');
  });

  it('ALLOWED_TOKENS and ALLOWED_CHAINS refuse on-chain lines outside their lists', async () => {
    await rule({ type: 'ALLOWED_TOKENS', tokens: ['USDT'] });
    await expect(execute([chainLine(payable, 'DEBIT', '1'), chainLine(cash, 'CREDIT', '1')], 'tok')).rejects.toMatchObject({
      code: 'POLICY_VIOLATION',
      message: 'ALLOWED_TOKENS: USDC is not one of USDT.',
    });
    expect((await execute([chainLine(payable, 'DEBIT', '1', { token: 'USDT' }), chainLine(cash, 'CREDIT', '1', { token: 'USDT' })], 'tok')).status).toBe(201);
    await clearRules();
    await rule({ type: 'ALLOWED_CHAINS', chains: ['SOLANA', 'TRON'] });
    await expect(execute([chainLine(payable, 'DEBIT', '1'), chainLine(cash, 'CREDIT', '1')], 'ch')).rejects.toMatchObject({ message: 'ALLOWED_CHAINS: EVM is not one of SOLANA, TRON.' });
    await clearRules();
  });

  it('lists agent transactions newest first, by status, and the AGENT audit records', async () => {
    const t = await openLedger();
    try {
      const a = await account(t);
      const b = await account(t);
      const key = await t.ledger.tenants.createApiKey(t.tenantId, ['AGENTS_EXECUTE'], t.actor);
      const actor: Actor = { type: 'AGENT', keyId: key.id };
      const run = async (amount: string) =>
        (JSON.parse((await t.ledger.agents.execute(t.tenantId, actor, key.rawKey, 's', newKey(), { lines: [fiatLine(a, 'DEBIT', amount), fiatLine(b, 'CREDIT', amount)] })).body) as { transactionId: string })
          .transactionId;
      const first = await run('1');
      await t.ledger.policyRules.create(t.tenantId, t.actor, { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '1' });
      const second = await run('2');
      const third = await run('3');
      const ids = async (q: Parameters<typeof t.ledger.agents.list>[1]) => (await t.ledger.agents.list(t.tenantId, q)).items.map((i) => i.value.id);
      expect(await ids({})).toEqual([third, second, first]);
      expect(await ids({ status: 'POSTED' })).toEqual([first]);
      expect(await ids({ status: 'PENDING_APPROVAL' })).toEqual([third, second]);
      const page = await t.ledger.agents.list(t.tenantId, { status: 'PENDING_APPROVAL', limit: 1 });
      await expect(ids({ status: 'POSTED', limit: 1, cursor: page.nextCursor! })).rejects.toThrow(expect.objectContaining({ details: [{ path: 'cursor', message: 'was given with another query' }] }));
      const auditPage = await t.ledger.agents.audit(t.tenantId, { limit: 1 });
      const otherTenant = await t.ledger.tenants.create('Other', { type: 'HUMAN', keyId: 'cli' });
      await expect(t.ledger.agents.audit(otherTenant.tenantId, { cursor: auditPage.nextCursor! })).rejects.toThrow(expect.objectContaining({ details: [{ path: 'cursor', message: 'not valid for this list' }] }));
      expect(await ids({ status: 'PENDING_APPROVAL', limit: 1, cursor: page.nextCursor! })).toEqual([second]);
      await expect(ids({ limit: 1, cursor: page.nextCursor! })).rejects.toThrow(expect.objectContaining({ details: [{ path: 'cursor', message: 'was given with another query' }] }));
      const audit = await t.ledger.agents.audit(t.tenantId, {});
      expect(audit.items.map((i) => i.value.action)).toEqual(['AGENTS_EXECUTE', 'AGENTS_EXECUTE', 'AGENTS_EXECUTE']);
      const item = JSON.parse(toJsonText(audit.items[0]!.value));
      const stored = (await t.store.auditChainPage(t.tenantId, 0, 100)).find((r) => r.id === item.id)!;
      expect(item).toEqual({
        id: stored.id,
        type: 'AGENT',
        action: 'AGENTS_EXECUTE',
        actorKeyId: key.id,
        occurredAt: stored.occurredAt,
        payload: JSON.parse(stored.payloadJson),
        hash: stored.hash,
        prevHash: stored.prevHash,
      });
      await expect(t.ledger.agents.get(t.tenantId, '0190a1b2-0000-7000-8000-0000000000b8')).rejects.toThrow(
        expect.objectContaining({ code: 'NOT_FOUND', message: 'Agent transaction 0190a1b2-0000-7000-8000-0000000000b8 was not found.' }),
      );
    } finally {
      await t.close();
    }
  });

  describe('policy rules', () => {
    it('creates a rule with exactly the fields its type needs, audited, and lists and deletes it', async () => {
      const t = await openLedger();
      try {
        h.clock.set('2030-04-05T00:00:00.000Z');
        const view = await t.ledger.policyRules.create(t.tenantId, t.actor, { type: 'FORBIDDEN_ACCOUNT_PAIR', debitAccountId: 'a', creditAccountId: 'b', agentKeyPrefix: 'sk_live_ab' });
        expect(view).toEqual({ id: view.id, type: 'FORBIDDEN_ACCOUNT_PAIR', agentKeyPrefix: 'sk_live_ab', params: { debitAccountId: 'a', creditAccountId: 'b' }, createdAt: t.clock.now().toISOString() });
        const created = (await auditOf(t)).at(-1)!;
        expect(created.action).toBe('CREATE_POLICY_RULE');
        expect(created.payload).toEqual({ ruleId: view.id, type: 'FORBIDDEN_ACCOUNT_PAIR', agentKeyPrefix: 'sk_live_ab', params: { debitAccountId: 'a', creditAccountId: 'b' } });
        const second = await t.ledger.policyRules.create(t.tenantId, t.actor, { type: 'ALLOWED_CHAINS', chains: ['EVM'] });
        expect(second.agentKeyPrefix).toBeNull();
        expect(await t.ledger.policyRules.list(t.tenantId)).toEqual([view, second]);
        t.clock.advance(10);
        await t.ledger.policyRules.delete(t.tenantId, t.actor, view.id);
        const deleted = (await auditOf(t)).at(-1)!;
        expect(deleted.action).toBe('DELETE_POLICY_RULE');
        expect(deleted.occurredAt).toBe(t.clock.now().toISOString());
        expect(deleted.payload).toEqual({ ruleId: view.id });
        expect(await t.ledger.policyRules.list(t.tenantId)).toEqual([second]);
        await expect(t.ledger.policyRules.delete(t.tenantId, t.actor, view.id)).rejects.toMatchObject({ code: 'NOT_FOUND', message: `Policy rule ${view.id} was not found.` });
      } finally {
        await t.close();
      }
    });

    it('refuses a missing field or one the type does not take, before the write', async () => {
      const calls: string[] = [];
      const run = h.writer.run.bind(h.writer);
      h.writer.run = ((name: never, args: never) => {
        calls.push(name);
        return run(name, args);
      }) as typeof h.writer.run;
      try {
        await expect(h.ledger.policyRules.create(h.tenantId, h.actor, { type: 'FORBIDDEN_ACCOUNT_PAIR', debitAccountId: 'a' })).rejects.toThrow(
          expect.objectContaining({
            code: 'VALIDATION_FAILED',
            message: 'Invalid request body: FORBIDDEN_ACCOUNT_PAIR needs creditAccountId.',
            details: [{ path: 'creditAccountId', message: 'is required for FORBIDDEN_ACCOUNT_PAIR' }],
          }),
        );
        await expect(h.ledger.policyRules.create(h.tenantId, h.actor, { type: 'FORBIDDEN_ACCOUNT_PAIR' })).rejects.toThrow(
          expect.objectContaining({ message: 'Invalid request body: FORBIDDEN_ACCOUNT_PAIR needs debitAccountId and creditAccountId.' }),
        );
        await expect(h.ledger.policyRules.create(h.tenantId, h.actor, { type: 'MAX_DEBIT_PER_HOUR', amount: '1', tokens: ['USDC'], chains: ['EVM'] })).rejects.toThrow(
          expect.objectContaining({
            message: 'Invalid request body: tokens and chains does not apply to MAX_DEBIT_PER_HOUR.',
            details: [
              { path: 'tokens', message: 'does not apply to MAX_DEBIT_PER_HOUR' },
              { path: 'chains', message: 'does not apply to MAX_DEBIT_PER_HOUR' },
            ],
          }),
        );
        expect(calls).toEqual([]);
      } finally {
        h.writer.run = run;
      }
      // The write checks again.
      await expect(h.writer.run('createPolicyRule', { tenantId: h.tenantId, actor: h.actor, body: { type: 'ALLOWED_TOKENS' } })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    });

    it('FORBIDDEN_ACCOUNT_PAIR refuses a debit of one account with a credit of the other', async () => {
      await rule({ type: 'FORBIDDEN_ACCOUNT_PAIR', debitAccountId: payable, creditAccountId: cash });
      await expect(pay('1', 'pair')).rejects.toMatchObject({ message: `FORBIDDEN_ACCOUNT_PAIR: a debit of ${payable} with a credit of ${cash} is not allowed.` });
      expect((await execute([fiatLine(cash, 'DEBIT', '1'), fiatLine(payable, 'CREDIT', '1')], 'pair')).status).toBe(201);
      await clearRules();
    });
  });
});
