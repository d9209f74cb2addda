// Reading request bodies from the socket within bounds (size, idle time, total time), and refusing the rest readably:
// an answer to a body that is still arriving is sent at once, then the rest is read and discarded before closing.
import type { IncomingMessage } from 'node:http';
import { respond } from './respond.js';
import { LedgerError } from '../core/errors.js';
import { BODY_SIZE_MAX_BYTES, BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE, BODY_WATCH_MS_MAX, LINGER_BYTES_MAX, LINGER_MS } from '../core/limits.js';

/** The one 413: declared too long before reading, or longer than declared-allowed while reading. */
export const bodyTooLarge = (maxBytes = BODY_SIZE_MAX_BYTES) => new LedgerError('BODY_TOO_LARGE', `The request body is larger than ${maxBytes} bytes.`);

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
export function readBody(req: IncomingMessage, idleMs: number, maxBytes = BODY_SIZE_MAX_BYTES): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) return Promise.reject(bodyTooLarge(maxBytes));
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let done = false;
    const startedAt = Date.now();
    const watched: WatchedRead = {
      idleMs,
      idleUntil: startedAt + idleMs,
      totalUntil: startedAt + idleMs * BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE,
      timedOut: () => refuse(bodyTimedOut(idleMs)),
    };
    // Once the body has ended, the listeners stay and do nothing: removing them costs more than leaving them (a
    // request's own emitter, gone with it). A refusal removes them, since the rest of the body may still be read.
    const onData = (chunk: Buffer) => {
      if (done) return;
      bytes += chunk.length;
      if (bytes > maxBytes) return refuse(bodyTooLarge(maxBytes));
      chunks.push(chunk);
      watched.idleUntil = Date.now() + idleMs;
    };
    const onEnd = () => {
      if (done) return;
      done = true;
      unwatch(watched);
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes));
    };
    // A client that goes away mid-body closes the request (after an 'error', which Node emits only to listeners).
    // Every request closes once answered: the error (and its stack) is made only for one that closed mid-body.
    const onClose = () => {
      if (!done) refuse(new ClientGone(bytes));
    };
    const refuse = (error: Error) => {
      if (done) return;
      done = true;
      unwatch(watched);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.pause();
      reject(error);
    };
    watch(watched);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
  });
}

/** A body being read, with the times past which it is refused. */
interface WatchedRead {
  idleMs: number;
  idleUntil: number;
  totalUntil: number;
  timedOut(): void;
}

/**
 * One timer checks every body being read, instead of two timers set and cleared per request (they and the removal of
 * their listeners were a measurable share of a small request's CPU: docs/benchmarks.md). The check runs every tenth
 * of the shortest idle time-out (at most every second), so a refusal comes within 10% of its bound; it stops at a
 * check that finds no body being read.
 */
const watchedReads = new Set<WatchedRead>();
let watchdog: { timer: NodeJS.Timeout; everyMs: number } | undefined;

function watch(read: WatchedRead): void {
  watchedReads.add(read);
  const everyMs = Math.max(1, Math.min(BODY_WATCH_MS_MAX, Math.floor(read.idleMs / 10)));
  if (watchdog && watchdog.everyMs <= everyMs) return;
  if (watchdog) clearInterval(watchdog.timer);
  watchdog = { timer: setInterval(checkReads, everyMs).unref(), everyMs };
}

const unwatch = (read: WatchedRead): void => void watchedReads.delete(read);

function checkReads(): void {
  // Stopped only by a check that finds nothing to watch: under load the timer is set once, not once a request.
  if (watchedReads.size === 0) {
    clearInterval(watchdog!.timer);
    watchdog = undefined;
    return;
  }
  const now = Date.now();
  for (const read of watchedReads) if (now >= read.idleUntil || now >= read.totalUntil) read.timedOut();
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
