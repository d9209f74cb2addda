// Settlement expectations (src/core/usecases/settlements.ts) over a real SQLite store: registering once per key,
// reading, listing with filters, cancelling, expiring, and settling by a posting's on-chain line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisterSettlementBody } from '../../src/core/schemas.js';
import { account, auditOf, chainLine, newKey, openLedger, postLines, SENDER, WALLET, type Harness } from './ledger-harness.js';
import { REGISTER_SETTLEMENT_ENDPOINT } from '../../src/core/commands/settlements.js';

/** Counts the store's reads of the earliest PENDING expiry from now on: `reads.n`. */
function countNextExpiryReads(t: Harness): { n: number } {
  const reads = { n: 0 };
  const nextExpiry = t.store.nextExpiry.bind(t.store);
  t.store.nextExpiry = () => {
    reads.n++;
    return nextExpiry();
  };
  return reads;
}

describe('settlements', () => {
  let h: Harness;
  let wallet: string;
  let clearing: string;
  const body = (fields: Partial<RegisterSettlementBody> = {}): RegisterSettlementBody => ({
    accountId: wallet,
    expectedToken: 'USDC',
    expectedAmount: '10.50',
    expectedWalletAddress: WALLET,
    expectedChainId: 'EVM',
    ...fields,
  });
  const register = async (fields: Partial<RegisterSettlementBody> = {}, key = newKey()) => {
    const res = await h.ledger.settlements.register(h.tenantId, h.actor, key, body(fields));
    return { res, view: JSON.parse(res.body) as Record<string, unknown> & { settlementId: string } };
  };

  beforeAll(async () => {
    h = await openLedger({ settlementTtlSeconds: 3600 });
    wallet = await account(h, { type: 'ASSET' });
    clearing = await account(h, { type: 'LIABILITY' });
  });
  afterAll(async () => h?.close());

  it('registers a PENDING settlement with its expiry, idempotency record and audit record', async () => {
    h.clock.set('2030-07-01T00:00:00.000Z');
    const key = newKey();
    const { res, view } = await register({ expectedFromAddress: SENDER }, key);
    expect(res.status).toBe(201);
    expect(view).toEqual({
      settlementId: view.settlementId,
      accountId: wallet,
      expectedToken: 'USDC',
      expectedAmount: '10.50',
      expectedWalletAddress: WALLET,
      expectedChainId: 'EVM',
      expectedFromAddress: SENDER,
      status: 'PENDING',
      matchedTransactionId: null,
      txHash: null,
      blockNumber: null,
      confirmedAt: null,
      expiresAt: '2030-07-01T01:00:00.000Z',
      createdAt: '2030-07-01T00:00:00.000Z',
    });
    expect(await h.store.idempotency(h.tenantId, REGISTER_SETTLEMENT_ENDPOINT, key)).toMatchObject({ status: 201, body: res.body });
    expect(REGISTER_SETTLEMENT_ENDPOINT).toBe('POST /api/v1/settlements');
    const record = (await auditOf(h)).at(-1)!;
    expect(record.action).toBe('REGISTER_SETTLEMENT');
    expect(record.payload).toEqual({
      settlementId: view.settlementId,
      accountId: wallet,
      expectedToken: 'USDC',
      expectedAmount: '10.50',
      expectedChainId: 'EVM',
      expectedWalletAddress: WALLET,
      expectedFromAddress: SENDER,
      expiresAt: '2030-07-01T01:00:00.000Z',
      idempotencyKey: key,
    });
    expect(await h.ledger.settlements.get(h.tenantId, view.settlementId)).toEqual(view);
    const stored = (await h.store.settlement(h.tenantId, view.settlementId))!;
    expect(stored.amountMinor).toBe(10_500_000n);
    expect(stored.fromAddress).toBe(SENDER);
    await h.ledger.settlements.cancel(h.tenantId, h.actor, view.settlementId);
  });

  it('no sender expected is stored as null', async () => {
    const { view } = await register();
    expect(view.expectedFromAddress).toBeNull();
    await h.ledger.settlements.cancel(h.tenantId, h.actor, view.settlementId);
  });

  it('a replay answers the first response; the same amount written otherwise is the same request; another is refused', async () => {
    const key = newKey();
    const first = await register({ expectedAmount: '10.5' }, key);
    expect(await h.ledger.settlements.register(h.tenantId, h.actor, key, body({ expectedAmount: '10.500' }))).toEqual(first.res);
    for (const other of [{ expectedAmount: '10.51' }, { accountId: clearing }, { expectedToken: 'USDT' as const }, { expectedChainId: 'TRON' as const }, { expectedWalletAddress: 'w2' }, { expectedFromAddress: 'x' }]) {
      await expect(h.ledger.settlements.register(h.tenantId, h.actor, key, body({ expectedAmount: '10.5', ...other }))).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    }
    await h.ledger.settlements.cancel(h.tenantId, h.actor, first.view.settlementId);
  });

  it('refuses an amount with too many places or of zero, and an unknown account', async () => {
    await expect(register({ expectedAmount: '1.1234567' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'Invalid request body: expectedAmount has more than 6 decimal places for USDC.',
      details: [{ path: 'expectedAmount', message: 'has more than 6 decimal places for USDC' }],
    });
    await expect(register({ expectedAmount: '0' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const unknown = '0190a1b2-0000-7000-8000-0000000000dd';
    await expect(register({ accountId: unknown })).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND', message: `accountId ${unknown} is not an account of this tenant.` });
  });

  it('get answers 404 for an unknown settlement', async () => {
    await expect(h.ledger.settlements.get(h.tenantId, '0190a1b2-0000-7000-8000-0000000000dc')).rejects.toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: 'Settlement 0190a1b2-0000-7000-8000-0000000000dc was not found.' }),
    );
  });

  it('cancels a PENDING settlement once; a CANCELLED one answers unchanged; a final one is 409', async () => {
    const { view } = await register();
    h.clock.advance(1000);
    const cancelled = await h.ledger.settlements.cancel(h.tenantId, h.actor, view.settlementId);
    expect(cancelled).toMatchObject({ settlementId: view.settlementId, status: 'CANCELLED' });
    expect(cancelled).not.toHaveProperty('expiresAt');
    const record = (await auditOf(h)).at(-1)!;
    expect(record.action).toBe('CANCEL_SETTLEMENT');
    expect(record.occurredAt).toBe(h.clock.now().toISOString());
    expect(record.payload).toEqual({ settlementId: view.settlementId, accountId: wallet });
    const audits = (await auditOf(h)).length;
    expect(await h.ledger.settlements.cancel(h.tenantId, h.actor, view.settlementId)).toEqual(cancelled);
    expect((await auditOf(h)).length).toBe(audits);
    await expect(h.ledger.settlements.cancel(h.tenantId, h.actor, '0190a1b2-0000-7000-8000-0000000000db')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Settlement 0190a1b2-0000-7000-8000-0000000000db was not found.',
    });
    // A SETTLED one cannot be cancelled.
    const settled = await register({ expectedAmount: '2' });
    await postLines(h, [chainLine(wallet, 'DEBIT', '2', { txHash: '0xcancel' }), chainLine(clearing, 'CREDIT', '2', { txHash: '0xcancel' })]);
    expect((await h.ledger.settlements.get(h.tenantId, settled.view.settlementId)).status).toBe('SETTLED');
    await expect(h.ledger.settlements.cancel(h.tenantId, h.actor, settled.view.settlementId)).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `Settlement ${settled.view.settlementId} is SETTLED; only a PENDING settlement can be cancelled.`,
    });
  });

  it('a posting settles the oldest matching PENDING settlement: status, audit record, event and reconciliation result', async () => {
    h.clock.set('2030-07-02T00:00:00.000Z');
    const older = await register({ expectedAmount: '7', expectedWalletAddress: WALLET.toUpperCase().replace('0X', '0x') });
    h.clock.advance(1);
    const newer = await register({ expectedAmount: '7' });
    h.clock.advance(1);
    const { transactionId } = await postLines(h, [
      chainLine(clearing, 'CREDIT', '7', { txHash: '0xfeed', blockNumber: 99 }),
      chainLine(wallet, 'DEBIT', '7', { txHash: '0xfeed', blockNumber: 99 }),
    ]);
    const at = h.clock.now().toISOString();
    expect(await h.ledger.settlements.get(h.tenantId, older.view.settlementId)).toMatchObject({
      status: 'SETTLED',
      matchedTransactionId: transactionId,
      txHash: '0xfeed',
      blockNumber: 99,
      confirmedAt: at,
    });
    expect(await h.ledger.settlements.get(h.tenantId, older.view.settlementId)).not.toHaveProperty('expiresAt');
    expect((await h.store.settlement(h.tenantId, older.view.settlementId))!.matchedLineNo).toBe(1);
    expect((await h.ledger.settlements.get(h.tenantId, newer.view.settlementId)).status).toBe('PENDING');
    const matched = (await auditOf(h)).find((r) => r.action === 'SETTLEMENT_MATCHED' && r.payload.settlementId === older.view.settlementId)!;
    expect(matched.payload).toEqual({ settlementId: older.view.settlementId, transactionId, lineNo: 1, txHash: '0xfeed', source: 'POSTING' });
    expect(matched.actorKeyId).toBe(h.actor.keyId);
    const event = (await h.store.outboxAfter(h.tenantId, (await h.store.lastOutboxSeq(h.tenantId)) - 1))!;
    expect(event.type).toBe('settlement.matched');
    expect(JSON.parse(event.payload)).toMatchObject({ settlementId: older.view.settlementId, status: 'SETTLED', matchedTransactionId: transactionId });
    const results = (await h.ledger.reconciliation.listResults(h.tenantId, {})).items.map((i) => i.value);
    expect(results[0]).toEqual({ transactionId, outcome: 'SETTLED', settlementId: older.view.settlementId, source: 'POSTING', reconciledAt: at });
    await h.ledger.settlements.cancel(h.tenantId, h.actor, newer.view.settlementId);
  });

  it('a CREDIT line, another account, token, amount, chain or wallet settles nothing', async () => {
    const { view } = await register({ expectedAmount: '3' });
    await postLines(h, [chainLine(clearing, 'DEBIT', '3'), chainLine(wallet, 'CREDIT', '3')]);
    await postLines(h, [chainLine(wallet, 'DEBIT', '3', { token: 'USDT' }), chainLine(clearing, 'CREDIT', '3', { token: 'USDT' })]);
    await postLines(h, [chainLine(wallet, 'DEBIT', '3.000001'), chainLine(clearing, 'CREDIT', '3.000001')]);
    await postLines(h, [chainLine(wallet, 'DEBIT', '3', { chainId: 'SOLANA' }), chainLine(clearing, 'CREDIT', '3', { chainId: 'SOLANA' })]);
    await postLines(h, [chainLine(wallet, 'DEBIT', '3', { walletAddress: '0x00000000000000000000000000000000000000cc' }), chainLine(clearing, 'CREDIT', '3')]);
    expect((await h.ledger.settlements.get(h.tenantId, view.settlementId)).status).toBe('PENDING');
    await h.ledger.settlements.cancel(h.tenantId, h.actor, view.settlementId);
  });

  it('a settlement that expects a sender is settled by a posting only once a watcher has seen that sender', async () => {
    const { view } = await register({ expectedAmount: '4', expectedFromAddress: SENDER });
    await postLines(h, [chainLine(wallet, 'DEBIT', '4', { txHash: '0xs1' }), chainLine(clearing, 'CREDIT', '4', { txHash: '0xs1' })]);
    expect((await h.ledger.settlements.get(h.tenantId, view.settlementId)).status).toBe('PENDING');
    await h.ledger.settlements.cancel(h.tenantId, h.actor, view.settlementId);
  });

  it('a posting settles a settlement that expects a sender once a watcher has recorded that sender for the transfer', async () => {
    const other = '0x00000000000000000000000000000000000000ee';
    // Watched (a PENDING settlement on the wallet), but expecting another sender: the watcher records the transfer only.
    const watching = await register({ expectedAmount: '4', expectedFromAddress: other });
    const seen = await h.writer.run('recordTransfers', {
      chain: 'EVM',
      nextBlock: 1,
      transfers: [
        { chain: 'EVM', txHash: '0xABCD12', logIndex: 0, token: 'USDC', tokenContract: 'c', from: SENDER, to: WALLET, amountMinor: 4_000_000n, blockNumber: 5, blockHash: '0xb' },
      ],
    });
    expect(seen).toEqual({ seen: 1, matched: 0 });
    await h.ledger.settlements.cancel(h.tenantId, h.actor, watching.view.settlementId);
    const { view } = await register({ expectedAmount: '4', expectedFromAddress: SENDER });
    const { transactionId } = await postLines(h, [chainLine(wallet, 'DEBIT', '4', { txHash: '0xabcd12' }), chainLine(clearing, 'CREDIT', '4', { txHash: '0xabcd12' })]);
    expect(await h.ledger.settlements.get(h.tenantId, view.settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: transactionId });
  });

  it('two debit lines expecting different transfers each settle their own settlement', async () => {
    const five = await register({ expectedAmount: '5.25' });
    const six = await register({ expectedAmount: '6.25' });
    const { transactionId } = await postLines(h, [
      chainLine(wallet, 'DEBIT', '5.25', { txHash: '0x5256' }),
      chainLine(wallet, 'DEBIT', '6.25', { txHash: '0x5256' }),
      chainLine(clearing, 'CREDIT', '11.5', { txHash: '0x5256' }),
    ]);
    expect(await h.store.settlement(h.tenantId, five.view.settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: transactionId, matchedLineNo: 0 });
    expect(await h.store.settlement(h.tenantId, six.view.settlementId)).toMatchObject({ status: 'SETTLED', matchedTransactionId: transactionId, matchedLineNo: 1 });
  });

  it('the sender a watcher saw is looked up when any candidate expects one, so the oldest that expects it settles', async () => {
    const other = '0x00000000000000000000000000000000000000ee';
    const watching = await register({ expectedAmount: '8', expectedFromAddress: other });
    await h.writer.run('recordTransfers', {
      chain: 'EVM',
      nextBlock: 1,
      transfers: [{ chain: 'EVM', txHash: '0xABCD88', logIndex: 0, token: 'USDC', tokenContract: 'c', from: SENDER, to: WALLET, amountMinor: 8_000_000n, blockNumber: 5, blockHash: '0xb' }],
    });
    await h.ledger.settlements.cancel(h.tenantId, h.actor, watching.view.settlementId);
    const withSender = await register({ expectedAmount: '8', expectedFromAddress: SENDER });
    h.clock.advance(1);
    const anySender = await register({ expectedAmount: '8' });
    await postLines(h, [chainLine(wallet, 'DEBIT', '8', { txHash: '0xabcd88' }), chainLine(clearing, 'CREDIT', '8', { txHash: '0xabcd88' })]);
    expect((await h.store.settlement(h.tenantId, withSender.view.settlementId))!.status).toBe('SETTLED');
    expect((await h.store.settlement(h.tenantId, anySender.view.settlementId))!.status).toBe('PENDING');
    await h.ledger.settlements.cancel(h.tenantId, h.actor, anySender.view.settlementId);
  });

  it('lists settlements newest first, filtered by status and creation time, with a cursor bound to the filter', async () => {
    const t = await h.ledger.tenants.create('Lister', { type: 'HUMAN', keyId: 'cli' });
    const acct = await account(h, {}, t.tenantId);
    const reg = async (iso: string) => {
      h.clock.set(iso);
      const res = await h.ledger.settlements.register(t.tenantId, h.actor, newKey(), body({ accountId: acct }));
      return (JSON.parse(res.body) as { settlementId: string }).settlementId;
    };
    const a = await reg('2030-08-01T00:00:00.000Z');
    const b = await reg('2030-08-02T00:00:00.000Z');
    const c = await reg('2030-08-03T00:00:00.000Z');
    await h.ledger.settlements.cancel(t.tenantId, h.actor, b);
    const ids = async (q: Parameters<typeof h.ledger.settlements.list>[1]) => (await h.ledger.settlements.list(t.tenantId, q)).items.map((i) => i.value.settlementId);
    expect(await ids({})).toEqual([c, b, a]);
    expect(await ids({ status: 'PENDING' })).toEqual([c, a]);
    expect(await ids({ status: 'CANCELLED' })).toEqual([b]);
    expect(await ids({ from: Date.parse('2030-08-02T00:00:00.000Z') })).toEqual([c, b]);
    expect(await ids({ to: Date.parse('2030-08-02T00:00:00.000Z') })).toEqual([b, a]);
    expect(await ids({ from: Date.parse('2030-08-02T00:00:00.000Z'), to: Date.parse('2030-08-02T00:00:00.000Z') })).toEqual([b]);
    await expect(ids({ from: 2, to: 1 })).rejects.toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', message: 'Invalid query: from must not be after to.', details: [{ path: 'from', message: 'is after to' }] }));
    const page = await h.ledger.settlements.list(t.tenantId, { limit: 1 });
    expect(await ids({ limit: 1, cursor: page.nextCursor! })).toEqual([b]);
    for (const other of [{ status: 'PENDING' as const }, { from: 1 }, { to: Date.parse('2031-01-01T00:00:00.000Z') }]) {
      await expect(ids({ ...other, cursor: page.nextCursor! })).rejects.toThrow(expect.objectContaining({ details: [{ path: 'cursor', message: 'was given with another query' }] }));
    }
    // A cursor of one filter does not page another filter of the same kind, nor another tenant's list.
    const pendingPage = await h.ledger.settlements.list(t.tenantId, { status: 'PENDING', limit: 1 });
    await expect(ids({ status: 'CANCELLED', cursor: pendingPage.nextCursor! })).rejects.toThrow(expect.objectContaining({ details: [{ path: 'cursor', message: 'was given with another query' }] }));
    const fromPage = await h.ledger.settlements.list(t.tenantId, { from: 1, limit: 1 });
    await expect(ids({ from: 2, cursor: fromPage.nextCursor! })).rejects.toThrow(expect.objectContaining({ details: [{ path: 'cursor', message: 'was given with another query' }] }));
    const toPage = await h.ledger.settlements.list(t.tenantId, { to: Date.parse('2031-01-01T00:00:00.000Z'), limit: 1 });
    await expect(ids({ to: Date.parse('2031-01-02T00:00:00.000Z'), cursor: toPage.nextCursor! })).rejects.toThrow(expect.objectContaining({ details: [{ path: 'cursor', message: 'was given with another query' }] }));
    await expect(h.ledger.settlements.list(h.tenantId, { limit: 1, cursor: page.nextCursor! })).rejects.toThrow(expect.objectContaining({ details: [{ path: 'cursor', message: 'not valid for this list' }] }));
    const filtered = await h.ledger.settlements.list(t.tenantId, { status: 'PENDING', limit: 1 });
    expect(await ids({ status: 'PENDING', limit: 1, cursor: filtered.nextCursor! })).toEqual([a]);
    await h.ledger.settlements.cancel(t.tenantId, h.actor, a);
    await h.ledger.settlements.cancel(t.tenantId, h.actor, c);
  });

  it('expireDue turns PENDING settlements past their expiry into UNMATCHED, with audit record and event', async () => {
    const t = await openLedger({ settlementTtlSeconds: 60 });
    try {
      const acct = await account(t);
      t.clock.set('2030-09-01T00:00:00.000Z');
      expect(await t.ledger.settlements.expireDue(100)).toBe(0);
      const res = await t.ledger.settlements.register(t.tenantId, t.actor, newKey(), { ...body(), accountId: acct });
      const id = (JSON.parse(res.body) as { settlementId: string }).settlementId;
      t.clock.set('2030-09-01T00:00:59.999Z');
      expect(await t.ledger.settlements.expireDue(100)).toBe(0);
      t.clock.set('2030-09-01T00:01:00.000Z');
      expect(await t.ledger.settlements.expireDue(100)).toBe(1);
      const expired = await t.ledger.settlements.get(t.tenantId, id);
      expect(expired.status).toBe('UNMATCHED');
      expect(expired).not.toHaveProperty('expiresAt');
      const record = (await auditOf(t)).at(-1)!;
      expect(record.action).toBe('SETTLEMENT_UNMATCHED');
      expect(record.actorKeyId).toBe('system');
      expect(record.type).toBe('HUMAN');
      expect(record.payload).toEqual({ settlementId: id, accountId: acct, expiredAt: '2030-09-01T00:01:00.000Z' });
      const event = (await t.store.outboxAfter(t.tenantId, (await t.store.lastOutboxSeq(t.tenantId)) - 1))!;
      expect(event.type).toBe('settlement.unmatched');
      expect(event.createdAt).toBe('2030-09-01T00:01:00.000Z');
      expect(JSON.parse(event.payload)).toMatchObject({ settlementId: id, status: 'UNMATCHED' });
      expect(JSON.parse(event.payload)).not.toHaveProperty('expiresAt');
      expect(await t.ledger.settlements.expireDue(100)).toBe(0);
      // An UNMATCHED settlement is final.
      await expect(t.ledger.settlements.cancel(t.tenantId, t.actor, id)).rejects.toMatchObject({ code: 'CONFLICT' });
    } finally {
      await t.close();
    }
  });

  it('expireDue keeps the earliest expiry in memory, lowers it on registration, and reads it again every few seconds', async () => {
    const t = await openLedger({ settlementTtlSeconds: 60 });
    try {
      const acct = await account(t);
      const reads = countNextExpiryReads(t);
      t.clock.set('2030-10-01T00:00:00.000Z');
      expect(await t.ledger.settlements.expireDue(10)).toBe(0);
      expect(reads.n).toBe(1);
      // Nothing due, nothing read again within the interval.
      t.clock.advance(1999);
      expect(await t.ledger.settlements.expireDue(10)).toBe(0);
      expect(reads.n).toBe(1);
      // A registration here lowers the remembered expiry (none, so far) without a read.
      const res = await t.ledger.settlements.register(t.tenantId, t.actor, newKey(), { ...body(), accountId: acct });
      t.clock.advance(60_000);
      expect(reads.n).toBe(1);
      expect(await t.ledger.settlements.expireDue(10)).toBe(1);
      expect(reads.n).toBe(2);
      expect((await t.ledger.settlements.get(t.tenantId, (JSON.parse(res.body) as { settlementId: string }).settlementId)).status).toBe('UNMATCHED');
      // After a sweep the expiry is read again on the next call.
      expect(await t.ledger.settlements.expireDue(10)).toBe(0);
      expect(reads.n).toBe(3);
      // Two registrations: the earlier expiry is the one remembered.
      await t.ledger.settlements.register(t.tenantId, t.actor, newKey(), { ...body(), accountId: acct, expectedAmount: '1' });
      t.clock.advance(10_000);
      await t.ledger.settlements.register(t.tenantId, t.actor, newKey(), { ...body(), accountId: acct, expectedAmount: '2' });
      t.clock.advance(50_000);
      expect(reads.n).toBe(3);
      expect(await t.ledger.settlements.expireDue(10)).toBe(1);
      // The limit bounds one sweep.
      for (let i = 0; i < 3; i++) await t.ledger.settlements.register(t.tenantId, t.actor, newKey(), { ...body(), accountId: acct, expectedAmount: `${3 + i}` });
      t.clock.advance(120_000);
      expect(await t.ledger.settlements.expireDue(2)).toBe(2);
      expect(await t.ledger.settlements.expireDue(2)).toBe(2);
      expect(await t.ledger.settlements.expireDue(2)).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('a registration between two reads is remembered: it expires without a read, and an earlier one lowers the expiry', async () => {
    const t = await openLedger({ settlementTtlSeconds: 1 });
    try {
      const acct = await account(t);
      const reads = countNextExpiryReads(t);
      const writes: string[] = [];
      const run = t.writer.run.bind(t.writer);
      t.writer.run = ((name: never, args: never) => {
        writes.push(name);
        return run(name, args);
      }) as typeof t.writer.run;
      t.clock.set('2030-12-01T00:00:00.000Z');
      // Another process registered one that expires in 10 s.
      await run('registerSettlement', {
        tenantId: t.tenantId,
        actor: t.actor,
        input: { accountId: acct, token: 'USDC', amountText: '1', amountMinor: 1_000_000n, chain: 'EVM', walletAddress: WALLET, fromAddress: null },
        key: newKey(),
        hash: 'ab'.repeat(32), // a request hash is a SHA-256 digest in hexadecimal
        ttlMs: 10_000,
      });
      expect(await t.ledger.settlements.expireDue(10)).toBe(0);
      expect(reads.n).toBe(1);
      // Not due yet: no write, and no read again within the interval.
      t.clock.advance(100);
      expect(await t.ledger.settlements.expireDue(10)).toBe(0);
      expect(reads.n).toBe(1);
      expect(writes.filter((w) => w === 'expireSettlements')).toEqual([]);
      // Registered here, expiring in 1 s: earlier than the one remembered.
      await t.ledger.settlements.register(t.tenantId, t.actor, newKey(), { ...body(), accountId: acct });
      t.clock.advance(1500);
      expect(await t.ledger.settlements.expireDue(10)).toBe(1);
      expect(reads.n).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('a registration after nothing was due is remembered too', async () => {
    const t = await openLedger({ settlementTtlSeconds: 1 });
    try {
      const acct = await account(t);
      t.clock.set('2030-12-02T00:00:00.000Z');
      expect(await t.ledger.settlements.expireDue(10)).toBe(0);
      await t.ledger.settlements.register(t.tenantId, t.actor, newKey(), { ...body(), accountId: acct });
      t.clock.advance(1500);
      expect(await t.ledger.settlements.expireDue(10)).toBe(1);
      // After a sweep nothing is remembered: a registration now waits for the next read.
      await t.ledger.settlements.register(t.tenantId, t.actor, newKey(), { ...body(), accountId: acct, expectedAmount: '2' });
      t.clock.advance(1500);
      expect(await t.ledger.settlements.expireDue(10)).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('a settlement registered by another process is found when the expiry is read again', async () => {
    const t = await openLedger({ settlementTtlSeconds: 60 });
    try {
      const acct = await account(t);
      t.clock.set('2030-11-01T00:00:00.000Z');
      expect(await t.ledger.settlements.expireDue(10)).toBe(0);
      // Written past the service, as another process would.
      await t.writer.run('registerSettlement', {
        tenantId: t.tenantId,
        actor: t.actor,
        input: { accountId: acct, token: 'USDC', amountText: '1', amountMinor: 1_000_000n, chain: 'EVM', walletAddress: WALLET, fromAddress: null },
        key: newKey(),
        hash: 'ab'.repeat(32), // a request hash is a SHA-256 digest in hexadecimal
        ttlMs: 1000,
      });
      t.clock.advance(1500);
      expect(await t.ledger.settlements.expireDue(10)).toBe(0);
      t.clock.advance(500);
      expect(await t.ledger.settlements.expireDue(10)).toBe(1);
    } finally {
      await t.close();
    }
  });
});
