// Correcting a posting (issue 30): POST /api/v1/transactions/{id}/reverse posts the exact mirror, once, linked both
// ways; what cannot be reversed says why; limits apply and a refusal changes nothing; audit and events tell it.
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, UUID } from '../helpers/expect.js';
import { parseNdjson } from '../helpers/audit.js';
import { execute, newKey } from '../helpers/agents.js';

describe('reversing a posted transaction', () => {
  let c: Client;
  let funding: string;

  const reverse = (id: string, body?: unknown, key: string | null = randomUUID()) =>
    c.request('POST', `/api/v1/transactions/${id}/reverse`, { ...(body === undefined ? {} : { body }), headers: key === null ? {} : { 'idempotency-key': key } });
  const get = async (id: string) => (await c.get(`/api/v1/transactions/${id}`)).body;
  const balance = async (account: string) => (await c.get(`/api/v1/accounts/${account}/balance`)).body;
  const posted = async (lines: unknown[], metadata?: Record<string, string>) => {
    const res = await post(c, lines, metadata ? { metadata } : {});
    expect(res.status, res.text).toBe(201);
    return res.body.transactionId as string;
  };
  /** A wallet funded with `amount` USD. */
  const funded = async (amount: string) => {
    const wallet = await makeAccount(c, { name: 'wallet' });
    await posted([fiat(wallet, 'DEBIT', amount), fiat(funding, 'CREDIT', amount)]);
    return wallet;
  };
  const events = async (type: string) => (await c.get(`/api/v1/events?type=${type}&limit=200`)).body.items as Array<{ type: string; data: any }>;

  const t = useServerWithAccounts({ accounts: { funding: 'EQUITY' } });
  beforeAll(() => {
    ({ client: c, accounts: { funding } } = t);
  });

  it('the reversal mirrors every line (other side, same account, amount and monetary details), and both are linked', async () => {
    const cash = await makeAccount(c, { name: 'cash' });
    const sales = await makeAccount(c, { name: 'sales', type: 'REVENUE' });
    const vault = await makeAccount(c, { name: 'vault' });
    const original = await posted(
      [
        fiat(cash, 'DEBIT', '125.50', 'USD', { rail: 'PIX', bankReference: 'E2E-1' }),
        { ...fiat(sales, 'CREDIT', '125.50'), description: 'sale 1001' },
        onchain(vault, 'DEBIT', '0.123456789012345678', 'BRZ', { chainId: 'SOLANA', txHash: 'sig-1', blockNumber: 77 }),
        onchain(sales, 'CREDIT', '0.123456789012345678', 'BRZ', { chainId: 'SOLANA', txHash: 'sig-1', blockNumber: 77 }),
      ],
      { order: '1001' },
    );
    const before = await get(original);
    expect(before.reversesTransactionId).toBeNull();
    expect(before.reversedByTransactionId).toBeNull();

    const res = await reverse(original);
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['reversesTransactionId', 'transactionId']);
    expect(res.body.reversesTransactionId).toBe(original);
    const reversalId = res.body.transactionId as string;
    expect(reversalId).toMatch(UUID);

    const reversal = await get(reversalId);
    expect(reversal.metadata).toEqual({ reversesTransactionId: original });
    expect(reversal.reversesTransactionId).toBe(original);
    expect(reversal.reversedByTransactionId).toBeNull();
    expect(reversal.lines).toHaveLength(4);
    reversal.lines.forEach((line: any, i: number) => {
      const was = before.lines[i];
      expect(line.accountId).toBe(was.accountId);
      expect(line.type).toBe(was.type === 'DEBIT' ? 'CREDIT' : 'DEBIT');
      expect(line.monetary).toEqual(was.monetary);
      expect(line.description).toEqual(was.description);
      expect(line.transactionId).toBe(reversalId);
    });
    // Every digit of the 18-place BRZ amount and the rail's reference survive.
    expect(reversal.lines[2].monetary).toMatchObject({ token: 'BRZ', chainId: 'SOLANA', txHash: 'sig-1', blockNumber: 77 });
    expect(reversal.lines[0].monetary).toMatchObject({ rail: 'PIX', bankReference: 'E2E-1' });

    // Read right after the commit: the original names its reversal, in the listing too.
    expect((await get(original)).reversedByTransactionId).toBe(reversalId);
    const listed = (await c.get('/api/v1/transactions?limit=5')).body.items as any[];
    expect(listed.find((x) => x.transactionId === original).reversedByTransactionId).toBe(reversalId);
    expect(listed.find((x) => x.transactionId === reversalId).reversesTransactionId).toBe(original);
    // The books are back where they were.
    expect((await balance(cash)).amount).toBe(0);
    expect((await balance(sales)).amount).toBe(0);
    expect((await balance(vault)).onChainBalances).toEqual([{ token: 'BRZ', amount: 0, pending: 0, available: 0 }]);
  });

  it('a body may give metadata (kept beside the link) and a description (every reversing line\'s); none, {} or empty are the same', async () => {
    const wallet = await funded('10.00');
    const spend = await posted([{ ...fiat(funding, 'DEBIT', '4.00'), description: 'fee' }, fiat(wallet, 'CREDIT', '4.00')]);
    const res = await reverse(spend, { metadata: { ticket: 'T-9' }, description: 'charged twice' });
    expect(res.status, res.text).toBe(201);
    const reversal = await get(res.body.transactionId);
    expect(reversal.metadata).toEqual({ ticket: 'T-9', reversesTransactionId: spend });
    expect(reversal.lines.map((l: any) => l.description)).toEqual(['charged twice', 'charged twice']);

    for (const body of [undefined, {}]) {
      const another = await posted([fiat(wallet, 'DEBIT', '1.00'), fiat(funding, 'CREDIT', '1.00')]);
      const r = await reverse(another, body);
      expect(r.status, r.text).toBe(201);
      expect((await get(r.body.transactionId)).metadata).toEqual({ reversesTransactionId: another });
    }
    const blank = await posted([fiat(wallet, 'DEBIT', '1.00'), fiat(funding, 'CREDIT', '1.00')]);
    const r = await c.request('POST', `/api/v1/transactions/${blank}/reverse`, { rawBody: ' ', headers: { 'idempotency-key': randomUUID(), 'content-type': 'application/json' } });
    expect(r.status, r.text).toBe(201);
  });

  it('bad input is 400 and reverses nothing: the link key in metadata, a long description, an unknown field, no key, a bad id', async () => {
    const wallet = await funded('10.00');
    const id = await posted([fiat(wallet, 'DEBIT', '1.00'), fiat(funding, 'CREDIT', '1.00')]);
    expectValidation(await reverse(id, { metadata: { reversesTransactionId: randomUUID() } }), { detail: { path: 'metadata', message: /reversesTransactionId/ } });
    expectValidation(await reverse(id, { description: 'x'.repeat(501) }), { detail: { path: 'description' } });
    expectValidation(await reverse(id, { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }), { detail: { path: 'metadata' } });
    expectValidation(await reverse(id, { amount: 1 }));
    expectValidation(await reverse(id, undefined, null), { message: 'Idempotency-Key' });
    expectError(await c.request('POST', '/api/v1/transactions/not-a-uuid/reverse', { body: {}, headers: { 'idempotency-key': 'k' } }), 404, 'NOT_FOUND');
    expectError(await reverse(randomUUID()), 404, 'NOT_FOUND');
    expect((await get(id)).reversedByTransactionId).toBeNull();
    // 500 characters is the most.
    expect((await reverse(id, { description: 'x'.repeat(500) })).status).toBe(201);
  });

  it('once only: the same key and body answer the first answer; another body under it is 422; any other key is 409 ALREADY_REVERSED', async () => {
    const wallet = await funded('10.00');
    const id = await posted([fiat(wallet, 'DEBIT', '3.00'), fiat(funding, 'CREDIT', '3.00')]);
    const key = randomUUID();
    const first = await reverse(id, { description: 'undo' }, key);
    expect(first.status, first.text).toBe(201);
    const again = await reverse(id, { description: 'undo' }, key);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expectError(await reverse(id, { description: 'other' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    const other = await posted([fiat(wallet, 'DEBIT', '1.00'), fiat(funding, 'CREDIT', '1.00')]);
    expectError(await reverse(other, { description: 'undo' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    const second = await reverse(id);
    expectError(second, 409, 'ALREADY_REVERSED');
    expect(second.body.reversalTransactionId).toBe(first.body.transactionId);
    expect(second.body.message).toContain(first.body.transactionId);
    // The 3.00 moved once each way; the other posting stays.
    expect((await balance(wallet)).amount).toBe(11);
  });

  it('two requests under one key at once: one reverses, the other is 409 in progress or the same answer', async () => {
    const wallet = await funded('10.00');
    const id = await posted([fiat(wallet, 'DEBIT', '2.00'), fiat(funding, 'CREDIT', '2.00')]);
    const key = randomUUID();
    const answers = await Promise.all([reverse(id, {}, key), reverse(id, {}, key)]);
    const statuses = answers.map((a) => a.status).sort();
    expect([['201', '201'], ['201', '409']].map(String)).toContain(statuses.map(String).join(','));
    const conflict = answers.find((a) => a.status === 409);
    if (conflict) expect(conflict.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect((await balance(wallet)).amount).toBe(10);
  });

  it('a reversal cannot be reversed: 422 NOT_REVERSIBLE, post the original again instead', async () => {
    const wallet = await funded('10.00');
    const id = await posted([fiat(wallet, 'DEBIT', '1.00'), fiat(funding, 'CREDIT', '1.00')]);
    const reversalId = (await reverse(id)).body.transactionId as string;
    const res = await reverse(reversalId);
    expectError(res, 422, 'NOT_REVERSIBLE');
    expect(res.body.message).toMatch(/is itself a reversal/);
    expect(res.body.message).toMatch(/post the original transaction again/);
  });

  it('an agent transaction is refused with the rollback path; its rollback is the one reversal: linked both ways, and not reversed again', async () => {
    const wallet = await funded('10.00');
    const agent = await newKey(c, t.url, ['AGENTS_EXECUTE', 'AGENTS_ROLLBACK']);
    const executed = await execute(agent.c, [fiat(funding, 'DEBIT', '2.00'), fiat(wallet, 'CREDIT', '2.00')]);
    expect(executed.status, executed.text).toBe(201);
    const agentTx = executed.body.transactionId as string;
    const refused = await reverse(agentTx);
    expectError(refused, 422, 'NOT_REVERSIBLE');
    expect(refused.body.message).toContain(`POST /api/v1/agent/transactions/${agentTx}/rollback`);

    const rolled = await agent.c.post(`/api/v1/agent/transactions/${agentTx}/rollback`, {});
    expect(rolled.status, rolled.text).toBe(201);
    expect((await get(agentTx)).reversedByTransactionId).toBe(rolled.body.transactionId);
    expect((await get(rolled.body.transactionId)).reversesTransactionId).toBe(agentTx);
    const twice = await reverse(agentTx);
    expectError(twice, 409, 'ALREADY_REVERSED');
    expect(twice.body.reversalTransactionId).toBe(rolled.body.transactionId);
    const rollbackTwice = await agent.c.post(`/api/v1/agent/transactions/${agentTx}/rollback`, {});
    expectError(rollbackTwice, 409, 'ALREADY_REVERSED');
    // The rollback's reversal is a reversal like any other.
    expectError(await reverse(rolled.body.transactionId), 422, 'NOT_REVERSIBLE');
  });

  it('a posting that settled a settlement is refused, naming it; the settlement stays SETTLED', async () => {
    const vault = await makeAccount(c, { name: 'vault' });
    const wallet = '0x00000000000000000000000000000000000000aa';
    const registered = await c.post('/api/v1/settlements', { accountId: vault, expectedToken: 'USDC', expectedAmount: '5', expectedWalletAddress: wallet, expectedChainId: 'EVM' }, { 'idempotency-key': randomUUID() });
    expect(registered.status, registered.text).toBe(201);
    const id = await posted([onchain(vault, 'DEBIT', '5', 'USDC', { walletAddress: wallet, txHash: '0xsettle' }), onchain(funding, 'CREDIT', '5', 'USDC', { txHash: '0xsettle' })]);
    expect((await c.get(`/api/v1/settlements/${registered.body.settlementId}`)).body.status).toBe('SETTLED');
    const res = await reverse(id);
    expectError(res, 422, 'NOT_REVERSIBLE');
    expect(res.body.message).toContain(`settled settlement ${registered.body.settlementId}`);
    expect(res.body.message).toMatch(/stays SETTLED/);
    expect((await c.get(`/api/v1/settlements/${registered.body.settlementId}`)).body.status).toBe('SETTLED');
  });

  it("a chain watcher's posting is refused: it records what is final on chain", async () => {
    const vault = await makeAccount(c, { name: 'vault' });
    const wallet = '0x00000000000000000000000000000000000000bb';
    const registered = await c.post('/api/v1/settlements', { accountId: vault, expectedToken: 'USDC', expectedAmount: '7', expectedWalletAddress: wallet, expectedChainId: 'EVM' }, { 'idempotency-key': randomUUID() });
    expect(registered.status, registered.text).toBe(201);
    // The watcher's own write, as it makes it for a final transfer that no posting records.
    const transfer = { chain: 'EVM', txHash: '0xwatched', logIndex: 0, token: 'USDC', tokenContract: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', from: '0x00000000000000000000000000000000000000cc', to: wallet, amountMinor: 7_000_000n, blockNumber: 10, blockHash: '0xb' } as const;
    await t.server.ledger.writer.run('recordTransfers', { chain: 'EVM', transfers: [transfer], nextBlock: 11 });
    const settled = (await c.get(`/api/v1/settlements/${registered.body.settlementId}`)).body;
    expect(settled.status).toBe('SETTLED');
    const res = await reverse(settled.matchedTransactionId);
    expectError(res, 422, 'NOT_REVERSIBLE');
    expect(res.body.message).toMatch(/posted by the chain watcher/);
    expect(res.body.message).toMatch(/ordinary posting/);
  });

  it('a hold\'s capture may be reversed as a refund; the hold stays CAPTURED', async () => {
    const wallet = await funded('50.00');
    const merchant = await makeAccount(c, { name: 'merchant' });
    const held = await c.post('/api/v1/holds', { lines: [fiat(merchant, 'DEBIT', '20.00'), fiat(wallet, 'CREDIT', '20.00')] }, { 'idempotency-key': randomUUID() });
    expect(held.status, held.text).toBe(201);
    const captured = await c.post(`/api/v1/holds/${held.body.holdId}/capture`, {});
    expect(captured.status, captured.text).toBe(200);
    const refund = await reverse(captured.body.transactionId, { description: 'refund' });
    expect(refund.status, refund.text).toBe(201);
    expect((await balance(wallet)).amount).toBe(50);
    expect((await balance(merchant)).amount).toBe(0);
    expect((await c.get(`/api/v1/holds/${held.body.holdId}`)).body.status).toBe('CAPTURED');
  });

  it('a reversal that would end a balance outside its limits (open holds counted) is 422 BALANCE_LIMIT_EXCEEDED and changes nothing', async () => {
    const wallet = await makeAccount(c, { name: 'wallet' });
    const merchant = await makeAccount(c, { name: 'merchant' });
    const funding100 = await posted([fiat(wallet, 'DEBIT', '100.00'), fiat(funding, 'CREDIT', '100.00')]);
    expect((await c.request('PUT', `/api/v1/accounts/${wallet}/limits`, { body: { limits: [{ asset: 'USD', min: '0.00' }] } })).status).toBe(200);
    // A hold reserves 30 of the 100: reversing the 100 would leave -30 available.
    const held = await c.post('/api/v1/holds', { lines: [fiat(merchant, 'DEBIT', '30.00'), fiat(wallet, 'CREDIT', '30.00')] }, { 'idempotency-key': randomUUID() });
    expect(held.status, held.text).toBe(201);
    const eventsBefore = (await c.get('/api/v1/events?limit=200')).body.items.length;
    const res = await reverse(funding100);
    expectError(res, 422, 'BALANCE_LIMIT_EXCEEDED');
    expect(res.body).toMatchObject({ accountId: wallet, asset: 'USD' });
    expect(await balance(wallet)).toMatchObject({ amount: 100, pending: 30, available: 70 });
    expect((await get(funding100)).reversedByTransactionId).toBeNull();
    expect((await c.get('/api/v1/events?limit=200')).body.items.length).toBe(eventsBefore);
    // Once the hold is voided, it goes through.
    expect((await c.request('POST', `/api/v1/holds/${held.body.holdId}/void`)).status).toBe(200);
    expect((await reverse(funding100)).status).toBe(201);
    expect((await balance(wallet)).amount).toBe(0);
  });

  it('audit REVERSE_TRANSACTION, and the events transaction.committed (with reversesTransactionId) and transaction.reversed', async () => {
    const wallet = await funded('10.00');
    const id = await posted([fiat(wallet, 'DEBIT', '6.00'), fiat(funding, 'CREDIT', '6.00')]);
    const key = randomUUID();
    const reversalId = (await reverse(id, {}, key)).body.transactionId as string;
    const exported = await c.get('/api/v1/compliance/audit-export?from=2000-01-01&to=2100-01-01');
    const record = parseNdjson(exported.text).find((r) => r.action === 'REVERSE_TRANSACTION' && r.payload.transactionId === reversalId);
    expect(record?.payload).toMatchObject({ transactionId: reversalId, reversesTransactionId: id, idempotencyKey: key });
    const committed = (await events('transaction.committed')).find((e) => e.data.transactionId === reversalId);
    expect(committed?.data.reversesTransactionId).toBe(id);
    expect(committed?.data.reversedByTransactionId).toBeNull();
    // The original's own event shows it as committed: nothing reversed it then.
    expect((await events('transaction.committed')).find((e) => e.data.transactionId === id)?.data.reversedByTransactionId).toBeNull();
    const reversed = (await events('transaction.reversed')).find((e) => e.data.transactionId === id);
    expect(reversed?.data).toEqual({ transactionId: id, reversalTransactionId: reversalId });
  });

  it('needs TRANSACTIONS_WRITE', async () => {
    const reader = await newKey(c, t.url, ['TRANSACTIONS_READ']);
    const wallet = await funded('1.00');
    const id = await posted([fiat(wallet, 'DEBIT', '1.00'), fiat(funding, 'CREDIT', '1.00')]);
    expectError(await reader.c.request('POST', `/api/v1/transactions/${id}/reverse`, { body: {}, headers: { 'idempotency-key': 'k' } }), 403, 'FORBIDDEN');
  });

  it("the README's correction runs as written: the reversal, then the original naming it", async () => {
    const readme = /<!-- correcting:begin -->\s*```sh\n([\s\S]*?)```\s*<!-- correcting:end -->/.exec(readFileSync('README.md', 'utf8'));
    expect(readme, 'README has the correction block').not.toBeNull();
    const cash = await makeAccount(c, { name: 'Cash' });
    const sales = await makeAccount(c, { name: 'Sales', type: 'REVENUE' });
    const tx = await posted([fiat(cash, 'DEBIT', '125.50'), fiat(sales, 'CREDIT', '125.50')]);
    // The quickstart's helper and variables, then the block as written.
    const prelude = `json() { node -pe "JSON.parse(require('fs').readFileSync(0, 'utf8'))$1"; }\n`;
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', prelude + readme![1]!], {
      env: { ...process.env, API: `${t.url}/api/v1`, AUTH: `Authorization: Bearer ${t.tenant.apiKey.rawKey}`, TX: tx },
      timeout: 30_000,
    });
    const [answer, reversedBy] = stdout.trim().split('\n');
    const reversal = JSON.parse(answer!) as { transactionId: string; reversesTransactionId: string };
    expect(reversal.reversesTransactionId).toBe(tx);
    expect(reversedBy).toBe(reversal.transactionId);
    expect((await get(reversal.transactionId)).lines[0].description).toBe('order 1001 cancelled');
  });
});
