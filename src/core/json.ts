// JSON text in and out without losing a digit: numbers arrive as JsonNumber and leave as their exact text.
import { randomBytes } from 'node:crypto';
import { parse } from 'lossless-json';
import { invalid } from './errors.js';
import { JSON_DEPTH_MAX } from './limits.js';

// Serialization uses the native JSON.stringify (fast) and writes each JsonNumber as a marked string, then replaces the
// marks with the bare digits. The mark carries a random nonce of this process, so no input string can forge one.
const MARK = `\u0000${randomBytes(12).toString('hex')}:`;
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
  const parts: string[] = [];
  rawParts = parts;
  let text: string;
  try {
    text = JSON.stringify(value) ?? 'null';
  } finally {
    rawParts = null;
  }
  if (!text.includes('\\u0000')) return text;
  return text.replace(marked, (_, index: string | undefined, digits: string | undefined) => (index !== undefined ? parts[Number(index)]! : digits!));
}

/** A number for a response, from exact decimal text. */
export const jsonNumber = (text: string): JsonNumber => new JsonNumber(text);

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Walks the JSON text once more, after it parsed, to refuse what the parser lets through:
 * a key repeated in one object (even with an equal value), prototype keys, and nesting deeper than any request needs.
 */
function checkKeys(text: string): void {
  const objects: Array<Set<string> | null> = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      let k = j + 1;
      while (k < text.length && /\s/.test(text[k]!)) k++;
      const top = objects[objects.length - 1];
      if (text[k] === ':' && top) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (FORBIDDEN_KEYS.has(key)) throw invalid(`Invalid JSON: the key "${key}" is not allowed.`);
        if (top.has(key)) throw invalid(`Invalid JSON: the key "${key}" appears twice in one object.`);
        top.add(key);
      }
      i = j + 1;
      continue;
    }
    if (ch === '{' || ch === '[') {
      objects.push(ch === '{' ? new Set() : null);
      if (objects.length > JSON_DEPTH_MAX) throw invalid(`Invalid JSON: nesting deeper than ${JSON_DEPTH_MAX} levels.`);
    } else if (ch === '}' || ch === ']') {
      objects.pop();
    }
    i++;
  }
}

/** Parses a request body that must be one JSON object. */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parse(text, null, (digits: string) => new JsonNumber(digits));
  } catch (error) {
    throw invalid(`Invalid JSON: ${error instanceof Error ? error.message : 'cannot be parsed'}.`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof JsonNumber) {
    throw invalid('Invalid JSON: the body must be a JSON object.');
  }
  checkKeys(text);
  return value as Record<string, unknown>;
}
