// Opaque, sealed and dated keyset cursors: a client can neither read one, nor forge it, move it to another list or
// query, or use it after it expires. A cursor is base64url(iv ‖ AES-256-GCM of its padded JSON ‖ tag).
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomFillSync } from 'node:crypto';
import { invalid } from './errors.js';
import { CURSOR_LENGTH_MAX, CURSOR_TTL_MS } from './limits.js';

interface CursorBody<P> {
  /** The list this cursor belongs to: tenant, resource and parent id. */
  s: string;
  /** The query it was given with (CursorScope.query). */
  q: string;
  p: P;
  /** Expiry, epoch milliseconds. */
  x: number;
}

/** 128 bits of the query's hash: sealed, it is compared, never read. */
const QUERY_HASH_CHARS = 22;

/** A filter's value as a list reads it; absent is null, and a set of values is the same set in any order. */
export type FilterValue = string | number | null | undefined | readonly string[];

/**
 * What a cursor is sealed with: the list it pages (tenant, resource, parent id) and the query it was given with, every
 * filter of it (not `limit`, which may change from page to page). A client keeps its query and adds the cursor: the
 * same query, however written (`type=a,b` or `b,a`, an instant in another spelling), is accepted; another one is 400.
 */
export class CursorScope {
  /** The filters, each by name, canonical and hashed: a fixed length whatever they hold. */
  readonly query: string;

  constructor(
    readonly list: string,
    filters: Readonly<Record<string, FilterValue>> = {},
  ) {
    // A filter left out and one given as null are the same query; so are a set's values in any order, or repeated.
    const canonical = Object.keys(filters)
      .filter((name) => filters[name] !== undefined && filters[name] !== null)
      .sort()
      .map((name) => {
        const value = filters[name]!;
        return [name, Array.isArray(value) ? [...new Set(value as readonly string[])].sort() : value];
      });
    this.query = createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, QUERY_HASH_CHARS);
  }
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Plain texts are padded to a multiple of this, so that a cursor's length says nothing of its position's digits. */
const CURSOR_PAD_BYTES = 64;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** IVs are cut from a block of random bytes filled at once (one call to the system's generator per 256 cursors). */
const IV_BLOCK_BYTES = IV_BYTES * 256;

let ivBlock = Buffer.alloc(0);
let ivNext = IV_BLOCK_BYTES;
/** A fresh random IV: a slice of the block no other IV shares (a used block is dropped, never refilled in place). */
function nextIv(): Buffer {
  if (ivNext >= IV_BLOCK_BYTES) {
    ivBlock = randomFillSync(Buffer.allocUnsafeSlow(IV_BLOCK_BYTES));
    ivNext = 0;
  }
  return ivBlock.subarray(ivNext, (ivNext += IV_BYTES));
}

export class CursorCodec {
  private readonly key: Buffer;

  /** `secret`: the database's cursor secret; the sealing key is derived from it (HKDF-SHA256). */
  constructor(secret: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'ledger cursor v2', 32));
  }

  /** Seals a plain text (padded with spaces, which JSON ignores) into a cursor's text. */
  seal(text: string): string {
    const plain = Buffer.from(text);
    const padded = Buffer.alloc(Math.ceil((plain.length + 1) / CURSOR_PAD_BYTES) * CURSOR_PAD_BYTES, ' ');
    plain.copy(padded);
    const iv = nextIv();
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([iv, cipher.update(padded), cipher.final(), cipher.getAuthTag()]);
    return sealed.toString('base64url');
  }

  /** The plain text of a cursor sealed with this key, or undefined for anything else. */
  private open(cursor: string): string | undefined {
    if (!BASE64URL.test(cursor)) return undefined;
    const sealed = Buffer.from(cursor, 'base64url');
    // base64url decoding forgives a stray last character: a cursor is used verbatim, so it must re-encode to itself.
    if (sealed.length <= IV_BYTES + TAG_BYTES || sealed.toString('base64url') !== cursor) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, IV_BYTES));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  encode<P>(scope: CursorScope, position: P, nowMs: number): string {
    return this.seal(JSON.stringify({ s: scope.list, q: scope.query, p: position, x: nowMs + CURSOR_TTL_MS } satisfies CursorBody<P>));
  }

  /**
   * Returns the position, or throws a 400 for a cursor that is malformed, forged, foreign, expired, or given with
   * another query than the one it came from.
   */
  decode<P>(scope: CursorScope, cursor: string, nowMs: number, isPosition: (p: unknown) => p is P): P {
    const bad = (why: string) => invalid(`The cursor is ${why}; use nextCursor verbatim from a recent response.`, [{ path: 'cursor', message: why }]);
    if (cursor.length > CURSOR_LENGTH_MAX) throw bad('malformed');
    const text = this.open(cursor);
    if (text === undefined) throw bad('malformed');
    let parsed: CursorBody<unknown>;
    try {
      parsed = JSON.parse(text) as CursorBody<unknown>;
      // Stryker disable next-line BlockStatement: equivalent; without the rethrow, parsed stays undefined and is refused as malformed below.
    } catch {
      throw bad('malformed');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad('malformed');
    if (parsed.s !== scope.list) throw bad('not valid for this list');
    if (parsed.q !== scope.query) {
      throw invalid('The cursor came with another query: send it with the query it came from (the same filters), or leave it out to start again.', [
        { path: 'cursor', message: 'was given with another query' },
      ]);
    }
    if (typeof parsed.x !== 'number' || parsed.x < nowMs) throw bad('expired');
    if (!isPosition(parsed.p)) throw bad('malformed');
    return parsed.p;
  }
}
