import { describe, expect, it } from 'vitest';
import { generateRawKey, hashKey, isWellFormedKey, visiblePrefix } from '../../src/core/keys.js';
import { parseJsonObject, toJsonText } from '../../src/core/json.js';
import { JsonNumber } from '../../src/core/money.js';
import { LedgerError } from '../../src/core/errors.js';
import { JSON_DEPTH_MAX } from '../../src/core/limits.js';
import { parseInstant } from '../../src/core/time.js';

describe('API keys', () => {
  it('generates sk_live_ followed by 32 lowercase hex digits', () => {
    const raw = generateRawKey();
    expect(raw).toMatch(/^sk_live_[0-9a-f]{32}$/);
    expect(isWellFormedKey(raw)).toBe(true);
    expect(visiblePrefix(raw)).toBe(raw.slice(0, 12));
  });

  it('never repeats over 1000 keys', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateRawKey));
    expect(keys.size).toBe(1000);
    for (const k of keys) expect(k).toMatch(/^sk_live_[0-9a-f]{32}$/);
  });

  it('hashes deterministically under one pepper and differently under another', () => {
    const raw = generateRawKey();
    const pepperA = Buffer.alloc(32, 1);
    const pepperB = Buffer.alloc(32, 2);
    expect(hashKey(pepperA, raw)).toBe(hashKey(Buffer.alloc(32, 1), raw));
    expect(hashKey(pepperA, raw)).not.toBe(hashKey(pepperB, raw));
    expect(hashKey(pepperA, raw)).not.toBe(hashKey(pepperA, generateRawKey()));
    expect(hashKey(pepperA, raw)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('never equals or contains the raw key', () => {
    const raw = generateRawKey();
    const hash = hashKey(Buffer.alloc(32, 9), raw);
    expect(hash).not.toBe(raw);
    expect(hash).not.toContain(raw.slice(8));
  });

  it('refuses malformed keys', () => {
    for (const bad of ['', 'sk_live_', `sk_test_${'a'.repeat(32)}`, `sk_live_${'A'.repeat(32)}`, `sk_live_${'a'.repeat(31)}`, `sk_live_${'a'.repeat(33)}`, ` ${generateRawKey()}`]) {
      expect(isWellFormedKey(bad), bad).toBe(false);
    }
  });
});

const refusal = (text: string): LedgerError => {
  try {
    parseJsonObject(text);
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).code).toBe('VALIDATION_FAILED');
    return error as LedgerError;
  }
  throw new Error(`accepted: ${text.slice(0, 80)}`);
};

