// The small pure parts of src/core: agent records, webhook bodies and retries, commit times, views, paging limits,
// command weights, dependencies, scopes and errors.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chains, fiatCurrencies, rails, tokens } from '../../src/core/money.js';
import { rowsOf } from '../helpers/rows.js';
import { inputFromJson, inputToJson, type AgentTransaction } from '../../src/core/agent.js';
import { reverseOf } from '../../src/core/reversal.js';
import { DEFAULT_RETRY_POLICY, eventBody, retryDelayMs, secretPrefixOf, signature, type OutboxEvent } from '../../src/core/webhook.js';
import { CommitClock, systemClock, toIso } from '../../src/core/time.js';
import { accountView, agentTransactionView, amountView, apiKeyCreatedView, apiKeyListView, entryText, entryViewHead, lineText, monetaryView, policyRuleView, settlementView, transactionText } from '../../src/core/views.js';
import { countWithinAnswer, pageBySeq, Rendered } from '../../src/core/paging.js';
import { commands, runCommand } from '../../src/core/commands.js';
import { makeDeps, PEPPER_SECRET } from '../../src/core/context.js';
import { CursorCodec, CursorScope } from '../../src/core/cursor.js';
import { allows, isScope, scopes } from '../../src/core/scopes.js';
import { assert, errorBody, errorCodes, invalid, LedgerError, notFound, statusByCode } from '../../src/core/errors.js';
import { isUuid, uuidV7 } from '../../src/core/ids.js';
import { normalBalanceOf, type LineInput, type TransactionInput } from '../../src/core/types.js';
import { RawJson, toJsonText } from '../../src/core/json.js';
import { ANSWER_SIZE_MAX_BYTES, PAGE_SIZE_DEFAULT, SETTLEMENT_TTL_DEFAULT_SECONDS } from '../../src/core/limits.js';
import { canonicalTxHash, onchainLinesOf, type Settlement } from '../../src/core/settlement.js';
import { addDebits, debitsOf } from '../../src/core/policy.js';
import type { Deps } from '../../src/core/context.js';
import type { Store } from '../../src/core/ports.js';
import { createHmac } from 'node:crypto';

const fiatLine: LineInput = { accountId: 'a', entryType: 'DEBIT', asset: 'USD', amountMinor: 150n, details: { kind: 'FIAT', rail: 'PIX', bankReference: 'ref' }, description: 'd' };
const chainLine: LineInput = {
  accountId: 'b',
  entryType: 'CREDIT',
  asset: 'USDC',
  amountMinor: 1_500_000n,
  details: { kind: 'ONCHAIN', chainId: 'TRON', txHash: '0xh', blockNumber: 9, walletAddress: 'w', tokenContract: 'c' },
  description: null,
};
const input: TransactionInput = { metadata: { k: 'v' }, lines: [fiatLine, chainLine] };

