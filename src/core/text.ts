// What text the ledger stores: any Unicode, except U+0000 (NUL) and UTF-16 surrogates that are not paired. PostgreSQL
// cannot hold NUL in text, and a lone surrogate has no UTF-8 form (it would be stored as U+FFFD, another text than
// the one given, and the audit hash over it would no longer match). Refused on every engine alike, at every door:
// request bodies (core/json.ts), query parameters, headers and CLI arguments (core/validate.ts), and below them all
// the store's statements (store/sql/statement.ts).
import { invalid, type ErrorDetail } from './errors.js';

/** A NUL, or a surrogate (paired or not: the precise test below runs only when one is found). */
const SUSPECT = /[\u0000\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const hex = (code: number) => code.toString(16).toUpperCase().padStart(4, '0');

/** Why a string cannot be stored (`must not contain …`), or undefined when it can. */
export function textProblem(text: string): string | undefined {
  if (!SUSPECT.test(text)) return undefined;
  if (text.includes('\u0000')) return 'must not contain U+0000 (NUL)';
  const lone = LONE_SURROGATE.exec(text);
  return lone ? `must not contain an unpaired surrogate (U+${hex(lone[0].charCodeAt(0))})` : undefined;
}

/** A key as a path writes it: what cannot be shown as it is (a NUL, a lone surrogate) is escaped as JSON escapes it. */
export const keyInPath = (key: string): string => (textProblem(key) === undefined ? key : JSON.stringify(key).slice(1, -1));

const joinPath = (path: string, key: string | number) => (path === '' ? String(key) : `${path}.${key}`);

/**
 * The first string in a value (a string, or plain objects and arrays of them, keys included) that cannot be stored,
 * with its dotted path as the other validation details write it; a key at fault is named by its escaped form.
 */
export function findUnstorableText(value: unknown, path = ''): ErrorDetail | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem === undefined ? undefined : { path, message: problem };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], joinPath(path, i));
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const prototype = Object.getPrototypeOf(value) as unknown;
  // Only plain objects: a JsonNumber holds digits, and nothing else reaches here from outside.
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const keyProblem = textProblem(key);
    if (keyProblem !== undefined) return { path: joinPath(path, keyInPath(key)), message: `as a key, ${keyProblem}` };
    const found = findUnstorableText(item, joinPath(path, key));
    if (found) return found;
  }
  return undefined;
}

/**
 * The store's last guard: a value that reached a statement although every door refuses it (a path not yet guarded,
 * or text written before this rule) is refused as the input it is, never sent to the engine.
 */
export const unstorableValue = (problem: string) => invalid(`A value of this request cannot be stored: text ${problem}. Nothing was written.`);

/** Throws the store's refusal when a string cannot be stored. */
export function assertStorable(text: string): void {
  const problem = textProblem(text);
  if (problem !== undefined) throw unstorableValue(problem);
}
