// Reversals on the in-process ledger (issue 30): the writes and refusals of src/core/usecases/reversals.ts run on
// this thread, where the mutation run reaches them (the HTTP suites run them in the writer thread).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, auditOf, chainLine, fiatLine, newKey, openLedger, postLines, WALLET, type Harness } from './ledger-harness.js';

describe('reversals (use case)', () => {
  let h: Harness;
  let cash: string;
  let sales: string;
  const reverse = (id: string, body: { metadata?: Record<string, string>; description?: string | null } = {}, key = newKey()) =>
    h.ledger.reversals.reverse(h.tenantId, h.actor, id, key, body);
  const refusal = async (promise: Promise<unknown>) => {
    const error = (await promise.then(() => undefined, (e: unknown) => e)) as { code?: string; message?: string; extra?: Record<string, unknown> } | undefined;
    expect(error, 'a refusal').toBeDefined();
    return error!;
  };
  const linksOf = async (id: string) => JSON.parse((await h.ledger.transactions.get(h.tenantId, id)).text) as { reversesTransactionId: string | null; reversedByTransactionId: string | null; metadata: Record<string, string>; lines: Array<{ type: string; description?: string }> };

  beforeAll(async () => {
    h = await openLedger();
    cash = await account(h, { name: 'cash' });
    sales = await account(h, { name: 'sales', type: 'REVENUE' });
  });
  afterAll(async () => h?.close());

  it('posts the mirror with the note given, links both ways, audits and sends both events', async () => {
    const { transactionId } = await postLines(h, [fiatLine(cash, 'DEBIT', '4.00', 'USD', { description: 'sale' }), fiatLine(sales, 'CREDIT', '4.00')], { order: '7' });
    const key = newKey();
    const stored = await reverse(transactionId, { metadata: { ticket: 'T' }, description: 'undo' }, key);
    expect(stored.status).toBe(201);
    const { transactionId: reversalId, reversesTransactionId } = JSON.parse(stored.body) as { transactionId: string; reversesTransactionId: string };
    expect(reversesTransactionId).toBe(transactionId);
    const reversal = await linksOf(reversalId);
    expect(reversal).toMatchObject({ reversesTransactionId: transactionId, reversedByTransactionId: null, metadata: { ticket: 'T', reversesTransactionId: transactionId } });
    expect(reversal.lines.map((l) => [l.type, l.description])).toEqual([['CREDIT', 'undo'], ['DEBIT', 'undo']]);
    expect((await linksOf(transactionId)).reversedByTransactionId).toBe(reversalId);
    expect((await auditOf(h)).at(-1)).toMatchObject({ action: 'REVERSE_TRANSACTION', payload: { transactionId: reversalId, reversesTransactionId: transactionId, lineCount: 2, idempotencyKey: key } });
    const events = [];
    for await (const e of h.store.eventsPage(h.tenantId, 0, 1000, null)) events.push(e);
    expect(events.slice(-2).map((e) => [e.type, JSON.parse(e.payload).reversesTransactionId ?? JSON.parse(e.payload).reversalTransactionId])).toEqual([
      ['transaction.committed', transactionId],
      ['transaction.reversed', reversalId],
    ]);
    expect(JSON.parse(events.at(-1)!.payload)).toEqual({ transactionId, reversalTransactionId: reversalId });
    expect(JSON.parse(events.at(-2)!.payload).reversedByTransactionId).toBeNull();

    // Once: the same key and note replay it (without a write), another key is ALREADY_REVERSED, another note under the key is reused.
    expect(await reverse(transactionId, { metadata: { ticket: 'T' }, description: 'undo' }, key)).toEqual(stored);
    const again = await refusal(reverse(transactionId));
    expect(again).toMatchObject({ code: 'ALREADY_REVERSED', extra: { reversalTransactionId: reversalId } });
    expect(again.message).toBe(`Transaction ${transactionId} was already reversed by transaction ${reversalId}; a transaction is reversed once.`);
    expect(await refusal(reverse(transactionId, { description: 'other' }, key))).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    // Without a note, each line keeps its description and the metadata is the link alone.
    const plain = await postLines(h, [fiatLine(cash, 'DEBIT', '1.00', 'USD', { description: 'kept' }), fiatLine(sales, 'CREDIT', '1.00')]);
    const plainReversal = JSON.parse((await reverse(plain.transactionId, { description: null })).body).transactionId as string;
    expect((await linksOf(plainReversal)).metadata).toEqual({ reversesTransactionId: plain.transactionId });
    expect((await linksOf(plainReversal)).lines.map((l) => l.description)).toEqual(['kept', undefined]);
  });

  it('refuses a reversal, an agent transaction, a chain watcher\'s posting and one that settled, each saying why; an unknown one is 404', async () => {
    const { transactionId } = await postLines(h, [fiatLine(cash, 'DEBIT', '2.00'), fiatLine(sales, 'CREDIT', '2.00')]);
    const reversalId = JSON.parse((await reverse(transactionId)).body).transactionId as string;
    const ofReversal = await refusal(reverse(reversalId));
    expect(ofReversal).toMatchObject({ code: 'NOT_REVERSIBLE' });
    expect(ofReversal.message).toBe(`Transaction ${reversalId} is itself a reversal (of transaction ${transactionId}) and cannot be reversed; to restore what it undid, post the original transaction again.`);

    const executed = JSON.parse((await h.ledger.agents.execute(h.tenantId, { type: 'AGENT', keyId: 'agent' }, 'sk_live_x', 's', newKey(), { lines: [fiatLine(cash, 'DEBIT', '1.00'), fiatLine(sales, 'CREDIT', '1.00')] })).body).transactionId as string;
    const ofAgent = await refusal(reverse(executed));
    expect(ofAgent.message).toBe(`Transaction ${executed} is an agent transaction; roll it back with POST /api/v1/agent/transactions/${executed}/rollback, which keeps the agent's audit trail.`);

    const vault = await account(h, { name: 'vault' });
    const settle = async (txHash: string) => {
      const registered = await h.ledger.settlements.register(h.tenantId, h.actor, newKey(), { accountId: vault, expectedToken: 'USDC', expectedAmount: '3', expectedWalletAddress: WALLET, expectedChainId: 'EVM' });
      return JSON.parse(registered.body).settlementId as string;
    };
    const settlementId = await settle('0x1');
    const settling = await postLines(h, [chainLine(vault, 'DEBIT', '3', { txHash: '0x1' }), chainLine(sales, 'CREDIT', '3', { txHash: '0x1' })]);
    const ofSettled = await refusal(reverse(settling.transactionId));
    expect(ofSettled.message).toBe(
      `Transaction ${settling.transactionId} settled settlement ${settlementId}, which stays SETTLED; a reversal would leave the settlement matched to a transaction undone. Correct it with an ordinary posting.`,
    );
    // The chain watcher's own posting names its settlement in its metadata; a user's posting that says the same of another does not pass for one.
    const watched = await settle('0x2');
    await h.writer.run('recordTransfers', {
      chain: 'EVM',
      transfers: [{ chain: 'EVM', txHash: '0x2', logIndex: 0, token: 'USDC', tokenContract: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', from: '0x00000000000000000000000000000000000000cc', to: WALLET, amountMinor: 3_000_000n, blockNumber: 9, blockHash: '0xb' }],
      nextBlock: 10,
    });
    const posted = JSON.parse(JSON.stringify(await h.ledger.settlements.get(h.tenantId, watched))) as { matchedTransactionId: string };
    const ofWatcher = await refusal(reverse(posted.matchedTransactionId));
    expect(ofWatcher.message).toBe(`Transaction ${posted.matchedTransactionId} was posted by the chain watcher for settlement ${watched}: it records a transfer that is final on chain. Correct it with an ordinary posting.`);
    const lookalike = await settle('0x3');
    const user = await postLines(h, [chainLine(vault, 'DEBIT', '3', { txHash: '0x3' }), chainLine(sales, 'CREDIT', '3', { txHash: '0x3' })], { source: 'chain-watcher', settlementId: watched });
    expect((await refusal(reverse(user.transactionId))).message).toMatch(new RegExp(`settled settlement ${lookalike}, which stays SETTLED`));

    expect(await refusal(reverse('01a21b7f-0000-7000-8000-000000000000'))).toMatchObject({ code: 'NOT_FOUND' });
  });
});