describe('agent records', () => {
  it('stores the input as JSON with amounts as digits, and reads it back exactly', () => {
    const text = inputToJson({ ...input, lines: [{ ...fiatLine, amountMinor: 12345678901234567890123n }, chainLine] });
    expect(JSON.parse(text).lines[0].amountMinor).toBe('12345678901234567890123');
    expect(inputFromJson(text)).toEqual({ ...input, lines: [{ ...fiatLine, amountMinor: 12345678901234567890123n }, chainLine] });
    expect(inputFromJson(inputToJson(input))).toEqual(input);
  });

  it('the reverse turns every line to the other side and says what it reverses', () => {
    expect(reverseOf(input, 'tx1')).toEqual({
      metadata: { reversesTransactionId: 'tx1' },
      lines: [
        { ...fiatLine, entryType: 'CREDIT' },
        { ...chainLine, entryType: 'DEBIT' },
      ],
    });
  });

  it('a reversal with a note keeps its metadata beside the link, and its description replaces every line\'s', () => {
    const reversed = reverseOf(input, 'tx1', { metadata: { ticket: 'T-1' }, description: 'wrong amount' });
    expect(reversed.metadata).toEqual({ ticket: 'T-1', reversesTransactionId: 'tx1' });
    expect(reversed.lines.map((l) => l.description)).toEqual(['wrong amount', 'wrong amount']);
    // Without one (null or absent), each line keeps its own.
    expect(reverseOf(input, 'tx1', { description: null }).lines.map((l) => l.description)).toEqual(input.lines.map((l) => l.description));
  });

  it('the view shows the lines as asked, description only when there is one', () => {
    const record: Omit<AgentTransaction, 'seq'> = {
      id: 'x',
      tenantId: 't',
      status: 'POSTED',
      sessionId: 's',
      actorKeyId: 'k',
      input,
      createdAt: 'c',
      decidedAt: 'd',
      decidedBy: 'p',
      reversalTransactionId: null,
    };
    expect(JSON.parse(toJsonText(agentTransactionView(record)))).toEqual({
      id: 'x',
      status: 'POSTED',
      sessionId: 's',
      actorKeyId: 'k',
      lines: [
        { accountId: 'a', entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount: 1.5, currency: 'USD', rail: 'PIX', bankReference: 'ref' }, description: 'd' },
        { accountId: 'b', entryType: 'CREDIT', monetaryEntry: { type: 'ONCHAIN', amount: 1.5, token: 'USDC', chainId: 'TRON', txHash: '0xh', blockNumber: 9, walletAddress: 'w', tokenContract: 'c' } },
      ],
      metadata: { k: 'v' },
      createdAt: 'c',
      decidedAt: 'd',
      reversalTransactionId: null,
    });
  });
});

describe('webhook deliveries', () => {
  const event: OutboxEvent = { seq: 1, id: 'e1', tenantId: 't', type: 'transaction.committed', payload: '{"n":1.50}', createdAt: '2030-01-01T00:00:00.000Z' };

  it('the body embeds the stored data as it is, with sentAt', () => {
    expect(eventBody(event, '2030-01-01T00:00:01.000Z')).toBe(
      '{"id":"e1","type":"transaction.committed","createdAt":"2030-01-01T00:00:00.000Z","sentAt":"2030-01-01T00:00:01.000Z","data":{"n":1.50}}',
    );
  });

  it('signs the exact body with the secret as ASCII', () => {
    const secret = 'ab'.repeat(32);
    const body = '{"x":"é"}';
    expect(signature(secret, body)).toBe(`sha256=${createHmac('sha256', Buffer.from(secret, 'ascii')).update(Buffer.from(body, 'utf8')).digest('hex')}`);
    expect(signature(secret, body)).not.toBe(signature('cd'.repeat(32), body));
    expect(secretPrefixOf('0123456789abcdef')).toBe('01234567...');
  });

  it('retries after 5 s, 30 s, 2 min, 10 min, 30 min, then hourly for 24 h, jittered ±20%', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ delaysMs: [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000], windowMs: 86_400_000 });
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => retryDelayMs(DEFAULT_RETRY_POLICY, n, mid))).toEqual([5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 3_600_000, 3_600_000]);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, () => 0)).toBe(4_000);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, () => 1)).toBe(6_000);
    expect(retryDelayMs({ delaysMs: [], windowMs: 1 }, 1, mid)).toBe(0);
    expect(retryDelayMs({ delaysMs: [10], windowMs: 1 }, 1, () => 0.25)).toBe(9);
    const d = retryDelayMs(DEFAULT_RETRY_POLICY, 2);
    expect(d).toBeGreaterThanOrEqual(24_000);
    expect(d).toBeLessThanOrEqual(36_000);
  });
});

