// JSON text in and out without losing a digit: numbers arrive as JsonNumber and leave as their exact text.
import { invalid, type ErrorDetail } from './errors.js';
import { JSON_DEPTH_MAX } from './limits.js';
import { keyInPath, textProblem } from './text.js';

// Serialization uses the native JSON.stringify (fast) and writes each JsonNumber as a marked string, then replaces the
// marks with the bare digits. The mark carries a random nonce of this process, so no input string can forge one.
const MARK = `\u0000${Array.from(globalThis.crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('')}:`;
const marked = new RegExp(`"${MARK.replace('\u0000', '\\\\u0000')}(?:#(\\d+)|(-?[0-9.eE+-]+))"`, 'g');

/** Raw JSON parts collected while one toJsonText call runs (it is synchronous). */
let rawParts: string[] | null = null;

/** JSON text already rendered (a stored view), embedded as it is. */
export class RawJson {
  constructor(readonly text: string) {}
  toJSON(): string {
    if (!rawParts) throw new Error('RawJson is written only by toJsonText');
    rawParts.push(this.text);
    return `${MARK}#${rawParts.length - 1}`;
  }
}

/** A JSON number kept as its source text, so no digit is lost between the wire and the ledger. */
export class JsonNumber {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
  toJSON(): string {
    return `${MARK}${this.text}`;
  }
}

export function toJsonText(value: unknown): string {
  // Stryker disable next-line ArrayDeclaration: equivalent; an index is taken from this same array, whatever it starts with.
  const parts: string[] = [];
  rawParts = parts;
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } finally {
    rawParts = null;
  }
  // Stryker disable next-line StringLiteral: equivalent; includes('') is true too, and the replace below then finds no mark.
  if (!text.includes('\\u0000')) return text;
  return text.replace(marked, (_, index: string | undefined, digits: string | undefined) => (index !== undefined ? parts[Number(index)]! : digits!));
}

/** A number for a response, from exact decimal text. */
export const jsonNumber = (text: string): JsonNumber => new JsonNumber(text);

/**
 * The count limits of a request body, by position: what the parser enforces while it reads, so that a body that
 * breaks one is refused as soon as the breach is seen, before any work on the elements (core/validate.ts derives
 * it from the body's valibot schema, the one place where the limits are written).
 */
export type BodyShape =
  /** Known fields only: any other key is refused where it appears. */
  | { kind: 'object'; strict: boolean; fields: ReadonlyMap<string, BodyShape>; mismatch?: string }
  | { kind: 'array'; max: number; message: string; item: BodyShape; mismatch?: string }
  /** A map with a bounded number of entries. */
  | { kind: 'record'; max: number; message: string; value: BodyShape; mismatch?: string }
  /** A string, number, boolean or null: an object or array here is refused at its first character. */
  | { kind: 'scalar'; messages: { object: string; array: string } }
  /** Anything, within the depth limit. */
  | { kind: 'any' };

const ANY: BodyShape = { kind: 'any' };
export const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A body refused for its shape, with the path as valibot writes it (`lines.3.monetaryEntry`). */
export class ShapeBreach extends Error {
  constructor(readonly detail: ErrorDetail) {
    super(detail.message);
  }
}

