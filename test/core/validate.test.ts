// Validation at the edge (src/core/validate.ts): the one 400 with its message and details, and the body shape derived
// from a valibot schema for the reader to enforce while it reads.
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { parseBodyText, parseWith, shapeOf } from '../../src/core/validate.js';
import { LedgerError } from '../../src/core/errors.js';
import type { BodyShape } from '../../src/core/json.js';

const refusal = (run: () => unknown): LedgerError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    return error as LedgerError;
  }
  throw new Error('expected a refusal');
};

describe('parseWith', () => {
  it('answers the output when valid', () => {
    expect(parseWith(v.object({ a: v.pipe(v.string(), v.transform((s) => s.length)) }), { a: 'xyz' }, 'thing')).toEqual({ a: 3 });
  });

  it('puts the first problem in the message, with its path, and each in the details (at most 20)', () => {
    const schema = v.object(Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}`, v.string('must be text')])));
    const e = refusal(() => parseWith(schema, Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}`, i])), 'request body'));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.message).toBe('Invalid request body: f0 must be text.');
    expect(e.details).toHaveLength(20);
    expect(e.details![19]).toEqual({ path: 'f19', message: 'must be text' });
  });

  it('stops at the first failing action of a pipe', () => {
    const schema = v.pipe(v.string(), v.minLength(3, 'too short'), v.regex(/^\d+$/, 'not digits'));
    expect(refusal(() => parseWith(schema, 'a', 'code')).details).toEqual([{ path: '', message: 'too short' }]);
  });

  it('a problem without a path is named without one', () => {
    expect(refusal(() => parseWith(v.string('must be text'), 1, 'header')).message).toBe('Invalid header: must be text.');
  });

  it('an unknown key of a strict object is "not a known field"; other never-issues keep their message', () => {
    const e = refusal(() => parseWith(v.strictObject({ a: v.optional(v.string()) }), { b: 1 }, 'body'));
    expect(e.details).toEqual([{ path: 'b', message: 'is not a known field' }]);
    expect(e.message).toBe('Invalid body: b is not a known field.');
    expect(refusal(() => parseWith(v.object({ a: v.never('no a') }), { a: 1 }, 'body')).details).toEqual([{ path: 'a', message: 'no a' }]);
  });
});

describe('parseBodyText', () => {
  const schema = v.strictObject({ list: v.pipe(v.array(v.string('each a string')), v.maxLength(2, 'at most two')), n: v.optional(v.number()) });

  it('refuses a breach found while reading with the same 400, and passes other errors on', () => {
    const breach = refusal(() => parseBodyText(schema, '{"list":["a","b","c"]}'));
    expect(breach.message).toBe('Invalid request body: list at most two.');
    expect(breach.details).toEqual([{ path: 'list', message: 'at most two' }]);
    expect(refusal(() => parseBodyText(schema, '{"list":')).message).toBe('Invalid JSON: expected a value, found the end of the input.');
    expect(refusal(() => parseBodyText(schema, '{"list":[1]}')).message).toBe('Invalid request body: list.0 each a string.');
    expect(parseBodyText(schema, '{"list":["a"]}')).toEqual({ list: ['a'] });
  });
});

