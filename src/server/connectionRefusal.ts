// The answer to a connection past a cap (issue 41): 503 with `Retry-After: 1` and `Connection: close`, as nginx
// answers, so a client learns that nothing was done instead of seeing a reset.
import type { Socket } from 'node:net';
import { LedgerError } from '../core/errors.js';
import { CONNECTION_REFUSAL_LINGER_BYTES_MAX, CONNECTION_REFUSAL_LINGER_MS } from '../core/limits.js';
import { rawErrorAnswer } from './clientError.js';

export type Cap = 'perClient' | 'total';

/** The two answers, made once for a server's caps: the bytes written on each connection refused. */
export function refusalAnswers(caps: { perClient: number; total: number }): Record<Cap, Buffer> {
  const answer = (message: string) => Buffer.from(rawErrorAnswer(new LedgerError('UNAVAILABLE', message, { retryAfterSeconds: 1, closeConnection: true })));
  const unread = 'no request on this connection was read, so nothing was done. Retry shortly.';
  return {
    perClient: answer(`This client address has ${caps.perClient} connections open, the most one address may (--max-connections-per-client): ${unread}`),
    total: answer(`The server has ${caps.total} connections open, the most it takes (--max-connections): ${unread}`),
  };
}

// Answering costs more CPU than a reset (docs/benchmarks.md), so at most CONNECTION_REFUSALS_MAX are answered at once
// (server/connections.ts) and past that a connection is reset: a flood costs the other tenants no more than before.
/**
 * Writes the answer and half-closes. What the client still sends is read and dropped until it closes, or for at most
 * CONNECTION_REFUSAL_LINGER_MS and _BYTES_MAX: a socket closed with data unread makes Linux send a reset, which can
 * reach the client before it has read the answer (a client that wrote its request first, and then reads).
 */
export function answerRefused(socket: Socket, answer: Buffer): void {
  // No HTTP machinery watches this socket: its errors (a reset by the client) end it here.
  socket.on('error', () => socket.destroy());
  const timer = setTimeout(() => socket.destroy(), CONNECTION_REFUSAL_LINGER_MS);
  socket.once('close', () => clearTimeout(timer));
  let bytes = 0;
  socket.on('data', (chunk: Buffer) => {
    // A whole request without a body, read at once, is all such a client sends: closing now sends no reset, and
    // spares the wait for its close (most of what an answer costs beyond a reset).
    if (bytes === 0 && isWholeRequestWithoutBody(chunk)) return void socket.destroy();
    bytes += chunk.length;
    if (bytes > CONNECTION_REFUSAL_LINGER_BYTES_MAX) socket.destroy();
  });
  // The client's close: it has read the answer, or never will. Closed once the answer is written.
  socket.once('end', () => socket.destroySoon());
  socket.end(answer);
}

const HEAD_END = Buffer.from('\r\n\r\n');
const BODY_HEADER = /^(?:content-length:[ \t]*0*[1-9]|transfer-encoding:)/im;

/** One request head and nothing after it, which announces no body: the client's whole request. */
export function isWholeRequestWithoutBody(chunk: Buffer): boolean {
  const end = chunk.indexOf(HEAD_END);
  return end !== -1 && end + HEAD_END.length === chunk.length && !BODY_HEADER.test(chunk.toString('latin1'));
}
