import { collect } from '../helpers/rows.js';
// The audit log (src/core/audit.ts, src/core/usecases/audit.ts): canonical JSON and hashing, the chain verifier,
// the NDJSON export of a window in pages, and verification of a stored chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { appendAudit, auditActions, auditedText, auditHash, auditLine, auditResources, canonicalJson, ChainVerifier, CLI_ACTOR_ID, SYSTEM_ACTOR, withPayload, type AuditRecord } from '../../src/core/audit.js';
import { AuditService } from '../../src/core/usecases/audit.js';
import { JsonNumber } from '../../src/core/json.js';
import type { Deps } from '../../src/core/context.js';
import type { StoredAuditRecord } from '../../src/core/ports.js';
import { ANSWER_SIZE_MAX_BYTES, AUDIT_PAGE_ROWS, SCAN_ROWS_MAX } from '../../src/core/limits.js';
import { account, openLedger, type Harness } from './ledger-harness.js';

const record = (fields: Partial<AuditRecord> = {}): Omit<AuditRecord, 'hash'> => ({
  id: 'r1',
  type: 'HUMAN',
  action: 'CREATE_ACCOUNT',
  actorKeyId: 'k1',
  occurredAt: '2030-01-01T00:00:00.000Z',
  payload: { b: 1, a: [1, { d: null, c: 'x' }] },
  prevHash: null,
  ...fields,
});

describe('canonical JSON and the record hash', () => {
  it('the text a hash covers is canonicalJson of the record\'s fields, for any record', () => {
    const text = fc.string({ unit: 'binary', maxLength: 10 });
    const payload = fc.dictionary(text, fc.oneof(text, fc.integer(), fc.constant(null), fc.array(text, { maxLength: 3 })), { maxKeys: 4 });
    fc.assert(
      fc.property(
        fc.record({ id: text, type: fc.constantFrom('HUMAN' as const, 'AGENT' as const), action: fc.constantFrom(...auditActions), actorKeyId: text, occurredAt: text, payload, prevHash: fc.option(text, { nil: null }) }),
        (r) => {
          expect(auditedText(r)).toBe(canonicalJson({ ...r }));
        },
      ),
    );
  });

  it('sorts keys at every depth, drops undefined values, keeps arrays in order and JsonNumbers as written', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, 1, { z: 1, y: 2 }], c: undefined, b: 'x' } })).toBe('{"a":{"b":"x","d":[3,1,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson('s')).toBe('"s"');
    expect(canonicalJson(1.5)).toBe('1.5');
    expect(canonicalJson(new JsonNumber('1.50'))).toBe('1.50');
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson({ 'a"b': true })).toBe('{"a\\"b":true}');
    // Keys that sort equal never happen in one object; ordering is by code unit.
    expect(canonicalJson({ B: 1, a: 2, A: 3 })).toBe('{"A":3,"B":1,"a":2}');
  });

  it('hashes every field of the record and nothing else', () => {
    const base = auditHash(record());
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(auditHash({ ...record(), payload: { a: [1, { c: 'x', d: null }], b: 1 } })).toBe(base);
    expect(auditHash({ ...record(), extra: 'ignored' } as Omit<AuditRecord, 'hash'>)).toBe(base);
    for (const change of [{ id: 'r2' }, { type: 'AGENT' as const }, { action: 'CREATE_TENANT' as const }, { actorKeyId: 'k2' }, { occurredAt: '2030-01-01T00:00:00.001Z' }, { payload: {} }, { prevHash: 'p' }]) {
      expect(auditHash(record(change))).not.toBe(base);
    }
  });

  it('appendAudit chains each record to the last hash of its tenant', async () => {
    const appended: Array<Record<string, unknown>> = [];
    const tx = { lastAuditHash: (t: string) => (t === 't1' ? 'prev' : null), appendAudit: (r: Record<string, unknown>) => appended.push(r) };
    let n = 0;
    await appendAudit(tx as never, { next: () => `id${++n}` }, 't1', { type: 'AGENT', keyId: 'k' }, 'AGENTS_EXECUTE', '2030-01-01T00:00:00.000Z', { x: 1 });
    const expected = { id: 'id1', type: 'AGENT', action: 'AGENTS_EXECUTE', actorKeyId: 'k', occurredAt: '2030-01-01T00:00:00.000Z', payload: { x: 1 }, prevHash: 'prev' } as const;
    expect(appended).toEqual([{ ...expected, tenantId: 't1', hash: auditHash(expected) }]);
    expect(SYSTEM_ACTOR).toEqual({ type: 'HUMAN', keyId: 'system' });
    expect(CLI_ACTOR_ID).toBe('cli');
  });

  it('auditLine writes one NDJSON line with the payload as stored', () => {
    const stored: StoredAuditRecord = { ...record(), hash: 'h', seq: 1, payloadJson: '{"n":1.50}' } as StoredAuditRecord;
    expect(auditLine(stored)).toBe(
      '{"id":"r1","type":"HUMAN","action":"CREATE_ACCOUNT","actorKeyId":"k1","occurredAt":"2030-01-01T00:00:00.000Z","payload":{"n":1.50},"hash":"h","prevHash":null}\n',
    );
  });
});

