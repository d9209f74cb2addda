// Opaque, sealed and dated keyset cursors: a client can neither read one (no ids, no positions, no counts), nor forge
// one, move it to another list, or use it after it expires. A cursor is its list, position and expiry as JSON,
// padded to a multiple of CURSOR_PAD_BYTES and sealed with AES-256-GCM under a key derived from the database's cursor
// secret: base64url(iv ‖ ciphertext ‖ tag).
import { createCipheriv, createDecipheriv, hkdfSync, randomFillSync } from 'node:crypto';
import { invalid } from './errors.js';
import { CURSOR_LENGTH_MAX, CURSOR_TTL_MS } from './limits.js';

interface CursorBody<P> {
  /** The list this cursor belongs to: tenant, resource and parent id. */
  s: string;
  p: P;
  /** Expiry, epoch milliseconds. */
  x: number;
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

  encode<P>(scope: string, position: P, nowMs: number): string {
    return this.seal(JSON.stringify({ s: scope, p: position, x: nowMs + CURSOR_TTL_MS } satisfies CursorBody<P>));
  }

  /** Returns the position, or throws a 400 for a cursor that is malformed, forged, foreign or expired. */
  decode<P>(scope: string, cursor: string, nowMs: number, isPosition: (p: unknown) => p is P): P {
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
    if (parsed.s !== scope) throw bad('not valid for this list');
    if (typeof parsed.x !== 'number' || parsed.x < nowMs) throw bad('expired');
    if (!isPosition(parsed.p)) throw bad('malformed');
    return parsed.p;
  }
}
