// Batch reconciliation (src/core/usecases/reconciliation.ts) and the chain watcher's writes
// (src/core/usecases/chainWatch.ts) over a real SQLite store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLEARING_ACCOUNT_NAME } from '../../src/core/commands/chainWatch.js';
import type { ObservedTransfer } from '../../src/core/chainWatch.js';
import type { RegisterSettlementBody } from '../../src/core/schemas.js';
import { commandWeight } from '../../src/core/commands.js';
import { account, auditOf, chainLine, fiatLine, newKey, openLedger, postLines, SENDER, WALLET, type Harness } from './ledger-harness.js';
import { planWeight } from '../../src/core/commands/reconciliation.js';

const register = async (h: Harness, accountId: string, fields: Partial<RegisterSettlementBody> = {}, tenantId = h.tenantId) => {
  const res = await h.ledger.settlements.register(tenantId, h.actor, newKey(), {
    accountId,
    expectedToken: 'USDC',
    expectedAmount: '5',
    expectedWalletAddress: WALLET,
    expectedChainId: 'EVM',
    ...fields,
  });
  return (JSON.parse(res.body) as { settlementId: string }).settlementId;
};

describe('batch reconciliation', () => {
  let h: Harness;
  let wallet: string;
  let other: string;
  beforeAll(async () => {
    h = await openLedger();
    wallet = await account(h);
    other = await account(h, { type: 'LIABILITY' });
  });
  afterAll(async () => h?.close());

  it('records SETTLED, UNMATCHED, NOT_APPLICABLE and NOT_FOUND, and audits the batch', async () => {
    // Posted before the settlement existed: the posting settled nothing.
    const early = (await postLines(h, [chainLine(wallet, 'DEBIT', '5', { txHash: '0x01' }), chainLine(other, 'CREDIT', '5', { txHash: '0x01' })])).transactionId;
    const noMatch = (await postLines(h, [chainLine(wallet, 'DEBIT', '6', { txHash: '0x02' }), chainLine(other, 'CREDIT', '6', { txHash: '0x02' })])).transactionId;
    const fiatOnly = (await postLines(h, [fiatLine(wallet, 'DEBIT', '1'), fiatLine(other, 'CREDIT', '1')])).transactionId;
    const missing = '0190a1b2-0000-7000-8000-0000000000cc';
    const settlementId = await register(h, wallet);
    h.clock.advance(1000);
    const outcomes = await h.ledger.reconciliation.reconcile(h.tenantId, h.actor, [early, noMatch, fiatOnly, missing]);
    expect(outcomes).toEqual([
      { transactionId: early, outcome: 'SETTLED' },
      { transactionId: noMatch, outcome: 'UNMATCHED' },
      { transactionId: fiatOnly, outcome: 'NOT_APPLICABLE' },
      { transactionId: missing, outcome: 'NOT_FOUND' },
    ]);
    const at = h.clock.now().toISOString();
    expect(await h.ledger.settlements.get(h.tenantId, settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: early, txHash: '0x01', confirmedAt: at });
    const results = (await h.ledger.reconciliation.listResults(h.tenantId, {})).items.map((i) => i.value);
    expect(results.slice(0, 4)).toEqual([
      { transactionId: missing, outcome: 'NOT_FOUND', settlementId: null, source: 'BATCH', reconciledAt: at },
      { transactionId: fiatOnly, outcome: 'NOT_APPLICABLE', settlementId: null, source: 'BATCH', reconciledAt: at },
      { transactionId: noMatch, outcome: 'UNMATCHED', settlementId: null, source: 'BATCH', reconciledAt: at },
      { transactionId: early, outcome: 'SETTLED', settlementId, source: 'BATCH', reconciledAt: at },
    ]);
    const batch = (await auditOf(h)).at(-1)!;
    expect(batch.action).toBe('RECONCILIATION_BATCH');
    expect(batch.payload).toEqual({
      results: [
        { transactionId: early, outcome: 'SETTLED', settlementId },
        { transactionId: noMatch, outcome: 'UNMATCHED', settlementId: null },
        { transactionId: fiatOnly, outcome: 'NOT_APPLICABLE', settlementId: null },
        { transactionId: missing, outcome: 'NOT_FOUND', settlementId: null },
      ],
    });
    const matched = (await auditOf(h)).find((r) => r.action === 'SETTLEMENT_MATCHED' && r.payload.settlementId === settlementId)!;
    expect(matched.payload.source).toBe('BATCH');

    // Again: the transaction stays SETTLED by the settlement it settled, and settles no other.
    const second = await register(h, wallet);
    const again = await h.ledger.reconciliation.reconcile(h.tenantId, h.actor, [early]);
    expect(again).toEqual([{ transactionId: early, outcome: 'SETTLED' }]);
    expect((await h.ledger.reconciliation.listResults(h.tenantId, { limit: 1 })).items[0]!.value.settlementId).toBe(settlementId);
    expect((await h.ledger.settlements.get(h.tenantId, second)).status).toBe('PENDING');
    await h.ledger.settlements.cancel(h.tenantId, h.actor, second);
  });

  it('a candidate read before the write is settled only if it is still PENDING', async () => {
    const tx = (await postLines(h, [chainLine(wallet, 'DEBIT', '5', { txHash: '0x03' }), chainLine(other, 'CREDIT', '5', { txHash: '0x03' })])).transactionId;
    const s = await register(h, wallet);
    // The batch reads its plan, then the settlement is cancelled before the write runs.
    const running = h.ledger.reconciliation.reconcile(h.tenantId, h.actor, [tx]);
    await h.ledger.settlements.cancel(h.tenantId, h.actor, s);
    expect(await running).toEqual([{ transactionId: tx, outcome: 'UNMATCHED' }]);
    expect((await h.ledger.settlements.get(h.tenantId, s)).status).toBe('CANCELLED');
  });

  it('two lines expecting the same transfer settle two settlements, oldest first', async () => {
    const tx = (
      await postLines(h, [
        chainLine(wallet, 'DEBIT', '5', { txHash: '0x04' }),
        chainLine(wallet, 'DEBIT', '5', { txHash: '0x04' }),
        chainLine(other, 'CREDIT', '10', { txHash: '0x04' }),
      ])
    ).transactionId;
    const s1 = await register(h, wallet);
    h.clock.advance(1);
    const s2 = await register(h, wallet);
    expect(await h.ledger.reconciliation.reconcile(h.tenantId, h.actor, [tx])).toEqual([{ transactionId: tx, outcome: 'SETTLED' }]);
    expect(await h.store.settlement(h.tenantId, s1)).toMatchObject({ status: 'SETTLED', matchedLineNo: 0 });
    expect(await h.store.settlement(h.tenantId, s2)).toMatchObject({ status: 'SETTLED', matchedLineNo: 1 });
    expect((await h.ledger.reconciliation.listResults(h.tenantId, { limit: 1 })).items[0]!.value.settlementId).toBe(s1);
  });

  it('a batch with more candidate lines than one write takes is written in parts, the audit record last with every result', async () => {
    const t = await openLedger();
    try {
      const w = await account(t);
      const o = await account(t, { type: 'LIABILITY' });
      // 999 debit lines with a candidate, then 2 more: 1001 in all, so two parts.
      const big = (await postLines(t, [...Array.from({ length: 999 }, () => chainLine(w, 'DEBIT', '1', { txHash: '0xbig' })), chainLine(o, 'CREDIT', '999', { txHash: '0xbig' })])).transactionId;
      const small = (await postLines(t, [chainLine(w, 'DEBIT', '1', { txHash: '0xsmall' }), chainLine(w, 'DEBIT', '1', { txHash: '0xsmall' }), chainLine(o, 'CREDIT', '2', { txHash: '0xsmall' })])).transactionId;
      const fiatOnly = (await postLines(t, [fiatLine(w, 'DEBIT', '1'), fiatLine(o, 'CREDIT', '1')])).transactionId;
      const one = (await postLines(t, [chainLine(w, 'DEBIT', '1', { txHash: '0xone' }), chainLine(o, 'CREDIT', '1', { txHash: '0xone' })])).transactionId;
      await register(t, w, { expectedAmount: '1' });
      const calls: Array<[number, number | null]> = [];
      const run = t.writer.run.bind(t.writer);
      t.writer.run = ((name: never, args: never) => {
        const a = args as { plans: unknown[]; before: unknown[] | null };
        if (name === 'reconcileBatch') calls.push([a.plans.length, a.before === null ? null : a.before.length]);
        return run(name, args);
      }) as typeof t.writer.run;
      // 999 and 1 fill one write exactly; the next 2 start another.
      const outcomes = await t.ledger.reconciliation.reconcile(t.tenantId, t.actor, [big, one, small, fiatOnly]);
      expect(calls).toEqual([
        [2, null],
        [2, 2],
      ]);
      expect(outcomes.map((x) => x.outcome)).toEqual(['SETTLED', 'UNMATCHED', 'UNMATCHED', 'NOT_APPLICABLE']);
      const batches = (await auditOf(t)).filter((r) => r.action === 'RECONCILIATION_BATCH');
      expect(batches).toHaveLength(1);
      expect((batches[0]!.payload.results as Array<{ transactionId: string }>).map((r) => r.transactionId)).toEqual([big, one, small, fiatOnly]);
      // A result list's cursor pages only its own tenant's results.
      const page = await t.ledger.reconciliation.listResults(t.tenantId, { limit: 1 });
      const other = await t.ledger.tenants.create('Other', { type: 'HUMAN', keyId: 'cli' });
      await expect(t.ledger.reconciliation.listResults(other.tenantId, { cursor: page.nextCursor! })).rejects.toThrow(
        expect.objectContaining({ details: [{ path: 'cursor', message: 'not valid for this list' }] }),
      );
      // Lines without candidates do not count toward a part: a batch of them is one write.
      calls.length = 0;
      await t.ledger.reconciliation.reconcile(t.tenantId, t.actor, [big, small, fiatOnly, big]);
      expect(calls).toEqual([[4, 0]]);
    } finally {
      await t.close();
    }
  });

  it('planWeight and commandWeight count the rows: a result per plan, a settlement with its audit record and event per line with candidates, the batch\'s audit record', () => {
    const plan = (lines: number) => ({ transactionId: 't', found: true, onchain: true, candidates: lines === 0 ? null : { lines: [], byLine: new Map(Array.from({ length: lines }, (_, i) => [i, []])) } });
    expect(planWeight([])).toBe(1);
    expect(planWeight([plan(0), plan(2), plan(3)])).toBe(1 + 3 + 3 * 5);
    expect(commandWeight('reconcileBatch', { tenantId: 't', actor: h.actor, plans: [plan(1)], before: null })).toBe(1 + 1 + 3);
  });
});