describe('auditResources: the records an audit record names (ledger db check)', () => {
  // Every field any action names, so that each action's list shows whole.
  const payload = { tenantId: 'T', keyId: 'K', accountId: 'A', transactionId: 'X', settlementId: 'S', holdId: 'H', reversesTransactionId: 'R', status: 'PENDING_APPROVAL' };
  const named = (action: string, p: Record<string, unknown> = payload) => auditResources(action, p).map(({ kind, id }) => `${kind}:${id}`);

  it('names, for each action, the records it made or changed', () => {
    expect(
      Object.fromEntries(
        [
          'CREATE_TENANT', 'CREATE_API_KEY', 'REVOKE_API_KEY', 'CREATE_ACCOUNT', 'UPDATE_ACCOUNT', 'SET_ACCOUNT_LIMITS', 'POST_TRANSACTION',
          'REGISTER_SETTLEMENT', 'CANCEL_SETTLEMENT', 'SETTLEMENT_MATCHED', 'SETTLEMENT_UNMATCHED', 'RECONCILIATION_BATCH', 'UPDATE_WEBHOOK',
          'CREATE_POLICY_RULE', 'DELETE_POLICY_RULE', 'AGENTS_EXECUTE', 'AGENTS_APPROVE', 'AGENTS_REJECT', 'AGENTS_ROLLBACK', 'POLICY_VIOLATION',
          'CREATE_HOLD', 'CAPTURE_HOLD', 'VOID_HOLD', 'EXPIRE_HOLD', 'REVERSE_TRANSACTION',
        ].map((action) => [action, named(action)]),
      ),
    ).toEqual({
      CREATE_TENANT: ['tenant:T'],
      CREATE_API_KEY: ['apiKey:K'],
      REVOKE_API_KEY: ['apiKey:K'],
      CREATE_ACCOUNT: ['account:A'],
      UPDATE_ACCOUNT: ['account:A'],
      SET_ACCOUNT_LIMITS: ['account:A'],
      POST_TRANSACTION: ['transaction:X'],
      REGISTER_SETTLEMENT: ['settlement:S', 'account:A'],
      CANCEL_SETTLEMENT: ['settlement:S', 'account:A'],
      SETTLEMENT_MATCHED: ['settlement:S', 'transaction:X'],
      SETTLEMENT_UNMATCHED: ['settlement:S', 'account:A'],
      RECONCILIATION_BATCH: [],
      UPDATE_WEBHOOK: [],
      CREATE_POLICY_RULE: [],
      DELETE_POLICY_RULE: [],
      AGENTS_EXECUTE: ['agentTransaction:X'],
      AGENTS_APPROVE: ['agentTransaction:X', 'transaction:X'],
      AGENTS_REJECT: ['agentTransaction:X'],
      AGENTS_ROLLBACK: ['transaction:X', 'transaction:R', 'agentTransaction:R'],
      POLICY_VIOLATION: [],
      CREATE_HOLD: ['hold:H'],
      CAPTURE_HOLD: ['hold:H', 'transaction:X'],
      VOID_HOLD: ['hold:H'],
      EXPIRE_HOLD: ['hold:H'],
      REVERSE_TRANSACTION: ['transaction:X', 'transaction:R'],
    });
  });

  it('an agent transaction posted at once names its transaction too; an unknown action or a field that is no text names nothing', () => {
    expect(named('AGENTS_EXECUTE', { ...payload, status: 'POSTED' })).toEqual(['agentTransaction:X', 'transaction:X']);
    expect(named('POST_TRANSACTION', { ...payload, status: 'POSTED' })).toEqual(['transaction:X']);
    expect(named('NOT_AN_ACTION')).toEqual([]);
    expect(named('CREATE_ACCOUNT', { accountId: 7 })).toEqual([]);
    expect(named('REGISTER_SETTLEMENT', { settlementId: 'S' })).toEqual(['settlement:S']);
  });
});