describe('parseJsonObject', () => {
  it('parses an object', () => {
    expect(parseJsonObject('{"a":"b","c":[true,null]}')).toEqual({ a: 'b', c: [true, null] });
  });

  it.each(['[]', '[{"a":1}]', '"text"', '42', 'null', 'true', '', '   ', '{', '{"a":1', "{'a':1}", '{"a":1} x', '{"a":1}{}', 'NaN'])(
    'refuses what is not one JSON object: %s',
    (text) => {
      refusal(text);
    },
  );

  it('refuses a key repeated with a different value', () => {
    refusal('{"a":1,"a":2}');
  });

  it('refuses a key repeated with an equal value', () => {
    expect(refusal('{"a":1,"a":1}').message).toMatch(/appears twice/);
    refusal('{"a":"x","a":"x"}');
    refusal('{"a":1,"\\u0061":1}');
  });

  it('refuses a key repeated inside a nested object', () => {
    refusal('{"lines":[{"accountId":"x","accountId":"x"}]}');
    refusal('{"metadata":{"k":"v","k":"v"}}');
    refusal('{"o":{"p":{"q":1,"q":1}}}');
  });

  it('allows the same key in sibling and nested objects, and key-like text in strings', () => {
    expect(parseJsonObject('{"a":{"a":1},"b":[{"a":1},{"a":1}]}')).toEqual({ a: { a: new JsonNumber('1') }, b: [{ a: new JsonNumber('1') }, { a: new JsonNumber('1') }] });
    expect(parseJsonObject('{"a":"\\"a\\":1","b":"a"}')).toEqual({ a: '"a":1', b: 'a' });
  });

  it.each(['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{}}}', '{"a":{"__proto__":null}}', '{"x":[{"prototype":1}]}', '{"__pro\\u0074o__":{}}'])(
    'refuses prototype keys: %s',
    (text) => {
      expect(refusal(text).message).toMatch(/not allowed/);
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
    },
  );

  it('allows prototype words as values', () => {
    expect(parseJsonObject('{"a":"__proto__"}')).toEqual({ a: '__proto__' });
  });

  it('refuses nesting deeper than the limit and allows it up to the limit', () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
    expect(() => parseJsonObject(nested(JSON_DEPTH_MAX))).not.toThrow();
    expect(refusal(nested(JSON_DEPTH_MAX + 1)).message).toMatch(/nesting/);
    refusal(`{"a":${'['.repeat(JSON_DEPTH_MAX)}${']'.repeat(JSON_DEPTH_MAX)}}`);
  });

  it('refuses absurd nesting with a 400, not a stack overflow', () => {
    refusal(`{"a":${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
  });

  it('keeps numbers as their exact text', () => {
    const parsed = parseJsonObject('{"amount":12345678901234567.89,"tiny":0.000000000000000001,"big":123456789012345678901234567890,"e":1.5E-1}');
    expect(parsed.amount).toBeInstanceOf(JsonNumber);
    expect((parsed.amount as JsonNumber).text).toBe('12345678901234567.89');
    expect((parsed.tiny as JsonNumber).text).toBe('0.000000000000000001');
    expect((parsed.big as JsonNumber).text).toBe('123456789012345678901234567890');
    expect((parsed.e as JsonNumber).text).toBe('1.5E-1');
  });
});

describe('toJsonText', () => {
  it('writes JsonNumber as raw digits, not as a string', () => {
    expect(toJsonText({ amount: new JsonNumber('12345678901234567.89') })).toBe('{"amount":12345678901234567.89}');
    expect(toJsonText({ a: [new JsonNumber('0.000000000000000001'), 'x', null, true] })).toBe('{"a":[0.000000000000000001,"x",null,true]}');
  });

  it('round-trips with parseJsonObject without losing a digit', () => {
    const text = '{"a":99999999999999999999.999999999999999999,"b":{"c":"d"}}';
    expect(toJsonText(parseJsonObject(text))).toBe(text);
  });
});

describe('parseInstant', () => {
  const at = (iso: string) => Date.parse(iso);

  it.each([
    ['2026-03-01T12:34:56Z', '2026-03-01T12:34:56.000Z'],
    ['2026-03-01T12:34:56.789Z', '2026-03-01T12:34:56.789Z'],
    ['2026-03-01t12:34:56z', '2026-03-01T12:34:56.000Z'],
    ['2026-03-01 12:34:56Z', '2026-03-01T12:34:56.000Z'],
    ['2026-03-01T12:34Z', '2026-03-01T12:34:00.000Z'],
    ['2026-03-01T12:34:56', '2026-03-01T12:34:56.000Z'],
    ['2026-03-01T12:34:56+02:00', '2026-03-01T10:34:56.000Z'],
    ['2026-03-01T12:34:56+0200', '2026-03-01T10:34:56.000Z'],
    ['2026-03-01T12:34:56-05:30', '2026-03-01T18:04:56.000Z'],
    ['2026-03-01T00:30:00+01:00', '2026-02-28T23:30:00.000Z'],
    ['2026-03-01', '2026-03-01T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2026-03-01T12:34:56.1Z', '2026-03-01T12:34:56.100Z'],
    ['2026-03-01T12:34:56,5Z', '2026-03-01T12:34:56.500Z'],
    ['2026-03-01T12:34:56.123456789Z', '2026-03-01T12:34:56.123Z'],
  ])('accepts %s', (text, iso) => {
    expect(parseInstant(text)).toBe(at(iso));
  });

  it('rounds digits past the millisecond up only when asked', () => {
    expect(parseInstant('2026-03-01T12:34:56.123456Z', 'down')).toBe(at('2026-03-01T12:34:56.123Z'));
    expect(parseInstant('2026-03-01T12:34:56.123456Z', 'up')).toBe(at('2026-03-01T12:34:56.124Z'));
    expect(parseInstant('2026-03-01T12:34:56.123000Z', 'up')).toBe(at('2026-03-01T12:34:56.123Z'));
  });

  it.each([
    '',
    'now',
    'yesterday',
    '1700000000000',
    '2026',
    '2026-03',
    '26-03-01',
    '2026/03/01',
    '2026-3-1',
    '2026-03-01T',
    '2026-03-01T12',
    '2026-03-01T12:34:56ZZ',
    '2026-03-01T12:34:56+2',
    ' 2026-03-01',
    '2026-03-01 ',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-01-32',
    '2026-02-30',
    '2026-02-29',
    '2025-04-31',
    '2026-03-01T25:00:00Z',
    '2026-03-01T12:60:00Z',
    '2026-03-01T12:00:61Z',
  ])('refuses %j', (text) => {
    expect(parseInstant(text)).toBe('not ISO 8601');
  });
});
