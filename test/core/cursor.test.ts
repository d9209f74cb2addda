import { describe, expect, it } from 'vitest';
import { CursorCodec, CursorScope } from '../../src/core/cursor.js';
import { LedgerError } from '../../src/core/errors.js';
import { CURSOR_LENGTH_MAX, CURSOR_TTL_MS } from '../../src/core/limits.js';

type Position = [string, number];
const isPosition = (p: unknown): p is Position => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && Number.isSafeInteger(p[1]);

const KEY = Buffer.alloc(32, 7);
const codec = new CursorCodec(KEY);
/** Seals arbitrary text as the server would, to reach the checks behind the seal. */
const signed = (raw: string) => codec.seal(raw);
const SCOPE = new CursorScope('entries:tenant-a:account-1', { from: null, to: null });
const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const POSITION: Position = ['2026-03-01T11:59:59.999Z', 42];

const refusal = (cursor: string, options: { scope?: CursorScope; nowMs?: number; with?: CursorCodec } = {}): LedgerError => {
  try {
    (options.with ?? codec).decode(options.scope ?? SCOPE, cursor, options.nowMs ?? NOW, isPosition);
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    const e = error as LedgerError;
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.details?.[0]?.path).toBe('cursor');
    return e;
  }
  throw new Error(`cursor ${JSON.stringify(cursor.slice(0, 80))} was accepted`);
};

const flip = (text: string, index: number) => {
  const ch = text[index]!;
  return text.slice(0, index) + (ch === 'A' ? 'B' : 'A') + text.slice(index + 1);
};

