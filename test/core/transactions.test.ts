// Posting and reading transactions (src/core/usecases/transactions.ts) over a real SQLite store: idempotency,
// account checks, running balances, the stored document, audit record and event, and the newest-first listing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestHash } from '../../src/core/idempotency.js';
import type { TransactionInput } from '../../src/core/types.js';
import { account, auditOf, chainLine, fiatLine, newKey, openLedger, postLines, toJsonText, type Harness } from './ledger-harness.js';
import { usdLine } from './lines.js';
import { POST_TRANSACTION_ENDPOINT } from '../../src/core/commands/transactions.js';
import { checkAccounts, renderPosting } from '../../src/core/commands/posting.js';
import { fingerprint } from '../../src/core/posting.js';


describe('fingerprint', () => {
  it('is the same for the same request whatever the metadata order, and differs in any line field', () => {
    const base: TransactionInput = { metadata: { b: '2', a: '1' }, lines: [usdLine('x', 'DEBIT', 150n), usdLine('y', 'CREDIT', 150n)] };
    expect(fingerprint(base)).toBe(fingerprint({ ...base, metadata: { a: '1', b: '2' } }));
    expect(fingerprint(base)).toBe('[[["a","1"],["b","2"]],[["x","DEBIT","USD","150",null,{"kind":"FIAT","rail":"ACH","bankReference":null}],["y","CREDIT","USD","150",null,{"kind":"FIAT","rail":"ACH","bankReference":null}]]]');
    const variants: TransactionInput[] = [
      { ...base, metadata: { a: '1' } },
      { ...base, lines: [usdLine('z', 'DEBIT', 150n), base.lines[1]!] },
      { ...base, lines: [usdLine('x', 'CREDIT', 150n), base.lines[1]!] },
      { ...base, lines: [usdLine('x', 'DEBIT', 150n, { asset: 'BRL' }), base.lines[1]!] },
      { ...base, lines: [usdLine('x', 'DEBIT', 151n), base.lines[1]!] },
      { ...base, lines: [usdLine('x', 'DEBIT', 150n, { description: 'd' }), base.lines[1]!] },
      { ...base, lines: [usdLine('x', 'DEBIT', 150n, { details: { kind: 'FIAT', rail: 'PIX', bankReference: null } }), base.lines[1]!] },
    ];
    for (const v of variants) expect(fingerprint(v)).not.toBe(fingerprint(base));
  });
});