describe('chain watcher writes', () => {
  let h: Harness;
  let wallet: string;
  let other: string;
  let n = 0;
  const transfer = (fields: Partial<ObservedTransfer> = {}): ObservedTransfer => ({
    chain: 'EVM',
    txHash: `0xchain${++n}`,
    logIndex: 0,
    token: 'USDC',
    tokenContract: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    from: SENDER,
    to: WALLET,
    amountMinor: 5_000_000n,
    blockNumber: 100,
    blockHash: '0xblock',
    ...fields,
  });
  const record = (transfers: ObservedTransfer[], nextBlock = 200, chain: ObservedTransfer['chain'] = 'EVM') =>
    h.writer.run('recordTransfers', { chain, transfers, nextBlock });

  beforeAll(async () => {
    h = await openLedger();
    wallet = await account(h);
    other = await account(h, { type: 'LIABILITY' });
  });
  afterAll(async () => h?.close());

  it('moves the checkpoint forward only, counting what it saw and matched', async () => {
    expect(await record([], 10, 'TRON')).toEqual({ seen: 0, matched: 0 });
    expect(await h.store.chainCheckpoint('TRON')).toMatchObject({ chain: 'TRON', nextBlock: 10, transfersSeen: 0, transfersMatched: 0, updatedAt: h.clock.now().toISOString() });
    await record([], 5, 'TRON');
    expect((await h.store.chainCheckpoint('TRON'))!.nextBlock).toBe(10);
    await record([], 11, 'TRON');
    expect((await h.store.chainCheckpoint('TRON'))!.nextBlock).toBe(11);
  });

  it('a transfer nobody watches is not recorded', async () => {
    const before = await h.store.chainCheckpoint('EVM');
    expect(await record([transfer()])).toEqual({ seen: 0, matched: 0 });
    expect((await h.store.chainCheckpoint('EVM'))!.transfersSeen).toBe(before?.transfersSeen ?? 0);
  });

  it('a transfer with no posting settles its settlement by a posting of its own against the clearing account', async () => {
    const s = await register(h, wallet, { expectedFromAddress: SENDER.toUpperCase().replace('0X', '0x') });
    const t = transfer({ to: WALLET.toUpperCase().replace('0X', '0x') });
    h.clock.advance(1000);
    expect(await record([t])).toEqual({ seen: 1, matched: 1 });
    const at = h.clock.now().toISOString();
    const settled = (await h.store.settlement(h.tenantId, s))!;
    expect(settled).toMatchObject({ status: 'SETTLED', txHash: t.txHash, blockNumber: 100, confirmedAt: at, matchedLineNo: 0 });
    const clearingId = (await h.store.clearingAccountId(h.tenantId))!;
    expect(await h.ledger.accounts.get(h.tenantId, clearingId)).toMatchObject({
      name: CLEARING_ACCOUNT_NAME,
      description: 'Credited by the ledger for on-chain receipts no posting recorded',
      currency: 'USD',
      type: 'LIABILITY',
    });
    // The service's own posting is found by its hash, as any posting is.
    expect(await h.store.onchainLineRefs(h.tenantId, 'EVM', t.txHash)).toEqual([
      { transactionId: settled.matchedTransactionId, lineNo: 0 },
      { transactionId: settled.matchedTransactionId, lineNo: 1 },
    ]);
    expect(CLEARING_ACCOUNT_NAME).toBe('On-chain receipts clearing');
    expect(await h.store.currentBalance(h.tenantId, wallet, 'USDC')).toBe(5_000_000n);
    expect(await h.store.currentBalance(h.tenantId, clearingId, 'USDC')).toBe(-5_000_000n);
    const doc = JSON.parse((await h.store.transaction(h.tenantId, settled.matchedTransactionId!))!.document);
    expect(doc.metadata).toEqual({ source: 'chain-watcher', settlementId: s });
    expect(doc.lines.map((l: { accountId: string; type: string }) => [l.accountId, l.type])).toEqual([
      [wallet, 'DEBIT'],
      [clearingId, 'CREDIT'],
    ]);
    expect(doc.lines[0].monetary).toMatchObject({ type: 'ONCHAIN', token: 'USDC', chainId: 'EVM', txHash: t.txHash, blockNumber: 100, walletAddress: t.to, tokenContract: t.tokenContract });
    expect(doc.lines[0]).not.toHaveProperty('description');
    const audit = await auditOf(h);
    const posted = audit.find((r) => r.action === 'POST_TRANSACTION' && r.payload.source === 'CHAIN')!;
    expect(posted.actorKeyId).toBe('system');
    expect(posted.payload).toEqual({ transactionId: settled.matchedTransactionId, lineCount: 2, source: 'CHAIN', txHash: t.txHash, settlementId: s });
    const matched = audit.find((r) => r.action === 'SETTLEMENT_MATCHED' && r.payload.settlementId === s)!;
    expect(matched.payload.source).toBe('CHAIN');
    expect(matched.actorKeyId).toBe('system');
    expect((await h.ledger.reconciliation.listResults(h.tenantId, { limit: 1 })).items[0]!.value).toEqual({
      transactionId: settled.matchedTransactionId,
      outcome: 'SETTLED',
      settlementId: s,
      source: 'CHAIN',
      reconciledAt: at,
    });
    // Seen again (a re-scan): recorded once, settles nothing twice.
    expect(await record([t])).toEqual({ seen: 0, matched: 0 });
    // A second receipt reuses the clearing account.
    const s2 = await register(h, wallet);
    expect(await record([transfer()])).toEqual({ seen: 1, matched: 1 });
    expect((await h.store.settlement(h.tenantId, s2))!.status).toBe('SETTLED');
    expect(await h.store.clearingAccountId(h.tenantId)).toBe(clearingId);
    expect(await h.store.chainCheckpoint('EVM')).toMatchObject({ transfersSeen: 2, transfersMatched: 2 });
  });

  it('a transfer a posting already records settles by that posting', async () => {
    const hash = '0xposted';
    const { transactionId } = await postLines(h, [chainLine(other, 'CREDIT', '5', { txHash: hash }), chainLine(wallet, 'DEBIT', '5', { txHash: hash })]);
    const s = await register(h, wallet, { expectedFromAddress: SENDER });
    expect(await record([transfer({ txHash: hash })])).toEqual({ seen: 1, matched: 1 });
    expect(await h.store.settlement(h.tenantId, s)).toMatchObject({ status: 'SETTLED', matchedTransactionId: transactionId, matchedLineNo: 1 });
    expect((await h.ledger.reconciliation.listResults(h.tenantId, { limit: 1 })).items[0]!.value).toMatchObject({ transactionId, outcome: 'SETTLED', settlementId: s, source: 'CHAIN' });
    const matched = (await auditOf(h)).find((r) => r.action === 'SETTLEMENT_MATCHED' && r.payload.settlementId === s)!;
    expect(matched.payload).toMatchObject({ transactionId, source: 'CHAIN', lineNo: 1 });
    // That line is taken: a second settlement is settled by a posting of the service's own.
    const s2 = await register(h, wallet, { expectedFromAddress: SENDER });
    expect(await record([transfer({ txHash: hash, logIndex: 1 })])).toEqual({ seen: 1, matched: 1 });
    expect((await h.store.settlement(h.tenantId, s2))!.matchedTransactionId).not.toBe(transactionId);
  });

  it('a line of a posting settles one settlement; another line of the same posting may settle another', async () => {
    const hash = '0x2line';
    const s1 = await register(h, wallet, { expectedAmount: '2', expectedFromAddress: SENDER });
    const { transactionId } = await postLines(h, [
      chainLine(wallet, 'DEBIT', '2', { txHash: hash }),
      chainLine(wallet, 'DEBIT', '2', { txHash: hash }),
      chainLine(other, 'CREDIT', '4', { txHash: hash }),
    ]);
    expect(await record([transfer({ txHash: hash, amountMinor: 2_000_000n })])).toEqual({ seen: 1, matched: 1 });
    expect(await h.store.settlement(h.tenantId, s1)).toMatchObject({ matchedTransactionId: transactionId, matchedLineNo: 0 });
    const s2 = await register(h, wallet, { expectedAmount: '2', expectedFromAddress: SENDER });
    expect(await record([transfer({ txHash: hash, amountMinor: 2_000_000n, logIndex: 1 })])).toEqual({ seen: 1, matched: 1 });
    expect(await h.store.settlement(h.tenantId, s2)).toMatchObject({ matchedTransactionId: transactionId, matchedLineNo: 1 });
  });

  it('a sender other than the expected one, or another token or amount, settles nothing', async () => {
    const s = await register(h, wallet, { expectedFromAddress: SENDER });
    expect(await record([transfer({ from: '0x00000000000000000000000000000000000000dd' })])).toEqual({ seen: 1, matched: 0 });
    expect(await record([transfer({ amountMinor: 5_000_001n })])).toEqual({ seen: 1, matched: 0 });
    expect((await h.store.settlement(h.tenantId, s))!.status).toBe('PENDING');
    await h.ledger.settlements.cancel(h.tenantId, h.actor, s);
  });

  it('every tenant watching the wallet records the transfer once', async () => {
    const t2 = await h.ledger.tenants.create('Second', { type: 'HUMAN', keyId: 'cli' });
    const w2 = await account(h, {}, t2.tenantId);
    const a = await register(h, wallet);
    const b = await register(h, w2, {}, t2.tenantId);
    const c = await register(h, w2, { expectedAmount: '6' }, t2.tenantId);
    expect(await record([transfer()])).toEqual({ seen: 2, matched: 2 });
    expect((await h.store.settlement(h.tenantId, a))!.status).toBe('SETTLED');
    expect((await h.store.settlement(t2.tenantId, b))!.status).toBe('SETTLED');
    await h.ledger.settlements.cancel(t2.tenantId, h.actor, c);
  });
});