describe('commit times', () => {
  it('never go backwards, even when the wall clock does', () => {
    let now = Date.parse('2030-01-01T00:00:10.000Z');
    const clock = new CommitClock({ now: () => new Date(now) }, '2030-01-01T00:00:20.000Z');
    expect(clock.next()).toBe('2030-01-01T00:00:20.000Z');
    now = Date.parse('2030-01-01T00:00:30.000Z');
    expect(clock.next()).toBe('2030-01-01T00:00:30.000Z');
    now = Date.parse('2030-01-01T00:00:25.000Z');
    expect(clock.next()).toBe('2030-01-01T00:00:30.000Z');
  });

  it('start from the wall clock when nothing was committed', () => {
    const clock = new CommitClock({ now: () => new Date('1971-01-01T00:00:00.000Z') }, null);
    expect(clock.next()).toBe('1971-01-01T00:00:00.000Z');
    expect(toIso(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(Math.abs(systemClock.now().getTime() - Date.now())).toBeLessThan(1000);
  });
});

describe('views', () => {
  it('accounts show their normal balance', () => {
    const a = { id: 'i', tenantId: 't', name: 'n', description: null, currency: 'USD' as const, type: 'EXPENSE' as const, createdAt: 'c', metadata: { ref: 'r' } };
    expect(accountView(a)).toEqual({ id: 'i', name: 'n', description: null, currency: 'USD', type: 'EXPENSE', normalBalance: 'DEBIT', createdAt: 'c', metadata: { ref: 'r' } });
    expect(['ASSET', 'EXPENSE', 'LIABILITY', 'EQUITY', 'REVENUE'].map((t) => normalBalanceOf(t as never))).toEqual(['DEBIT', 'DEBIT', 'CREDIT', 'CREDIT', 'CREDIT']);
  });

  it('amounts are exact JSON numbers in the asset scale', () => {
    expect(amountView(-1050n, 'USD').text).toBe('-10.5');
    expect(toJsonText(monetaryView(chainLine))).toBe('{"type":"ONCHAIN","amount":1.5,"token":"USDC","chainId":"TRON","txHash":"0xh","blockNumber":9,"walletAddress":"w","tokenContract":"c"}');
  });

  it('an entry and a transaction are written as one text closed with the commit time', () => {
    const head = entryViewHead(fiatLine, 'e', 'tx');
    expect(head).toBe('{"entryId":"e","transactionId":"tx","type":"DEBIT","monetary":{"type":"FIAT","amount":1.5,"currency":"USD","rail":"PIX","bankReference":"ref"},"description":"d"');
    expect(entryViewHead(chainLine, 'e', 'tx')).not.toContain('description');
    expect(entryText(head, 'T', 'E')).toBe(`${head},"createdAt":"T","effectiveAt":"E"}`);
    expect(lineText(head, 'T', 'E', 'acc')).toBe(`${head},"createdAt":"T","effectiveAt":"E","accountId":"acc"}`);
    expect(transactionText('tx', { k: 'v' }, ['{"a":1}', '{"b":2}'], 'T', 'E')).toBe('{"transactionId":"tx","metadata":{"k":"v"},"lines":[{"a":1},{"b":2}],"createdAt":"T","effectiveAt":"E"}');
  });

  it('an entry\'s head is the text of its view for any entry (written out field by field, not stringified)', () => {
    const text = fc.string({ unit: 'binary', maxLength: 12 });
    const details = fc.oneof(
      fc.record({ kind: fc.constant('FIAT' as const), rail: fc.constantFrom(...rails), bankReference: fc.option(text, { nil: null }) }),
      fc.record({ kind: fc.constant('ONCHAIN' as const), chainId: fc.constantFrom(...chains), txHash: text, blockNumber: fc.nat(), walletAddress: text, tokenContract: text }),
    );
    const entry = fc.record({
      id: text,
      transactionId: text,
      entryType: fc.constantFrom('DEBIT' as const, 'CREDIT' as const),
      amountMinor: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
      details,
      description: fc.option(text, { nil: null }),
    });
    fc.assert(
      fc.property(entry, fc.constantFrom(...fiatCurrencies), fc.constantFrom(...tokens), (e, currency, token) => {
        const line = { ...e, asset: e.details.kind === 'FIAT' ? currency : token } as Parameters<typeof entryViewHead>[0] & { id: string; transactionId: string };
        const view = { entryId: line.id, transactionId: line.transactionId, type: line.entryType, monetary: monetaryView(line), ...(line.description !== null ? { description: line.description } : {}) };
        expect(entryViewHead(line, line.id, line.transactionId)).toBe(toJsonText(view).slice(0, -1));
      }),
    );
  });

  it('api keys: the list view and the created view', () => {
    const k = { id: 'i', tenantId: 't', prefix: 'p', scopes: ['ADMIN' as const], createdAt: 'c', revokedAt: 'r' };
    expect(apiKeyListView(k)).toEqual({ id: 'i', prefix: 'p', scopes: ['ADMIN'], createdAt: 'c', revokedAt: 'r' });
    expect(apiKeyCreatedView(k, 'raw')).toEqual({ id: 'i', rawKey: 'raw', prefix: 'p', scopes: ['ADMIN'], createdAt: 'c' });
  });

  it('settlements show expiresAt only while PENDING; policy rules their fields', () => {
    const s: Omit<Settlement, 'seq'> = {
      id: 's',
      tenantId: 't',
      accountId: 'a',
      token: 'USDT',
      amountText: '1.0',
      amountMinor: 1_000_000n,
      chain: 'SOLANA',
      walletAddress: 'w',
      fromAddress: null,
      status: 'PENDING',
      matchedTransactionId: null,
      matchedLineNo: null,
      txHash: null,
      blockNumber: null,
      confirmedAt: null,
      expiresAt: 'x',
      createdAt: 'c',
    };
    expect(Object.keys(settlementView(s))).toEqual([
      'settlementId',
      'accountId',
      'expectedToken',
      'expectedAmount',
      'expectedWalletAddress',
      'expectedChainId',
      'expectedFromAddress',
      'status',
      'matchedTransactionId',
      'txHash',
      'blockNumber',
      'confirmedAt',
      'expiresAt',
      'createdAt',
    ]);
    expect(settlementView(s)).toMatchObject({ expectedToken: 'USDT', expectedAmount: '1.0', expectedChainId: 'SOLANA', expiresAt: 'x' });
    expect(settlementView({ ...s, status: 'SETTLED' })).not.toHaveProperty('expiresAt');
    const rule = { id: 'r', tenantId: 't', type: 'ALLOWED_TOKENS' as const, agentKeyPrefix: null, params: { tokens: ['USDC' as const] }, createdAt: 'c' };
    expect(policyRuleView(rule)).toEqual({ id: 'r', type: 'ALLOWED_TOKENS', agentKeyPrefix: null, params: { tokens: ['USDC'] }, createdAt: 'c' });
  });

  it('on-chain lines and hashes', () => {
    expect(onchainLinesOf([{ ...fiatLine, lineNo: 0 }, { ...chainLine, lineNo: 1 }])).toEqual([
      { lineNo: 1, accountId: 'b', entryType: 'CREDIT', token: 'USDC', amountMinor: 1_500_000n, details: chainLine.details },
    ]);
    expect(canonicalTxHash('EVM', '0xABCdef')).toBe('0xabcdef');
    expect(canonicalTxHash('EVM', 'ABCdef')).toBe('ABCdef');
    expect(canonicalTxHash('EVM', '0xABCg')).toBe('0xABCg');
    expect(canonicalTxHash('SOLANA', '0xABC')).toBe('0xABC');
    expect(canonicalTxHash('EVM', 'x0xABC')).toBe('x0xABC');
  });

  it('debits add up per asset', () => {
    const debits = debitsOf([fiatLine, { ...fiatLine, amountMinor: 50n }, chainLine, { ...chainLine, entryType: 'DEBIT' }]);
    expect(debits).toEqual(new Map([['USD', 200n], ['USDC', 1_500_000n]]));
    expect(addDebits(new Map([['USD', 1n]]), new Map([['USD', 2n], ['BRL', 3n]]))).toEqual(new Map([['USD', 3n], ['BRL', 3n]]));
  });
});

describe('paging', () => {
  const deps = (rows: Array<{ seq: number; text: string }>) => {
    const calls: Array<[number | null, number]> = [];
    const d = { clock: { now: () => new Date(1_000_000) }, cursors: new CursorCodec(Buffer.alloc(32, 1)) } as unknown as Deps;
    const fetch = (before: number | null, limit: number) => {
      calls.push([before, limit]);
      return rowsOf(rows.filter((r) => before === null || r.seq < before).slice(0, limit));
    };
    return { d, fetch, calls };
  };

  it('asks for one row more than the page, and continues after the last row shown', async () => {
    const rows = [5, 4, 3].map((seq) => ({ seq, text: `r${seq}` }));
    const { d, fetch, calls } = deps(rows);
    const page = await pageBySeq(d, new CursorScope('scope'), { limit: 2 }, fetch, (r) => ({ t: r.text }));
    expect(page.items.map((i) => i.value)).toEqual([{ t: 'r5' }, { t: 'r4' }]);
    expect(page.items.map((i) => i.text)).toEqual(['{"t":"r5"}', '{"t":"r4"}']);
    expect(page.items[0]).toBeInstanceOf(Rendered);
    expect(calls).toEqual([[null, 3]]);
    const next = await pageBySeq(d, new CursorScope('scope'), { limit: 2, cursor: page.nextCursor! }, fetch, (r) => ({ t: r.text }));
    expect(calls[1]).toEqual([4, 3]);
    expect(next.items.map((i) => i.value)).toEqual([{ t: 'r3' }]);
    expect(next.nextCursor).toBeNull();
    await pageBySeq(d, new CursorScope('scope'), {}, fetch, (r) => r);
    expect(calls[2]).toEqual([null, PAGE_SIZE_DEFAULT + 1]);
    // A cursor of another list, or one whose position is not a positive integer, is refused.
    await expect(pageBySeq(d, new CursorScope('other'), { cursor: page.nextCursor! }, fetch, (r) => r)).rejects.toThrow(expect.objectContaining({ details: [{ path: 'cursor', message: 'not valid for this list' }] }));
    for (const bad of [0, -1, 1.5, '4', null]) {
      const cursor = d.cursors.encode(new CursorScope('scope'), bad, 1_000_000);
      await expect(pageBySeq(d, new CursorScope('scope'), { cursor }, fetch, (r) => r)).rejects.toThrow(expect.objectContaining({ details: [{ path: 'cursor', message: 'malformed' }] }));
    }
  });

  it('a RawJson view is written as its text, not rendered again', async () => {
    const { d, fetch } = deps([{ seq: 1, text: '{"a":1.50}' }]);
    const page = await pageBySeq(d, new CursorScope('s'), {}, fetch, (r) => new RawJson(r.text));
    expect(page.items[0]!.text).toBe('{"a":1.50}');
  });

  it('ends a page early, before the row that would pass the answer cap, with a cursor right there', async () => {
    const big = 'x'.repeat(Math.floor(ANSWER_SIZE_MAX_BYTES / 2));
    const rows = [3, 2, 1].map((seq) => ({ seq, text: big }));
    const { d, fetch } = deps(rows);
    const page = await pageBySeq(d, new CursorScope('s'), { limit: 10 }, fetch, (r) => new RawJson(r.text));
    expect(page.items).toHaveLength(1);
    expect(page.nextCursor).not.toBeNull();
    const next = await pageBySeq(d, new CursorScope('s'), { limit: 10, cursor: page.nextCursor! }, fetch, (r) => new RawJson(r.text));
    expect(next.items).toHaveLength(1);
    expect(next.items[0]!.value).toBeInstanceOf(RawJson);
    // The envelope, each text and its comma: exactly the cap fits, one byte more does not.
    const room = ANSWER_SIZE_MAX_BYTES - 4096 - 2;
    const exact = deps([
      { seq: 2, text: 'a'.repeat(room - 10) },
      { seq: 1, text: 'b'.repeat(10) },
    ]);
    expect((await pageBySeq(exact.d, new CursorScope('s'), {}, exact.fetch, (r) => new RawJson(r.text))).items).toHaveLength(2);
    const over = deps([
      { seq: 2, text: 'a'.repeat(room - 10) },
      { seq: 1, text: 'b'.repeat(11) },
    ]);
    const cut = await pageBySeq(over.d, new CursorScope('s'), {}, over.fetch, (r) => new RawJson(r.text));
    expect(cut.items).toHaveLength(1);
    expect(cut.nextCursor).not.toBeNull();
    // One row larger than the cap on its own is still shown.
    const huge = deps([{ seq: 1, text: 'y'.repeat(ANSWER_SIZE_MAX_BYTES) }]);
    expect((await pageBySeq(huge.d, new CursorScope('s'), {}, huge.fetch, (r) => new RawJson(r.text))).items).toHaveLength(1);
  });

  it('countWithinAnswer counts what fits the cap with its envelope, the first always', () => {
    const cap = ANSWER_SIZE_MAX_BYTES;
    expect(countWithinAnswer([])).toBe(0);
    expect(countWithinAnswer(['a', 'b'])).toBe(2);
    expect(countWithinAnswer(['x'.repeat(cap)])).toBe(1);
    // Envelope 4096 + each text and its comma.
    const first = 'x'.repeat(cap - 4096 - 1 - 2);
    expect(countWithinAnswer([first, 'y'])).toBe(2);
    expect(countWithinAnswer([first, 'yy'])).toBe(1);
    expect(countWithinAnswer([first, 'yy', 'z'])).toBe(1);
    expect(countWithinAnswer(['é'.repeat((cap - 4096) / 2 - 1), 'y'])).toBe(1);
  });
});

describe('commands and dependencies', () => {
  it('runs each command by its name', async () => {
    expect(Object.keys(commands).sort()).toEqual(
      [
        'createTenant',
        'createApiKey',
        'revokeApiKey',
        'createAccount',
        'updateAccount',
        'postTransaction',
        'postBatch',
        'reverseTransaction',
        'registerSettlement',
        'cancelSettlement',
        'expireSettlements',
        'reconcileBatch',
        'setWebhook',
        'recordWebhookAttempt',
        'redeliver',
        'createPolicyRule',
        'deletePolicyRule',
        'executeAgentTransaction',
        'decideAgentTransaction',
        'rollbackAgentTransaction',
        'recordTransfers',
        'pruneEvents',
        'setAccountLimits',
        'createHold',
        'captureHold',
        'voidHold',
        'expireHolds',
        'beginStatementImport',
        'importStatementPart',
        'finishStatementImport',
        'matchStatementLine',
        'unmatchStatementLine',
        'ignoreStatementLine',
        'deleteBankStatement',
        'discardStatementPart',
        'reconcileStatementPart',
        'finishReconcile',
        'setReconciliationSettings',
      ].sort(),
    );
    const expired: string[] = [];
    const ctx = {
      tx: { expiredSettlements: (at: string, limit: number) => (expired.push(`${at}/${limit}`), []) },
      commitClock: { next: () => 'T' },
    };
    expect(await runCommand(ctx as never, 'expireSettlements', { limit: 7 })).toBe(0);
    expect(expired).toEqual(['T/7']);
  });

  it('makeDeps reads the secrets of the database and the settlement TTL', async () => {
    const asked: string[] = [];
    const store = { secret: (name: string) => (asked.push(name), Buffer.from(name)) } as unknown as Store;
    const deps = await makeDeps(store, {} as never, systemClock);
    expect(asked.sort()).toEqual(['api_key_pepper', 'cursor_signing_key']);
    expect(PEPPER_SECRET).toBe('api_key_pepper');
    expect(deps.pepper).toEqual(Buffer.from('api_key_pepper'));
    expect(deps.settlementTtlMs).toBe(SETTLEMENT_TTL_DEFAULT_SECONDS * 1000);
    expect((await makeDeps(store, {} as never, systemClock, { settlementTtlSeconds: 2 })).settlementTtlMs).toBe(2000);
    // The cursor key is the cursor secret: a cursor signed with it decodes.
    const signed = new CursorCodec(Buffer.from('cursor_signing_key')).encode(new CursorScope('s'), 1, 0);
    expect(deps.cursors.decode(new CursorScope('s'), signed, 0, (p): p is number => typeof p === 'number')).toBe(1);
  });
});

describe('scopes, errors and ids', () => {
  it('ADMIN allows everything; otherwise the scope itself is needed', () => {
    expect(allows(['ADMIN'], 'ACCOUNTS_READ')).toBe(true);
    expect(allows(['ACCOUNTS_READ'], 'ACCOUNTS_READ')).toBe(true);
    expect(allows(['ACCOUNTS_READ'], 'ACCOUNTS_WRITE')).toBe(false);
    expect(allows([], 'ADMIN')).toBe(false);
    expect(scopes.every(isScope)).toBe(true);
    expect(isScope('admin')).toBe(false);
    expect(scopes).toHaveLength(12);
  });

  it('errors carry their code, details, extra and retry time', () => {
    const e = new LedgerError('RATE_LIMITED', 'slow down', { details: [{ path: 'p', message: 'm' }], extra: { a: 1 }, retryAfterSeconds: 3 });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('LedgerError');
    expect([e.code, e.message, e.details, e.extra, e.retryAfterSeconds]).toEqual(['RATE_LIMITED', 'slow down', [{ path: 'p', message: 'm' }], { a: 1 }, 3]);
    const bare = new LedgerError('INTERNAL', 'x');
    expect([bare.details, bare.extra, bare.retryAfterSeconds]).toEqual([undefined, undefined, undefined]);
    expect(invalid('bad')).toMatchObject({ code: 'VALIDATION_FAILED', message: 'bad', details: undefined });
    expect(invalid('bad', [{ path: 'x', message: 'y' }]).details).toEqual([{ path: 'x', message: 'y' }]);
    expect(notFound('Thing 1')).toMatchObject({ code: 'NOT_FOUND', message: 'Thing 1 was not found.' });
    expect(() => assert(false, 'it holds')).toThrow(new Error('Invariant violated: it holds'));
    expect(() => assert(1, 'it holds')).not.toThrow();
    // Where in the request a refusal is stays out of its answer.
    const at = new LedgerError('ACCOUNT_NOT_FOUND', 'no such account', { at: 'lines.1.accountId' });
    expect(at.at).toBe('lines.1.accountId');
    expect(errorBody(at)).toEqual({ message: 'no such account', code: 'ACCOUNT_NOT_FOUND' });
    expect(bare.at).toBeUndefined();
    // details only when there are some: not even an undefined key otherwise.
    expect(Object.keys(errorBody(bare))).toEqual(['message', 'code']);
    expect(errorBody(e)).toEqual({ message: 'slow down', code: 'RATE_LIMITED', a: 1, details: [{ path: 'p', message: 'm' }] });
  });

  it('each code answers its status (README, Errors; the contract\'s table)', () => {
    expect(statusByCode).toEqual({
      VALIDATION_FAILED: 400,
      BODY_TOO_LARGE: 413,
      UNSUPPORTED_MEDIA_TYPE: 415,
      REQUEST_TIMEOUT: 408,
      HEADERS_TOO_LARGE: 431,
      RATE_LIMITED: 429,
      UNAUTHENTICATED: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      METHOD_NOT_ALLOWED: 405,
      IDEMPOTENCY_IN_PROGRESS: 409,
      CONFLICT: 409,
      IDEMPOTENCY_KEY_REUSED: 422,
      UNBALANCED: 422,
      ACCOUNT_NOT_FOUND: 422,
      CURRENCY_MISMATCH: 422,
      ACCOUNT_TYPE_MISMATCH: 422,
      STATEMENT_CONFLICT: 409,
      MATCH_REFUSED: 422,
      POLICY_VIOLATION: 422,
      BALANCE_LIMIT_EXCEEDED: 422,
      HOLD_AMOUNT_EXCEEDED: 422,
      HOLD_EXPIRED: 409,
      ALREADY_REVERSED: 409,
      NOT_REVERSIBLE: 422,
      EVENT_PRUNED: 410,
      UNAVAILABLE: 503,
      INTERNAL: 500,
    });
    expect(Object.keys(statusByCode).sort()).toEqual([...errorCodes].sort());
  });

  it('ids are version 7 UUIDs, in time order', () => {
    const a = uuidV7.next();
    const b = uuidV7.next();
    expect(isUuid(a)).toBe(true);
    expect(a[14]).toBe('7');
    expect(a < b).toBe(true);
    expect(isUuid('0190A1B2-0000-7000-8000-000000000001')).toBe(true);
    expect(isUuid('0190a1b2-0000-7000-8000-00000000000')).toBe(false);
    expect(isUuid(' 0190a1b2-0000-7000-8000-000000000001')).toBe(false);
    expect(isUuid('0190a1b2-0000-7000-8000-000000000001 ')).toBe(false);
  });
});