interface Frame {
  container: Record<string, unknown> | unknown[];
  isArray: boolean;
  shape: BodyShape;
  /** The container this one is in (null for the root), and its key or index there: its path, made only for a message. */
  parent: Frame | null;
  at: string | number;
  count: number;
  /** The key whose value is being read (objects). */
  key: string | null;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const CONTROL = /[\u0000-\u001f]/;
const describeChar = (text: string, at: number) => (at >= text.length ? 'the end of the input' : `${JSON.stringify(text[at])} at position ${at}`);
const syntax = (text: string, at: number, expected: string) => invalid(`Invalid JSON: expected ${expected}, found ${describeChar(text, at)}.`);
const join = (path: string, key: string | number) => (path === '' ? String(key) : `${path}.${key}`);
/** The path of what is at `at` in `parent` (the root's is ''), as valibot writes it: made only when a message needs it. */
const pathAt = (parent: Frame | null, at: string | number): string => (parent === null ? '' : join(pathAt(parent.parent, parent.at), at));
const pathOf = (frame: Frame): string => pathAt(frame.parent, frame.at);

function childShape(frame: Frame): BodyShape {
  const shape = frame.shape;
  if (shape.kind === 'array') return shape.item;
  if (shape.kind === 'record') return shape.value;
  if (shape.kind === 'object') return shape.fields.get(frame.key!) ?? ANY;
  return ANY;
}

/**
 * Parses JSON text in one pass without recursion (so no input can exhaust the stack), keeping every number's
 * digits (JsonNumber), and refusing at the first sign: a repeated or prototype key, nesting past JSON_DEPTH_MAX,
 * and, when a shape is given, an unknown field, a container where a value is expected, or one element past a count
 * limit. The cost of a refusal is the cost of the text read before it.
 */
export function parseJson(text: string, shape: BodyShape = ANY, options: ParseOptions = {}): unknown {
  const stack: Frame[] = [];
  const storable = options.storableText ?? false;
  /** The last string read held an escape: only an escape can give a NUL or a lone surrogate (see storableText). */
  let escaped = false;
  let i = 0;
  let root: unknown;
  // Stryker disable next-line BooleanLiteral: equivalent; the root is always an opened object (checked below), so it is always set.
  let rootSet = false;
  const n = text.length;
  // A text with no control character at all (compact JSON has none, not even whitespace) has none in a string either:
  // one scan of the whole text instead of one a string.
  const controls = CONTROL.test(text);
  const skip = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
      i++;
    }
  };
  const readString = (): string => {
    // At an opening quote.
    let j = text.indexOf('"', i + 1);
    if (j < 0) throw invalid('Invalid JSON: a string is not closed.');
    let raw = text.slice(i + 1, j);
    if (raw.includes('\\')) {
      // Escapes: find the quote that is not escaped, then let the native parser decode (and check) the string.
      j = i + 1;
      while (j < n && text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 ? 2 : 1;
      if (j >= n) throw invalid('Invalid JSON: a string is not closed.');
      let decoded: string;
      try {
        decoded = JSON.parse(text.slice(i, j + 1)) as string;
      } catch {
        throw invalid(`Invalid JSON: the string at position ${i} has an invalid escape or control character.`);
      }
      i = j + 1;
      escaped = true;
      return decoded;
    }
    escaped = false;
    if (controls && CONTROL.test(raw)) throw invalid(`Invalid JSON: the string at position ${i} holds an unescaped control character.`);
    i = j + 1;
    return raw;
  };
  /** Places a finished value in the current container (or as the root). */
  const place = (value: unknown) => {
    const frame = stack[stack.length - 1];
    if (!frame) {
      root = value;
      rootSet = true;
    } else if (Array.isArray(frame.container)) {
      frame.container.push(value);
    } else {
      frame.container[frame.key!] = value;
    }
  };
  const open = (kind: 'object' | 'array', shapeHere: BodyShape, parent: Frame | null, at: string | number) => {
    if (shapeHere.kind === 'scalar') throw new ShapeBreach({ path: pathAt(parent, at), message: shapeHere.messages[kind] });
    // An array where an object belongs, or the other way round (`mismatch` is what the schema says of it).
    if (shapeHere.kind !== 'any' && (shapeHere.kind === 'array') !== (kind === 'array')) {
      throw new ShapeBreach({ path: pathAt(parent, at), message: shapeHere.mismatch ?? `must not be an ${kind}` });
    }
    if (stack.length >= JSON_DEPTH_MAX) throw invalid(`Invalid JSON: nesting deeper than ${JSON_DEPTH_MAX} levels.`);
    const isArray = kind === 'array';
    const container = isArray ? [] : {};
    place(container);
    stack.push({ container, isArray, shape: shapeHere, parent, at, count: 0, key: null });
  };
  /** Counts one more element of the current container against its limit, before the element is read. */
  const countOne = (frame: Frame) => {
    frame.count++;
    const s = frame.shape;
    if ((s.kind === 'array' || s.kind === 'record') && frame.count > s.max) throw new ShapeBreach({ path: pathOf(frame), message: s.message });
  };
  /** Reads one value at i, at `at` in `parent`: a scalar is placed at once, a container is opened. */
  const value = (shapeHere: BodyShape, parent: Frame | null, at: string | number) => {
    const c = text.charCodeAt(i);
    if (c === 123 /* { */) {
      open('object', shapeHere, parent, at);
      i++;
      return;
    }
    if (c === 91 /* [ */) {
      open('array', shapeHere, parent, at);
      i++;
      return;
    }
    if (c === 34 /* " */) {
      const string = readString();
      const problem = storable && escaped ? textProblem(string) : undefined;
      if (problem !== undefined) throw new ShapeBreach({ path: pathAt(parent, at), message: problem });
      return place(string);
    }
    if (c === 116 && text.startsWith('true', i)) {
      i += 4;
      return place(true);
    }
    if (c === 102 && text.startsWith('false', i)) {
      i += 5;
      return place(false);
    }
    if (c === 110 && text.startsWith('null', i)) {
      i += 4;
      return place(null);
    }
    NUMBER.lastIndex = i;
    const match = NUMBER.exec(text);
    if (!match) throw syntax(text, i, 'a value');
    i += match[0].length;
    place(new JsonNumber(match[0]));
  };

  skip();
  if (text.charCodeAt(i) !== 123) {
    if (i >= n) throw invalid('Invalid JSON: the body is empty.');
    throw invalid('Invalid JSON: the body must be a JSON object.');
  }
  value(shape, null, '');
  // Each turn: the current container has just been opened, or has just received a value.
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    skip();
    const c = text.charCodeAt(i);
    const isArray = frame.isArray;
    const close = isArray ? 93 : 125;
    if (c === close) {
      i++;
      stack.pop();
      continue;
    }
    if (frame.count > 0) {
      if (c !== 44 /* , */) throw syntax(text, i, isArray ? '"," or "]"' : '"," or "}"');
      i++;
      skip();
    }
    countOne(frame);
    if (isArray) {
      value(childShape(frame), frame, frame.count - 1);
      continue;
    }
    if (text.charCodeAt(i) !== 34) throw syntax(text, i, 'a key in double quotes');
    const at = i;
    const key = readString();
    const keyProblem = storable && escaped ? textProblem(key) : undefined;
    if (keyProblem !== undefined) throw new ShapeBreach({ path: pathAt(frame, keyInPath(key)), message: `as a key, ${keyProblem}` });
    if (FORBIDDEN_KEYS.has(key)) throw invalid(`Invalid JSON: the key "${key}" is not allowed.`);
    // Every key read so far has its value placed (a container as soon as it opens), and no prototype key gets here.
    if (Object.hasOwn(frame.container, key)) throw invalid(`Invalid JSON: the key "${key}" appears twice in one object.`);
    if (frame.shape.kind === 'object' && frame.shape.strict && !frame.shape.fields.has(key)) {
      throw new ShapeBreach({ path: pathAt(frame, key), message: 'is not a known field' });
    }
    skip();
    if (text.charCodeAt(i) !== 58 /* : */) throw syntax(text, i, `":" after the key at position ${at}`);
    i++;
    skip();
    frame.key = key;
    value(childShape(frame), frame, key);
  }
  skip();
  if (i < n) throw syntax(text, i, 'the end of the input');
  // Stryker disable next-line StringLiteral: unreachable; the first character was checked to be "{", which sets the root.
  if (!rootSet) throw invalid('Invalid JSON: the body is empty.');
  return root;
}

export interface ParseOptions {
  /**
   * Refuse, at its path, a string or key that the ledger cannot store (core/text.ts): a request body. Text read back
   * from the store is parsed without it, so that what was stored before the rule still reads.
   */
  storableText?: boolean;
}

/** Parses a request body that must be one JSON object, within the shape's limits. */
export function parseJsonObject(text: string, shape?: BodyShape, options?: ParseOptions): Record<string, unknown> {
  return parseJson(text, shape, options) as Record<string, unknown>;
}