describe('CursorCodec', () => {
  const cursor = codec.encode(SCOPE, POSITION, NOW);

  it('round-trips a position', () => {
    expect(codec.decode(SCOPE, cursor, NOW, isPosition)).toEqual(POSITION);
    expect(codec.decode(SCOPE, cursor, NOW + CURSOR_TTL_MS, isPosition)).toEqual(POSITION);
  });

  it('seals every cursor under its own IV, across the blocks IVs are cut from (1,000 cursors of one position)', () => {
    const ivs = Array.from({ length: 1000 }, () => Buffer.from(codec.encode(SCOPE, POSITION, NOW), 'base64url').subarray(0, 12).toString('hex'));
    expect(new Set(ivs).size).toBe(1000);
    expect(codec.decode(SCOPE, codec.encode(SCOPE, POSITION, NOW), NOW, isPosition)).toEqual(POSITION);
  });

  it('is opaque: one base64url text that shows no list, id, position or time', () => {
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(cursor, 'base64url').toString('latin1');
    for (const visible of [SCOPE, 'tenant-a', '42', '2026', '"p"']) expect(bytes).not.toContain(visible);
    // Sealed afresh each time: the same position gives another text.
    expect(codec.encode(SCOPE, POSITION, NOW)).not.toBe(cursor);
  });

  it('says nothing of its position by its length: small and large sequences give cursors of one length', () => {
    const lengths = new Set([1, 24, 99_999, 1_234_567_890].map((seq) => codec.encode(SCOPE, ['2026-03-01T11:59:59.999Z', seq], NOW).length));
    expect(lengths.size).toBe(1);
  });

  it('refuses a tampered cursor, wherever it is changed', () => {
    for (let i = 0; i < cursor.length; i += 7) refusal(flip(cursor, i));
    refusal(flip(cursor, cursor.length - 1));
    refusal(cursor.slice(0, -1));
    refusal(`${cursor}AA`);
    // A cursor re-encoded from its bytes with a different last character (base64url forgives it) is not verbatim.
    const last = cursor[cursor.length - 1]!;
    refusal(cursor.slice(0, -1) + String.fromCharCode(last.charCodeAt(0) ^ 1));
  });

  it('refuses a cursor sealed with another key', () => {
    const other = new CursorCodec(Buffer.alloc(32, 8));
    refusal(other.encode(SCOPE, POSITION, NOW));
  });

  it('refuses a cursor moved to another list', () => {
    expect(refusal(cursor, { scope: new CursorScope('entries:tenant-a:account-2', { from: null, to: null }) }).message).toMatch(/not valid for this list/);
    refusal(cursor, { scope: new CursorScope('entries:tenant-b:account-1', { from: null, to: null }) });
    refusal(cursor, { scope: new CursorScope('accounts:tenant-a') });
  });

  it('is sealed with its query: the same filters, however given, page on; another query is refused, saying so', () => {
    const list = 'holds:tenant-a';
    const sealed = codec.encode(new CursorScope(list, { status: 'PENDING', accountId: null, type: ['b', 'a'] }), POSITION, NOW);
    // Names in another order, a set in another order or repeated, absent for null: the same query.
    for (const same of [
      { type: ['a', 'b'], accountId: null, status: 'PENDING' },
      { status: 'PENDING', type: ['b', 'a', 'b'] },
      { status: 'PENDING', accountId: undefined, type: ['a', 'b'] },
    ]) {
      expect(codec.decode(new CursorScope(list, same), sealed, NOW, isPosition)).toEqual(POSITION);
    }
    for (const other of [
      { status: 'CAPTURED', type: ['a', 'b'] },
      { status: 'PENDING', type: ['a'] },
      { status: 'PENDING', type: ['a', 'b'], accountId: 'account-1' },
      { type: ['a', 'b'] },
      {},
      // The value of one filter is not another's.
      { accountId: 'PENDING', type: ['a', 'b'] },
    ]) {
      const e = refusal(sealed, { scope: new CursorScope(list, other) });
      expect(e.message).toMatch(/came with another query: send it with the query it came from/);
      expect(e.details).toEqual([{ path: 'cursor', message: 'was given with another query' }]);
    }
    // Nothing of the query shows, and its length says nothing of the filters.
    const bytes = Buffer.from(sealed, 'base64url').toString('latin1');
    for (const visible of ['PENDING', 'status', '"q"']) expect(bytes).not.toContain(visible);
    const lengths = new Set([{}, { status: 'PENDING', accountId: 'x'.repeat(36), type: ['a', 'b', 'c', 'd'] }].map((f) => codec.encode(new CursorScope(list, f), POSITION, NOW).length));
    expect(lengths.size).toBe(1);
  });

  it('refuses an expired cursor', () => {
    expect(refusal(cursor, { nowMs: NOW + CURSOR_TTL_MS + 1 }).message).toMatch(/expired/);
    refusal(cursor, { nowMs: NOW + 10 * CURSOR_TTL_MS });
  });

  it('refuses a validly signed body that holds no position', () => {
    refusal(codec.encode(SCOPE, { not: 'a position' }, NOW));
    refusal(codec.encode(SCOPE, ['x', 1.5], NOW));
  });

  it.each(['not json', 'null', '[]', '42', '"text"', '{}', `{"s":"${SCOPE.list}","q":"${SCOPE.query}","p":["a",1],"x":"never"}`])(
    'refuses a correctly signed body that is not a cursor: %s',
    (raw) => {
      refusal(signed(raw));
    },
  );

  it.each([
    ['empty', ''],
    ['one dot', '.'],
    ['short', 'abcdef'],
    ['an old signed cursor', `eyJzIjoiYSJ9.${'A'.repeat(24)}`],
    ['all zero', 'A'.repeat(80)],
    ['extra dots', 'a.b.c'],
    ['garbage', '!!!.???'],
    ['spaces', 'hello world'],
    ['json', '{"s":"x"}'],
    ['unicode', 'é.ü'],
  ])('refuses a garbage cursor: %s', (_name, garbage) => {
    refusal(garbage);
  });

  it('refuses a sealed cursor with an extra part appended', () => {
    refusal(`${cursor}.`);
    refusal(`${cursor}.x`);
    refusal(`x.${cursor}`);
  });

  it('refuses an oversized cursor before checking it', () => {
    refusal('A'.repeat(CURSOR_LENGTH_MAX + 1));
    refusal('A'.repeat(1_000_000));
  });
});

describe('CursorCodec refusals name why', () => {
  const why = (cursor: string) => refusal(cursor).details![0]!.message;

  it('a sealed cursor at the longest length is read; a longer one is refused', () => {
    let longest: string | undefined;
    let over: string | undefined;
    for (let k = 0; k < 1200 && !over; k++) {
      const c = codec.encode(SCOPE, ['x'.repeat(k), 1], NOW);
      if (c.length <= CURSOR_LENGTH_MAX) longest = c;
      else over = c;
    }
    expect(longest!.length).toBeGreaterThan(CURSOR_LENGTH_MAX - 100);
    expect(codec.decode(SCOPE, longest!, NOW, isPosition)[1]).toBe(1);
    expect(why(over!)).toBe('malformed');
  });

  it('every malformed cursor says malformed', () => {
    const good = codec.encode(SCOPE, POSITION, NOW);
    expect(why('nodot')).toBe('malformed');
    expect(why(`${good}.x`)).toBe('malformed');
    expect(why(signed('{not json'))).toBe('malformed');
    expect(why(signed('7'))).toBe('malformed');
    expect(why(signed('"s"'))).toBe('malformed');
    expect(why(signed('null'))).toBe('malformed');
    expect(why(signed('[1]'))).toBe('malformed');
    expect(refusal(signed('7')).message).toBe('The cursor is malformed; use nextCursor verbatim from a recent response.');
  });
});
