// What text the ledger stores: any Unicode but U+0000 (NUL) and unpaired UTF-16 surrogates, refused on every engine
// at every door (core/json.ts, core/validate.ts, sql/statement.ts).
import { invalid, type ErrorDetail } from './errors.js';

// PostgreSQL cannot hold NUL in text, and a lone surrogate has no UTF-8 form: it would be stored as U+FFFD, another
// text than the one given, and the audit hash over it would no longer match.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** ES2024's String.prototype.isWellFormed (Node 20 has it; the TypeScript library of ES2023 does not name it). */
const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

const hex = (code: number) => code.toString(16).toUpperCase().padStart(4, '0');

/**
 * Why a string cannot be stored (`must not contain …`), or undefined when it can. Both tests are native and cheap
 * (a megabyte document in well under a millisecond; a string of one-byte characters has no surrogate to look for),
 * so every value a statement binds can be checked.
 */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain U+0000 (NUL)';
  if (isWellFormed(text)) return undefined;
  const lone = LONE_SURROGATE.exec(text)!;
  return `must not contain an unpaired surrogate (U+${hex(lone[0].charCodeAt(0))})`;
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
