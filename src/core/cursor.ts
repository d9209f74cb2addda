// Opaque, signed and dated keyset cursors: a client cannot forge one, move it to another list, or use it after it expires.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalid } from './errors.js';
import { CURSOR_LENGTH_MAX, CURSOR_TTL_MS } from './limits.js';

interface CursorBody<P> {
  /** The list this cursor belongs to: tenant, resource and parent id. */
  s: string;
  p: P;
  /** Expiry, epoch milliseconds. */
  x: number;
}

export class CursorCodec {
  constructor(private readonly key: Buffer) {}

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, 18).toString('base64url');
  }

  encode<P>(scope: string, position: P, nowMs: number): string {
    const body = Buffer.from(JSON.stringify({ s: scope, p: position, x: nowMs + CURSOR_TTL_MS } satisfies CursorBody<P>)).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** Returns the position, or throws a 400 for a cursor that is malformed, forged, foreign or expired. */
  decode<P>(scope: string, cursor: string, nowMs: number, isPosition: (p: unknown) => p is P): P {
    const bad = (why: string) => invalid(`The cursor is ${why}; use nextCursor verbatim from a recent response.`, [{ path: 'cursor', message: why }]);
    if (cursor.length > CURSOR_LENGTH_MAX) throw bad('malformed');
    const [body, signature, extra] = cursor.split('.');
    if (!body || !signature || extra !== undefined) throw bad('malformed');
    // Compared as text: base64 decoding would forgive trailing characters, and a cursor is used verbatim.
    const given = Buffer.from(signature);
    const expected = Buffer.from(this.sign(body));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad('malformed');
    let parsed: CursorBody<unknown>;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorBody<unknown>;
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
