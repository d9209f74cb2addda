// The JSON reader and writer (src/core/json.ts): exact messages of every refusal, whitespace, escapes, literals,
// shapes, and the writer's raw and number parts.
import { describe, expect, it } from 'vitest';
import { JsonNumber, parseJson, parseJsonObject, RawJson, ShapeBreach, toJsonText, jsonNumber, type BodyShape } from '../../src/core/json.js';
import { LedgerError } from '../../src/core/errors.js';

const message = (text: string, shape?: BodyShape): string => {
  try {
    parseJson(text, shape);
  } catch (error) {
    if (error instanceof ShapeBreach) return `breach ${error.detail.path}: ${error.detail.message}`;
    expect(error).toBeInstanceOf(LedgerError);
    return (error as LedgerError).message;
  }
  throw new Error(`parsed: ${text}`);
};

describe('parseJson', () => {
  it('skips every kind of JSON whitespace, and only that', () => {
    expect(parseJson(' \t\r\n{ \t\r\n"a" \t\r\n: \t\r\n[ \t\r\n1 \t\r\n, \t\r\ntrue \t\r\n] \t\r\n, "b":null} \t\r\n')).toEqual({ a: [new JsonNumber('1'), true], b: null });
    expect(message('{"a":1}\u000b')).toBe('Invalid JSON: expected the end of the input, found "\\u000b" at position 7.');
    expect(message('\u00a0{}')).toBe('Invalid JSON: the body must be a JSON object.');
  });

  it('reads literals, numbers and strings as they are', () => {
    expect(parseJson('{"t":true,"f":false,"n":null,"x":-0.5e+3,"s":"a\\"b\\\\","u":"\\u00e9","e":""}')).toEqual({
      t: true,
      f: false,
      n: null,
      x: new JsonNumber('-0.5e+3'),
      s: 'a"b\\',
      u: 'é',
      e: '',
    });
    expect(parseJson('{"a":[{},[],{"b":[1,2]}]}')).toEqual({ a: [{}, [], { b: [new JsonNumber('1'), new JsonNumber('2')] }] });
  });

  it('names what it expected and what it found, with the position', () => {
    expect(message('')).toBe('Invalid JSON: the body is empty.');
    expect(message('  ')).toBe('Invalid JSON: the body is empty.');
    expect(message('[1]')).toBe('Invalid JSON: the body must be a JSON object.');
    expect(message('{')).toBe('Invalid JSON: expected a key in double quotes, found the end of the input.');
    expect(message('{"a":}')).toBe('Invalid JSON: expected a value, found "}" at position 5.');
    expect(message('{"a":1 "b":2}')).toBe('Invalid JSON: expected "," or "}", found "\\"" at position 7.');
    expect(message('{"a":[1 2]}')).toBe('Invalid JSON: expected "," or "]", found "2" at position 8.');
    expect(message('{"a" 1}')).toBe('Invalid JSON: expected ":" after the key at position 1, found "1" at position 5.');
    expect(message('{a:1}')).toBe('Invalid JSON: expected a key in double quotes, found "a" at position 1.');
    expect(message('{"a":1}x')).toBe('Invalid JSON: expected the end of the input, found "x" at position 7.');
    expect(message('{"a":tru}')).toBe('Invalid JSON: expected a value, found "t" at position 5.');
    expect(message('{"a":fals}')).toBe('Invalid JSON: expected a value, found "f" at position 5.');
    expect(message('{"a":nul}')).toBe('Invalid JSON: expected a value, found "n" at position 5.');
    expect(message('{"a":[}')).toBe('Invalid JSON: expected a value, found "}" at position 6.');
  });

  it('refuses unclosed strings, bad escapes and raw control characters', () => {
    expect(message('{"a')).toBe('Invalid JSON: a string is not closed.');
    expect(message('{"a\\"')).toBe('Invalid JSON: a string is not closed.');
    expect(message('{"a":"x\\y"}')).toBe('Invalid JSON: the string at position 5 has an invalid escape or control character.');
    expect(message('{"a":"x\\"\u0001"}')).toBe('Invalid JSON: the string at position 5 has an invalid escape or control character.');
    expect(message('{"a":"\u0001"}')).toBe('Invalid JSON: the string at position 5 holds an unescaped control character.');
    expect(message('{"a":"\u001f"}')).toBe('Invalid JSON: the string at position 5 holds an unescaped control character.');
    expect(parseJson('{"a":" ~\u007f"}')).toEqual({ a: ' ~\u007f' });
    // An escaped quote does not close the string; an escaped backslash before a quote does not escape it.
    expect(parseJson('{"a":"\\"","b":"\\\\"}')).toEqual({ a: '"', b: '\\' });
  });

  it('refuses repeated and prototype keys, naming them', () => {
    expect(message('{"a":1,"a":2}')).toBe('Invalid JSON: the key "a" appears twice in one object.');
    for (const key of ['__proto__', 'constructor', 'prototype']) expect(message(`{"${key}":1}`)).toBe(`Invalid JSON: the key "${key}" is not allowed.`);
  });

  it('shapes: unknown fields, scalars where containers are, containers of the wrong kind, count limits', () => {
    const item: BodyShape = { kind: 'object', strict: true, fields: new Map([['x', { kind: 'scalar', messages: { object: 'x obj', array: 'x arr' } }]]) };
    const shape: BodyShape = {
      kind: 'object',
      strict: true,
      fields: new Map<string, BodyShape>([
        ['list', { kind: 'array', max: 2, message: 'too many', item, mismatch: 'must be a list' }],
        ['map', { kind: 'record', max: 1, message: 'too many keys', value: { kind: 'any' } }],
        ['free', { kind: 'any' }],
        ['loose', { kind: 'object', strict: false, fields: new Map() }],
      ]),
    };
    expect(parseJson('{"list":[{"x":1},{"x":2}],"map":{"k":[1]},"free":{"y":[{}]},"loose":{"z":1}}', shape)).toBeTypeOf('object');
    expect(message('{"nope":1}', shape)).toBe('breach nope: is not a known field');
    expect(message('{"list":[{"y":1}]}', shape)).toBe('breach list.0.y: is not a known field');
    expect(message('{"list":[{"x":1},{"x":{}}]}', shape)).toBe('breach list.1.x: x obj');
    expect(message('{"list":[{"x":[]}]}', shape)).toBe('breach list.0.x: x arr');
    expect(message('{"list":{}}', shape)).toBe('breach list: must be a list');
    expect(message('{"map":[]}', shape)).toBe('breach map: must not be an array');
    expect(message('{"list":[{"x":1},{"x":1},{"x":1}]}', shape)).toBe('breach list: too many');
    expect(message('{"map":{"a":1,"b":2}}', shape)).toBe('breach map: too many keys');
    expect(message('{"loose":[]}', shape)).toBe('breach loose: must not be an array');
    expect(message('[]', { kind: 'any' })).toBe('Invalid JSON: the body must be a JSON object.');
    const values: BodyShape = { kind: 'record', max: 9, message: 'm', value: { kind: 'scalar', messages: { object: 'a value, not an object', array: 'a value, not a list' } } };
    expect(message('{"k":1,"j":{}}', values)).toBe('breach j: a value, not an object');
    expect(message('{"k":[]}', values)).toBe('breach k: a value, not a list');
  });

  it('parseJsonObject parses with or without a shape', () => {
    expect(parseJsonObject('{"a":1}')).toEqual({ a: new JsonNumber('1') });
  });
});

describe('toJsonText', () => {
  it('writes numbers as their digits and raw parts as they are, nested anywhere', () => {
    expect(toJsonText({ a: new JsonNumber('1.50'), b: [new RawJson('{"x":2.0}'), new RawJson('[3]')], c: 's' })).toBe('{"a":1.50,"b":[{"x":2.0},[3]],"c":"s"}');
    expect(toJsonText(jsonNumber('-1e5'))).toBe('-1e5');
    expect(toJsonText('\u0000')).toBe('"\\u0000"');
    expect(toJsonText(undefined)).toBe('null');
    expect(toJsonText({ s: 'plain' })).toBe('{"s":"plain"}');
    expect(String(new JsonNumber('7'))).toBe('7');
  });

  it('a RawJson is written only by toJsonText', () => {
    expect(() => JSON.stringify(new RawJson('1'))).toThrow(new Error('RawJson is written only by toJsonText'));
    // After a toJsonText call, even one that threw, it is still refused outside.
    const bad = { toJSON: () => { throw new Error('boom'); } };
    expect(() => toJsonText([new RawJson('1'), bad])).toThrow('boom');
    expect(() => JSON.stringify(new RawJson('1'))).toThrow('RawJson is written only by toJsonText');
  });
});
