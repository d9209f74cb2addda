// The rule of storable text (src/core/text.ts) and where it is applied without a server: the JSON reader of request
// bodies, the validation of other inputs, and the store's statements.
import { describe, expect, it } from 'vitest';
import { findUnstorableText, keyInPath, textProblem } from '../../src/core/text.js';
import { parseJson, ShapeBreach } from '../../src/core/json.js';
import { parseBodyText, parseWith } from '../../src/core/validate.js';
import { createAccountBody, idempotencyKeySchema, postTransactionBody } from '../../src/core/schemas.js';
import { compileSlots, param } from '../../src/store/sql/statement.js';
import { LedgerError } from '../../src/core/errors.js';

const refusalOf = (run: () => unknown): LedgerError => {
  try {
    run();
  } catch (error) {
    if (error instanceof LedgerError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('textProblem', () => {
  it('refuses U+0000 and unpaired surrogates, high or low, anywhere', () => {
    expect(textProblem('a\u0000')).toBe('must not contain U+0000 (NUL)');
    expect(textProblem('\ud800')).toBe('must not contain an unpaired surrogate (U+D800)');
    expect(textProblem('x\udbffy')).toBe('must not contain an unpaired surrogate (U+DBFF)');
    expect(textProblem('\udc00x')).toBe('must not contain an unpaired surrogate (U+DC00)');
    expect(textProblem('\ude00\ud83d')).toBe('must not contain an unpaired surrogate (U+DE00)');
  });

  it('takes any other text: paired surrogates (emoji), U+FFFD, other controls, the empty string', () => {
    for (const ok of ['', 'plain', '😀', 'a\ud83d\ude00b', '\ufffd', 'tab\there', '\u0001\u001f', 'ação']) expect(textProblem(ok), JSON.stringify(ok)).toBeUndefined();
  });

  it('names a key at fault by its escaped form, and any other key as it is', () => {
    expect(keyInPath('a\u0000b')).toBe('a\\u0000b');
    expect(keyInPath('a\ud800')).toBe('a\\ud800');
    expect(keyInPath('order.id')).toBe('order.id');
  });
});

describe('findUnstorableText', () => {
  it('walks strings, arrays and plain objects, keys included, and answers the first with its dotted path', () => {
    expect(findUnstorableText('a\u0000')).toEqual({ path: '', message: 'must not contain U+0000 (NUL)' });
    expect(findUnstorableText({ limit: '1', cursor: 'x\u0000' })).toEqual({ path: 'cursor', message: 'must not contain U+0000 (NUL)' });
    expect(findUnstorableText({ lines: [{ d: 'ok' }, { d: '\ud800' }] })).toEqual({ path: 'lines.1.d', message: expect.stringMatching(/U\+D800/) });
    expect(findUnstorableText({ m: { 'k\u0000': 'v' } })).toEqual({ path: 'm.k\\u0000', message: 'as a key, must not contain U+0000 (NUL)' });
    expect(findUnstorableText({ a: 1, b: null, c: ['x', { d: true }] })).toBeUndefined();
  });
});

describe('the JSON reader of request bodies', () => {
  it('with storableText, refuses an escaped NUL or lone surrogate at its path, in a value or a key', () => {
    const breach = (text: string) => {
      try {
        parseJson(text, undefined, { storableText: true });
      } catch (error) {
        if (error instanceof ShapeBreach) return error.detail;
        throw error;
      }
      throw new Error('not refused');
    };
    expect(breach('{"a":"x\\u0000"}')).toEqual({ path: 'a', message: 'must not contain U+0000 (NUL)' });
    expect(breach('{"a":[1,"\\ud800"]}')).toEqual({ path: 'a.1', message: 'must not contain an unpaired surrogate (U+D800)' });
    expect(breach('{"a":{"\\u0000k":"v"}}')).toEqual({ path: 'a.\\u0000k', message: 'as a key, must not contain U+0000 (NUL)' });
    // A pair written as two escapes is one character, and is text like any other.
    expect(parseJson('{"a":"\\ud83d\\ude00"}', undefined, { storableText: true })).toEqual({ a: '😀' });
  });

  it('without it (text read back from the store), reads such text as it is', () => {
    expect(parseJson('{"a":"x\\u0000","\\ud800":1}')).toEqual({ a: 'x\u0000', '\ud800': expect.anything() });
  });

  it('a body: 400 with the detail at the field, before any rule of the schema', () => {
    const error = refusalOf(() => parseBodyText(createAccountBody, '{"name":"a\\u0000","currency":"GBP","type":"ASSET"}'));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toBe('Invalid request body: name must not contain U+0000 (NUL).');
    expect(error.details).toEqual([{ path: 'name', message: 'must not contain U+0000 (NUL)' }]);
    const line = refusalOf(() =>
      parseBodyText(postTransactionBody, JSON.stringify({ lines: [{ accountId: 'x', description: 'ok' }, { description: '\udfff' }] })),
    );
    expect(line.details?.[0]).toEqual({ path: 'lines.1.description', message: 'must not contain an unpaired surrogate (U+DFFF)' });
  });

  it('a header or an argument: 400 named as the value is (parseWith)', () => {
    const error = refusalOf(() => parseWith(idempotencyKeySchema, 'k\u0000', 'Idempotency-Key header', 'Idempotency-Key'));
    expect(error.details).toEqual([{ path: 'Idempotency-Key', message: 'must not contain U+0000 (NUL)' }]);
  });
});

describe("the store's statements", () => {
  it('refuse such a value as input (400), and pass any other value untouched', () => {
    const bind = compileSlots([param('name'), 7, param('n'), param('tenantId')], (publicId) => `key of ${publicId}`);
    expect(bind({ name: 'ok 😀', n: 3n, tenantId: 't' })).toEqual(['ok 😀', 7, 3n, 'key of t']);
    for (const bad of ['a\u0000', 'a\ud800']) {
      const error = refusalOf(() => bind({ name: bad, n: 1, tenantId: 't' }));
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.message).toMatch(/cannot be stored/);
    }
  });
});
