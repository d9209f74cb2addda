// The 2 MiB body limit where the request is read (server/body.ts), in this process: exactly 2 MiB is read whole, one
// byte more is refused with 413 BODY_TOO_LARGE, whether the length was declared or only counted while reading.
import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { readBody } from '../../src/server/body.js';
import { LedgerError } from '../../src/core/errors.js';

const MiB = 1024 * 1024;

/** A request whose body arrives in 64 KiB chunks, with or without a declared Content-Length. */
function request(bytes: number, declare: boolean): IncomingMessage {
  const stream = new PassThrough() as PassThrough & { headers: Record<string, string> };
  stream.headers = declare ? { 'content-length': String(bytes) } : {};
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let left = bytes;
  while (left > 0) {
    stream.write(chunk.subarray(0, Math.min(left, chunk.length)));
    left -= Math.min(left, chunk.length);
  }
  stream.end();
  return stream as unknown as IncomingMessage;
}

async function refusalOf(promise: Promise<unknown>): Promise<LedgerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LedgerError);
  return error as LedgerError;
}

describe('request bodies up to 2 MiB', () => {
  for (const declare of [true, false]) {
    const how = declare ? 'declared' : 'counted while reading';
    it(`exactly 2 MiB is read whole (${how})`, async () => {
      const body = await readBody(request(2 * MiB, declare), 10_000);
      expect(body.length).toBe(2 * MiB);
    });

    it(`2 MiB and one byte is 413 BODY_TOO_LARGE (${how})`, async () => {
      const error = await refusalOf(readBody(request(2 * MiB + 1, declare), 10_000));
      expect({ code: error.code, message: error.message }).toEqual({ code: 'BODY_TOO_LARGE', message: 'The request body is larger than 2097152 bytes.' });
    });
  }
});