describe('ChainVerifier', () => {
  const chain = () => {
    const first = { ...record({ id: 'a' }) };
    const a = { ...first, hash: auditHash(first) };
    const secondBase = record({ id: 'b', prevHash: a.hash });
    const b = { ...secondBase, hash: auditHash(secondBase) };
    const thirdBase = record({ id: 'c', prevHash: b.hash });
    const c = { ...thirdBase, hash: auditHash(thirdBase) };
    return [a, b, c];
  };

  it('accepts a whole chain and counts it', () => {
    const v = new ChainVerifier(true);
    for (const r of chain()) expect(v.check(r)).toBeNull();
    expect(v.count).toBe(3);
  });

  it('names a changed record, a removed one and a reorder, by position', () => {
    const [a, b, c] = chain();
    const changed = new ChainVerifier(true);
    expect(changed.check(a!)).toBeNull();
    expect(changed.check({ ...b!, actorKeyId: 'evil' })).toEqual({ position: 2, id: 'b', reason: 'was changed: its hash does not match its content' });
    const removed = new ChainVerifier(true);
    expect(removed.check(a!)).toBeNull();
    expect(removed.check(c!)).toEqual({ position: 2, id: 'c', reason: 'does not follow the record before it: a record was removed before it, or the order was changed' });
    expect(removed.count).toBe(2);
  });

  it('from the start, the first record must open the chain; a window may start anywhere', () => {
    const [, b, c] = chain();
    expect(new ChainVerifier(true).check(b!)).toMatchObject({ position: 1, id: 'b', reason: expect.stringMatching(/^does not follow/) });
    const window = new ChainVerifier(false);
    expect(window.check(b!)).toBeNull();
    expect(window.check(c!)).toBeNull();
    // After its first record, a window checks the chain as a whole one does.
    const [a] = chain();
    const gap = new ChainVerifier(false);
    expect(gap.check(a!)).toBeNull();
    expect(gap.check(c!)).toMatchObject({ position: 2, id: 'c', reason: expect.stringMatching(/^does not follow/) });
    // A window still checks the hash of its first record.
    expect(new ChainVerifier(false).check({ ...b!, occurredAt: 'x' })).toMatchObject({ position: 1, reason: 'was changed: its hash does not match its content' });
  });

  it('an unreadable record takes the next position', () => {
    const [a] = chain();
    const v = new ChainVerifier(true);
    expect(v.check(a!)).toBeNull();
    expect(v.unreadable('x')).toEqual({ position: 2, id: 'x', reason: 'was changed: it can no longer be read as an audit record' });
    expect(v.count).toBe(2);
  });
});