describe('transactions', () => {
  let h: Harness;
  let cash: string;
  let sales: string;
  let brl: string;
  beforeAll(async () => {
    h = await openLedger();
    cash = await account(h, { type: 'ASSET' });
    sales = await account(h, { type: 'REVENUE' });
    brl = await account(h, { type: 'ASSET', currency: 'BRL' });
  });
  afterAll(async () => h?.close());

  it('posts a balanced transaction: document, entries, balances, audit record and event', async () => {
    h.clock.set('2030-03-01T10:00:00.000Z');
    const key = newKey();
    const res = await h.ledger.transactions.post(h.tenantId, h.actor, key, {
      lines: [fiatLine(cash, 'DEBIT', '12.30', 'USD', { description: 'in' }), fiatLine(sales, 'CREDIT', '12.3')],
      metadata: { order: '42' },
    });
    expect(res.status).toBe(201);
    const { transactionId } = JSON.parse(res.body) as { transactionId: string };
    expect(Object.keys(JSON.parse(res.body))).toEqual(['transactionId']);
    const doc = JSON.parse(toJsonText(await h.ledger.transactions.get(h.tenantId, transactionId)));
    expect(doc).toMatchObject({ transactionId, metadata: { order: '42' }, createdAt: '2030-03-01T10:00:00.000Z', effectiveAt: '2030-03-01T10:00:00.000Z' });
    expect(doc.lines).toHaveLength(2);
    expect(doc.lines[0]).toMatchObject({ accountId: cash, transactionId, type: 'DEBIT', description: 'in', monetary: { type: 'FIAT', amount: 12.3, currency: 'USD', rail: 'ACH', bankReference: null } });
    expect(doc.lines[1]).toMatchObject({ accountId: sales, type: 'CREDIT', createdAt: '2030-03-01T10:00:00.000Z' });
    expect(doc.lines[1]).not.toHaveProperty('description');
    expect(await h.store.currentBalance(h.tenantId, cash, 'USD')).toBe(1230n);
    expect(await h.store.currentBalance(h.tenantId, sales, 'USD')).toBe(-1230n);
    const record = (await auditOf(h)).at(-1)!;
    expect(record.action).toBe('POST_TRANSACTION');
    expect(record.occurredAt).toBe('2030-03-01T10:00:00.000Z');
    expect(record.payload).toEqual({ transactionId, lineCount: 2, idempotencyKey: key, effectiveAt: '2030-03-01T10:00:00.000Z' });
    const event = (await h.store.outboxAfter(h.tenantId, (await h.store.lastOutboxSeq(h.tenantId)) - 1))!;
    expect(event.type).toBe('transaction.committed');
    expect(JSON.parse(event.payload)).toEqual(doc);
    expect(event.createdAt).toBe('2030-03-01T10:00:00.000Z');
    // The idempotency record holds the response and the request's hash.
    const stored = (await h.store.idempotency(h.tenantId, POST_TRANSACTION_ENDPOINT, key))!;
    expect(stored).toEqual({ requestHash: stored.requestHash, status: 201, body: res.body });
    expect(POST_TRANSACTION_ENDPOINT).toBe('POST /api/v1/transactions');
  });

  it('keeps running balances per account and asset within one posting and across postings', async () => {
    const a = await account(h);
    const b = await account(h, { type: 'LIABILITY' });
    const { transactionId } = await postLines(h, [fiatLine(a, 'DEBIT', '1'), fiatLine(a, 'DEBIT', '2'), fiatLine(b, 'CREDIT', '3')]);
    await postLines(h, [fiatLine(a, 'CREDIT', '0.5'), fiatLine(b, 'DEBIT', '0.5')]);
    const statement = await h.ledger.entries.statement(h.tenantId, a, 0, h.clock.now().getTime());
    expect(statement.movements.map((m) => [m.type, m.amount.text])).toEqual([
      ['DEBIT', '1'],
      ['DEBIT', '2'],
      ['CREDIT', '0.5'],
    ]);
    expect((await h.store.entriesBetween(h.tenantId, a, 'USD', '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z', null, 10)).map((e) => [e.lineNo, e.balanceAfterMinor])).toEqual([
      [0, 100n],
      [1, 300n],
      [0, 250n],
    ]);
    expect(await h.store.balances(h.tenantId, a)).toEqual(new Map([['USD', 250n]]));
    expect(await h.store.balances(h.tenantId, b)).toEqual(new Map([['USD', -250n]]));
    expect((await h.store.entriesBetween(h.tenantId, b, 'USD', '2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z', null, 10))[0]!.transactionId).toBe(transactionId);
  });

  it('a replay answers the original response and writes nothing; another body under the key is refused', async () => {
    const key = newKey();
    const body = { lines: [fiatLine(cash, 'DEBIT', '2.5'), fiatLine(sales, 'CREDIT', '2.5')] };
    const first = await h.ledger.transactions.post(h.tenantId, h.actor, key, body);
    const audits = (await auditOf(h)).length;
    const again = await h.ledger.transactions.post(h.tenantId, h.actor, key, { lines: [fiatLine(cash, 'DEBIT', '2.50'), fiatLine(sales, 'CREDIT', '2.50')] });
    expect(again).toEqual(first);
    expect((await auditOf(h)).length).toBe(audits);
    await expect(h.ledger.transactions.post(h.tenantId, h.actor, key, { lines: [fiatLine(cash, 'DEBIT', '3'), fiatLine(sales, 'CREDIT', '3')] })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: 'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
    });
    // The hash stored is the hash of the fingerprint.
    const stored = (await h.store.idempotency(h.tenantId, POST_TRANSACTION_ENDPOINT, key))!;
    expect(stored.requestHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a second request under a key still in flight is 409 IDEMPOTENCY_IN_PROGRESS', async () => {
    const key = newKey();
    const body = { lines: [fiatLine(cash, 'DEBIT', '1'), fiatLine(sales, 'CREDIT', '1')] };
    const first = h.ledger.transactions.post(h.tenantId, h.actor, key, body);
    await expect(h.ledger.transactions.post(h.tenantId, h.actor, key, body)).rejects.toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
    await first;
    // Once done, the same key replays.
    expect(await h.ledger.transactions.post(h.tenantId, h.actor, key, body)).toEqual(await first);
  });

  it('refuses an unbalanced posting with 422 and writes nothing, not even an idempotency record', async () => {
    const key = newKey();
    await expect(h.ledger.transactions.post(h.tenantId, h.actor, key, { lines: [fiatLine(cash, 'DEBIT', '1'), fiatLine(sales, 'CREDIT', '2')] })).rejects.toMatchObject({
      code: 'UNBALANCED',
    });
    expect(await h.store.idempotency(h.tenantId, POST_TRANSACTION_ENDPOINT, key)).toBeUndefined();
  });

  it('refuses an unknown account and a fiat line in another currency, naming the line', async () => {
    const unknown = '0190a1b2-0000-7000-8000-0000000000ff';
    await expect(postLines(h, [fiatLine(cash, 'DEBIT', '1'), fiatLine(unknown, 'CREDIT', '1')])).rejects.toMatchObject({
      code: 'ACCOUNT_NOT_FOUND',
      message: `lines.1.accountId ${unknown} is not an account of this tenant.`,
    });
    await expect(postLines(h, [fiatLine(brl, 'DEBIT', '1', 'USD'), fiatLine(sales, 'CREDIT', '1')])).rejects.toMatchObject({
      code: 'CURRENCY_MISMATCH',
      message: `lines.0 is in USD but account ${brl} holds BRL.`,
    });
    // An on-chain line may sit on an account of any currency.
    const { transactionId } = await postLines(h, [chainLine(brl, 'DEBIT', '5'), chainLine(sales, 'CREDIT', '5')]);
    expect(await h.store.currentBalance(h.tenantId, brl, 'USDC')).toBe(5_000_000n);
    expect(await h.store.onchainLineRefs(h.tenantId, 'EVM', '0xabc')).toContainEqual({ transactionId, lineNo: 0 });
    // Another tenant's account is not found either.
    const other = await h.ledger.tenants.create('Other', { type: 'HUMAN', keyId: 'cli' });
    const theirs = await account(h, {}, other.tenantId);
    await expect(postLines(h, [fiatLine(cash, 'DEBIT', '1'), fiatLine(theirs, 'CREDIT', '1')])).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
  });

  it('checkAccounts checks every line, the last included', async () => {
    const unknown = '0190a1b2-0000-7000-8000-0000000000fe';
    const tx = h.store as unknown as Parameters<typeof checkAccounts>[0];
    await expect(checkAccounts(tx, h.tenantId, { metadata: {}, lines: [usdLine(cash, 'DEBIT', 1n), usdLine(sales, 'CREDIT', 1n), usdLine(unknown, 'CREDIT', 1n)] })).rejects.toThrow(
      expect.objectContaining({ code: 'ACCOUNT_NOT_FOUND', message: expect.stringContaining('lines.2.accountId') }),
    );
    await expect(checkAccounts(tx, h.tenantId, { metadata: {}, lines: [usdLine(cash, 'DEBIT', 1n), usdLine(brl, 'CREDIT', 1n, { asset: 'BRL' })] })).resolves.not.toThrow();
  });

  it('renderPosting gives each line an id and a head, under the transaction id given or a new one', () => {
    let n = 0;
    const ids = { next: () => `id-${++n}` };
    const input: TransactionInput = { metadata: {}, lines: [usdLine('a', 'DEBIT', 100n), usdLine('b', 'CREDIT', 100n)] };
    const r = renderPosting(input, ids, 'tx-1');
    expect(r).toEqual({ transactionId: 'tx-1', entryIds: ['id-1', 'id-2'], heads: expect.any(Array) });
    expect(JSON.parse(`${r.heads[0]}}`)).toEqual({ entryId: 'id-1', transactionId: 'tx-1', type: 'DEBIT', monetary: { type: 'FIAT', amount: 1, currency: 'USD', rail: 'ACH', bankReference: null } });
    const fresh = renderPosting(input, ids);
    expect(fresh.transactionId).toBe('id-3');
    expect(fresh.entryIds).toEqual(['id-4', 'id-5']);
  });

  it('get answers 404 for an unknown transaction', async () => {
    await expect(h.ledger.transactions.get(h.tenantId, '0190a1b2-0000-7000-8000-0000000000fd')).rejects.toThrow(
      expect.objectContaining({ code: 'NOT_FOUND', message: 'Transaction 0190a1b2-0000-7000-8000-0000000000fd was not found.' }),
    );
  });

  it('lists transactions newest first, paged by cursor', async () => {
    const t = await h.ledger.tenants.create('Lister', { type: 'HUMAN', keyId: 'cli' });
    const a = await account(h, {}, t.tenantId);
    const b = await account(h, {}, t.tenantId);
    const ids: string[] = [];
    for (let i = 1; i <= 3; i++) ids.push((await postLines(h, [fiatLine(a, 'DEBIT', `${i}`), fiatLine(b, 'CREDIT', `${i}`)], undefined, t.tenantId)).transactionId);
    const page = await h.ledger.transactionSearch.find(t.tenantId, { limit: 2 });
    expect(page.items.map((i) => JSON.parse(i.text).transactionId)).toEqual([ids[2], ids[1]]);
    const rest = await h.ledger.transactionSearch.find(t.tenantId, { limit: 2, cursor: page.nextCursor! });
    expect(rest.items.map((i) => JSON.parse(i.text).transactionId)).toEqual([ids[0]]);
    expect(rest.nextCursor).toBeNull();
    await expect(h.ledger.transactionSearch.find(h.tenantId, { cursor: page.nextCursor! })).rejects.toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });

  it('the request hash covers the fingerprint', () => {
    const input: TransactionInput = { metadata: {}, lines: [usdLine('a', 'DEBIT', 1n), usdLine('b', 'CREDIT', 1n)] };
    expect(requestHash(fingerprint(input))).toBe(requestHash(fingerprint(structuredClone(input))));
  });
});