describe('shapeOf', () => {
  it('derives fields, limits and messages, and keeps one shape per schema', () => {
    const schema = v.strictObject({
      tags: v.pipe(v.array(v.string()), v.maxLength(3)),
      meta: v.optional(v.nullable(v.pipe(v.record(v.string(), v.string()), v.maxEntries(5, 'five at most')))),
      any: v.unknown(),
      n: v.number('a number please'),
    });
    const shape = shapeOf(schema);
    expect(shapeOf(schema)).toBe(shape);
    if (shape.kind !== 'object') throw new Error('object expected');
    expect(shape.strict).toBe(true);
    expect(shape.mismatch).toBe(v.safeParse(schema, []).issues![0].message);
    const tags = shape.fields.get('tags')!;
    expect(tags).toMatchObject({ kind: 'array', max: 3, message: 'must have at most 3 entries', item: { kind: 'scalar' } });
    expect(shape.fields.get('meta')).toMatchObject({ kind: 'record', max: 5, message: 'five at most', value: { kind: 'scalar' } });
    expect(shape.fields.get('any')).toEqual({ kind: 'any' });
    expect(shape.fields.get('n')).toEqual({ kind: 'scalar', messages: { object: 'a number please', array: 'a number please' } });
    expect(shapeOf(v.object({})) as BodyShape).toMatchObject({ kind: 'object', strict: false });
  });

  it('a list or map without a limit is unbounded; a limit of the other kind does not apply', () => {
    const shape = shapeOf(v.object({ a: v.array(v.string()), r: v.pipe(v.record(v.string(), v.string()), v.maxLength(1) as never), l: v.pipe(v.array(v.string()), v.maxEntries(1) as never) }));
    if (shape.kind !== 'object') throw new Error('object expected');
    expect(shape.fields.get('a')).toMatchObject({ kind: 'array', max: Infinity, message: '' });
    expect(shape.fields.get('r')).toMatchObject({ kind: 'record', max: Infinity });
    expect(shape.fields.get('l')).toMatchObject({ kind: 'array', max: Infinity });
  });

  it('a variant of objects merges their fields (strict only if all are); a union of values is one value', () => {
    const a = v.strictObject({ type: v.literal('A'), x: v.string(), list: v.pipe(v.array(v.string()), v.maxLength(2)) });
    const b = v.strictObject({ type: v.literal('B'), y: v.string(), list: v.pipe(v.array(v.string()), v.maxLength(5)) });
    const merged = shapeOf(v.variant('type', [a, b]));
    if (merged.kind !== 'object') throw new Error('object expected');
    expect([...merged.fields.keys()].sort()).toEqual(['list', 'type', 'x', 'y']);
    expect(merged.strict).toBe(true);
    expect(merged.fields.get('type')!.kind).toBe('scalar');
    // Two array limits merge to any: the schema checks them after reading.
    expect(merged.fields.get('list')).toEqual({ kind: 'any' });
    const loose = shapeOf(v.union([a, v.object({ type: v.literal('C') })]));
    expect(loose).toMatchObject({ kind: 'object', strict: false });
    expect(shapeOf(v.union([v.string(), v.number()], 'text or number'))).toEqual({ kind: 'scalar', messages: { object: 'text or number', array: 'text or number' } });
    expect(shapeOf(v.union([v.string(), v.array(v.string())]))).toEqual({ kind: 'any' });
  });

  it('a custom check before the real schema is looked through', () => {
    const schema = v.pipe(
      v.custom<Record<string, string>>((x) => typeof x === 'object', 'an object'),
      v.record(v.string(), v.string()),
      v.maxEntries(2, 'two at most'),
    );
    expect(shapeOf(schema)).toMatchObject({ kind: 'record', max: 2, message: 'two at most', mismatch: 'must not be an array' });
  });
});

describe('refusal details', () => {
  it('a strict object given something else keeps valibot\'s message', () => {
    const e = refusal(() => parseWith(v.strictObject({}), 'x', 'body'));
    expect(e.details).toEqual([{ path: '', message: v.safeParse(v.strictObject({}), 'x').issues![0].message }]);
    expect(e.details![0]!.message).not.toBe('is not a known field');
  });

  it('a problem with the whole value is detailed under its name, when one is given', () => {
    const e = refusal(() => parseWith(v.string('is required'), undefined, 'header', 'Idempotency-Key'));
    expect(e.message).toBe('Invalid header: is required.');
    expect(e.details).toEqual([{ path: 'Idempotency-Key', message: 'is required' }]);
    expect(refusal(() => parseWith(v.string('is required'), undefined, 'header')).details).toEqual([{ path: '', message: 'is required' }]);
    const field = refusal(() => parseWith(v.object({ a: v.string('text') }), { a: 1 }, 'query', 'q'));
    expect(field.details).toEqual([{ path: 'a', message: 'text' }]);
  });

  it('a body refused for its shape at the root keeps the empty path', () => {
    const e = refusal(() => parseBodyText(v.string('a string'), '{}'));
    expect(e.details).toEqual([{ path: '', message: 'a string' }]);
    expect(e.message).toBe('Invalid request body: a string.');
  });

  it('a value schema that takes objects and arrays is refused by the reader in its own words', () => {
    expect(shapeOf(v.instance(Object))).toEqual({ kind: 'scalar', messages: { object: 'must not be an object', array: 'must not be an array' } });
  });
});
