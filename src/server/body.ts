// Reading request bodies from the socket within bounds (size, idle time, total time), and refusing the rest readably:
// an answer to a body that is still arriving is sent at once, then the rest is read and discarded before closing.
import type { IncomingMessage } from 'node:http';
import { respond } from './respond.js';
import { LedgerError } from '../core/errors.js';
import { BODY_SIZE_MAX_BYTES, BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE, LINGER_BYTES_MAX, LINGER_MS } from '../core/limits.js';

/** The one 413: declared too long before reading, or longer than declared-allowed while reading. */
export const bodyTooLarge = () => new LedgerError('BODY_TOO_LARGE', `The request body is larger than ${BODY_SIZE_MAX_BYTES} bytes.`);

const bodyTimedOut = (idleMs: number) =>
  new LedgerError(
    'REQUEST_TIMEOUT',
    `The request body stopped arriving: nothing for ${idleMs / 1000} s, or not all of it within ${(idleMs * BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE) / 1000} s.`,
  );

/** The client went away while sending its body: nobody is left to answer. */
export class ClientGone extends Error {
  constructor(readonly bytesRead: number) {
    super(`the client closed the connection after ${bytesRead} bytes of its request body`);
  }
}

/**
 * The whole body, or a refusal: 413 as soon as the declared length or the bytes read pass the limit (without
 * reading further), 408 when nothing arrives for `idleMs` or the whole body takes longer than a multiple of it.
 */
export function readBody(req: IncomingMessage, idleMs: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > BODY_SIZE_MAX_BYTES) return Promise.reject(bodyTooLarge());
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const finish = (error: Error | null) => {
      clearTimeout(idle);
      clearTimeout(total);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      if (error) {
        req.pause();
        reject(error);
      } else {
        resolve(Buffer.concat(chunks, bytes));
      }
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > BODY_SIZE_MAX_BYTES) return finish(bodyTooLarge());
      chunks.push(chunk);
      idle.refresh();
    };
    const onEnd = () => finish(null);
    const onClose = () => finish(new ClientGone(bytes));
    const idle = setTimeout(() => finish(bodyTimedOut(idleMs)), idleMs);
    const total = setTimeout(() => finish(bodyTimedOut(idleMs)), idleMs * BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    req.once('error', onClose);
  });
}

/** Reads and discards what is left of a request body, until it ends, the client leaves, or the linger bounds pass. */
function discardRest(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let bytes = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('close', done);
      req.off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > LINGER_BYTES_MAX) done();
    };
    const timer = setTimeout(done, LINGER_MS);
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}

/**
 * An answer given while the request body is still arriving (a refusal, or an answer that never needed the body):
 * it says `Connection: close` and is written at once, but the connection is ended only after the rest of the body
 * was read and discarded (within LINGER_BYTES_MAX and LINGER_MS). Closing at once would reset the connection under
 * a client that is still writing, and such a client (fetch, most SDKs, `curl --data-binary`) would see a broken
 * pipe instead of the answer.
 */
export async function withLingeringClose(response: Response, req: IncomingMessage): Promise<Response> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  headers.set('connection', 'close');
  headers.set('content-length', String(bytes.length));
  const rest = discardRest(req);
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      void rest.then(() => {
        if (!cancelled) controller.close();
      });
    },
    // The client left before the rest was read: nothing more to wait for.
    cancel() {
      cancelled = true;
    },
  });
  return respond(body, response.status, headers);
}