describe('audit export and stored chain verification', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openLedger();
    h.clock.set('2030-01-02T00:00:00.000Z');
    await account(h);
    h.clock.set('2030-01-03T00:00:00.000Z');
    await account(h);
  });
  afterAll(async () => h?.close());

  const exported = async (from: string, to: string, type?: 'HUMAN' | 'AGENT' | 'ALL') =>
    (await collect(new AuditService(h.ledger.deps).export(h.tenantId, { from: Date.parse(from), to: Date.parse(to), ...(type ? { type } : {}) }))).join('');

  it('exports the window [from, to) as NDJSON, oldest first, of one actor type or all', async () => {
    const all = await exported('2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z');
    const lines = all.trimEnd().split('\n').map((l) => JSON.parse(l) as { action: string; occurredAt: string; prevHash: string | null });
    expect(lines.map((l) => l.action)).toEqual(['CREATE_TENANT', 'CREATE_API_KEY', 'CREATE_ACCOUNT', 'CREATE_ACCOUNT']);
    expect(lines[0]!.prevHash).toBeNull();
    expect((await exported('2030-01-02T00:00:00.000Z', '2030-01-03T00:00:00.000Z')).trimEnd().split('\n')).toHaveLength(1);
    expect((await exported('2030-01-02T00:00:00.000Z', '2030-01-03T00:00:00.001Z')).trimEnd().split('\n')).toHaveLength(2);
    expect(await exported('2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z', 'ALL')).toBe(all);
    expect(await exported('2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z', 'HUMAN')).toBe(all);
    expect(await exported('2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z', 'AGENT')).toBe('');
  });

  it('refuses a window whose to is not after its from, before reading anything', () => {
    expect(() => new AuditService(h.ledger.deps).export(h.tenantId, { from: 5, to: 5 })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', message: 'Invalid query: to must be after from.', details: [{ path: 'to', message: 'must be after from' }] }),
    );
    expect(() => new AuditService(h.ledger.deps).export(h.tenantId, { from: 5, to: 6 })).not.toThrow();
  });

  it('reads the export a page of rows at a time, continuing after the last record of each page', async () => {
    const rows = (n: number, from = 0): StoredAuditRecord[] =>
      Array.from({ length: n }, (_, i) => ({ ...record({ id: `r${from + i}`, occurredAt: `2030-01-01T00:00:${String(from + i).padStart(2, '0')}.000Z` }), hash: 'h', seq: from + i + 1, payloadJson: '{}' }) as StoredAuditRecord);
    const calls: Array<{ after: unknown; limit: number }> = [];
    const pages = [rows(AUDIT_PAGE_ROWS), rows(3, AUDIT_PAGE_ROWS)];
    const store = {
      auditPage: (_t: string, _r: unknown, after: unknown, limit: number) => {
        calls.push({ after, limit });
        return pages.shift() ?? [];
      },
    };
    const chunks = [...(await collect(new AuditService({ store } as unknown as Deps).export('t', { from: 0, to: 1 })))];
    expect(chunks).toHaveLength(2);
    expect(chunks[0]!.split('\n')).toHaveLength(AUDIT_PAGE_ROWS + 1);
    expect(chunks[1]!.split('\n')).toHaveLength(4);
    expect(calls).toEqual([
      { after: null, limit: AUDIT_PAGE_ROWS },
      { after: { occurredAt: rows(1, AUDIT_PAGE_ROWS - 1)[0]!.occurredAt, seq: AUDIT_PAGE_ROWS }, limit: AUDIT_PAGE_ROWS },
    ]);
    // An empty window reads once and yields nothing.
    const empty = { auditPage: () => [] };
    expect([...(await collect(new AuditService({ store: empty } as unknown as Deps).export('t', { from: 0, to: 1 })))]).toEqual([]);
  });

  it('of one actor type, reads at most SCAN_ROWS_MAX records of every type a page and keeps its own, going on after the last one read', async () => {
    // 5,000 records, every 1,000th an AGENT's: each read is of SCAN_ROWS_MAX rows, whatever it keeps.
    const all: StoredAuditRecord[] = Array.from({ length: 5000 }, (_, i) => ({ ...record({ id: `r${i}`, type: i % 1000 === 999 ? 'AGENT' : 'HUMAN' }), hash: 'h', seq: i + 1, payloadJson: '{}' }) as StoredAuditRecord);
    const limits: number[] = [];
    const store = {
      auditPage: (_t: string, _r: unknown, after: { seq: number } | null, limit: number) => {
        limits.push(limit);
        return all.filter((r) => after === null || r.seq > after.seq).slice(0, limit);
      },
    };
    const text = [...(await collect(new AuditService({ store } as unknown as Deps).export('t', { from: 0, to: 1, type: 'AGENT' })))].join('');
    expect(text.trim().split('\n').map((line) => JSON.parse(line).id)).toEqual(['r999', 'r1999', 'r2999', 'r3999', 'r4999']);
    expect(limits.every((limit) => limit === SCAN_ROWS_MAX)).toBe(true);
    expect(limits).toHaveLength(Math.ceil(5000 / SCAN_ROWS_MAX));
  });

  it('verifies a stored chain, and names the first record changed or unreadable', async () => {
    expect(await h.ledger.audit.verifyChain(h.tenantId)).toEqual({ ok: true, count: 4 });
    const rows = await h.store.auditChainPage(h.tenantId, 0, 100);
    const store = (change: (r: StoredAuditRecord, i: number) => StoredAuditRecord) => ({ auditChainPage: (_t: string, after: number) => (after === 0 ? rows.map(change) : []) });
    const deps = (s: unknown) => ({ store: s }) as unknown as Deps;
    expect(await new AuditService(deps(store((r) => r))).verifyChain(h.tenantId)).toEqual({ ok: true, count: 4 });
    expect(await new AuditService(deps(store((r, i) => (i === 2 ? { ...r, payloadJson: '{"name":"x"}' } : r)))).verifyChain(h.tenantId)).toEqual({
      ok: false,
      count: 3,
      position: 3,
      id: rows[2]!.id,
      reason: 'was changed: its hash does not match its content',
    });
    expect(await new AuditService(deps(store((r, i) => (i === 1 ? { ...r, payloadJson: '{not json' } : r)))).verifyChain(h.tenantId)).toEqual({
      ok: false,
      count: 2,
      position: 2,
      id: rows[1]!.id,
      reason: 'was changed: it can no longer be read as an audit record',
    });
    // The payload is read back exactly, numbers as written.
    expect(withPayload({ ...rows[0]!, payloadJson: '{"n":1.50}' }).payload).toEqual({ n: new JsonNumber('1.50') });
  });

  it('a record larger than the answer cap is still exported, alone; records that fill the cap exactly share a page', async () => {
    const row = (id: string, seq: number, payloadJson: string): StoredAuditRecord => ({ ...record({ id }), hash: 'h', seq, payloadJson }) as StoredAuditRecord;
    const pagesOf = async (rows: StoredAuditRecord[]) => {
      const store = { auditPage: (_t: string, _r: unknown, after: { seq: number } | null) => rows.filter((r) => after === null || r.seq > after.seq) };
      return [...(await collect(new AuditService({ store } as unknown as Deps).export('t', { from: 0, to: 1 })))];
    };
    const huge = row('big', 1, `"${'x'.repeat(ANSWER_SIZE_MAX_BYTES)}"`);
    const chunks = await pagesOf([huge, row('small', 2, '{}')]);
    expect(chunks.map((c) => c.length)).toEqual([auditLine(huge).length, auditLine(row('small', 2, '{}')).length]);
    const first = row('a', 1, '{}');
    const fill = ANSWER_SIZE_MAX_BYTES - auditLine(first).length - auditLine(row('b', 2, '""')).length;
    const second = row('b', 2, `"${'y'.repeat(fill)}"`);
    expect(auditLine(first).length + auditLine(second).length).toBe(ANSWER_SIZE_MAX_BYTES);
    expect(await pagesOf([first, second])).toHaveLength(1);
    expect(await pagesOf([first, row('b', 2, `"${'y'.repeat(fill + 1)}"`)])).toHaveLength(2);
  });

  it('verification starts at the tenant\'s first record: a chain missing its head is broken at position 1', async () => {
    const rows = (await h.store.auditChainPage(h.tenantId, 0, 100)).slice(1);
    const store = { auditChainPage: (_t: string, after: number) => rows.filter((r) => r.seq > after) };
    expect(await new AuditService({ store } as unknown as Deps).verifyChain(h.tenantId)).toMatchObject({ ok: false, count: 1, position: 1, id: rows[0]!.id });
  });

  it('verification reads the chain a page at a time after the last seq', async () => {
    const make = (i: number): StoredAuditRecord => {
      const prev = i === 0 ? null : hashes[i - 1]!;
      const base = { ...record({ id: `r${i}`, payload: {}, prevHash: prev }) };
      const hash = auditHash(base);
      hashes.push(hash);
      return { ...base, hash, seq: i + 1, payloadJson: '{}' } as StoredAuditRecord;
    };
    const hashes: string[] = [];
    const all = Array.from({ length: AUDIT_PAGE_ROWS + 2 }, (_, i) => make(i));
    const calls: number[] = [];
    const store = {
      auditChainPage: (_t: string, afterSeq: number, limit: number) => {
        calls.push(afterSeq);
        return all.filter((r) => r.seq > afterSeq).slice(0, limit);
      },
    };
    expect(await new AuditService({ store } as unknown as Deps).verifyChain('t')).toEqual({ ok: true, count: AUDIT_PAGE_ROWS + 2 });
    expect(calls).toEqual([0, AUDIT_PAGE_ROWS]);
  });
});
