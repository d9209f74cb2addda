// Requests Node refuses before any handler runs (headers too large or too slow, not HTTP/1.1) still get the
// contract's error body, and the connection lingers (RFC 9112 §9.6) so that a client still writing reads it.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody, invalid, LedgerError } from '../core/errors.js';
import { HEADERS_SIZE_MAX_BYTES, HEADERS_TIMEOUT_MS, LINGER_BYTES_MAX, LINGER_MS } from '../core/limits.js';
import { toJsonText } from '../core/json.js';
import { errorHeaders, statusByCode, type Logger } from './errors.js';
import { EVERY_ANSWER } from './respond.js';

export interface ClientErrorContext {
  log: Logger;
  /** `--headers-timeout`, for the 408's message. */
  headersTimeoutMs?: number;
  /**
   * Read what the client still sends before closing (the default). Without: closed once the answer is written, for a
   * connection that sent nothing (it is writing nothing that the answer must wait for).
   */
  linger?: boolean;
}

/** A token, as a header's name must be (RFC 9110 §5.1). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What a header's value must not hold: a control character other than a tab (RFC 9110 §5.5). */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * The header whose value holds a control character (a NUL in an Idempotency-Key), read from what the parser
 * refused, so that the answer names it as any other refused header is named. Only its name is ever repeated.
 */
function headerWithControl(raw: Buffer | undefined): string | undefined {
  if (!raw) return undefined;
  const head = raw.toString('latin1');
  const end = head.indexOf('\r\n\r\n');
  for (const line of (end < 0 ? head : head.slice(0, end)).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon);
    if (TOKEN.test(name) && CONTROL.test(line.slice(colon + 1))) return name;
  }
  return undefined;
}

function refusalOf(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, headersTimeoutMs: number): LedgerError {
  const code = error.code;
  const header = code === 'HPE_INVALID_HEADER_TOKEN' ? headerWithControl(error.rawPacket) : undefined;
  if (header !== undefined) {
    const message = 'must not contain a control character, such as U+0000 (NUL)';
    return invalid(`Invalid ${header} header: ${message}.`, [{ path: header, message }]);
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new LedgerError('HEADERS_TOO_LARGE', `The request headers are larger than ${HEADERS_SIZE_MAX_BYTES} bytes.`);
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new LedgerError('REQUEST_TIMEOUT', `The request did not arrive in time (headers within ${headersTimeoutMs / 1000} s).`);
  }
  return new LedgerError('VALIDATION_FAILED', 'The request is not valid HTTP/1.1.');
}

/**
 * An error answer written on a socket as it is, with no response object: the contract's body with the headers any
 * other answer of its error carries, and `Connection: close`. Also the answer to a connection past a cap (server/connectionRefusal.ts).
 */
export function rawErrorAnswer(refusal: LedgerError): string {
  const status = statusByCode[refusal.code];
  const body = toJsonText(errorBody(refusal));
  const headers = { ...errorHeaders(refusal), ...EVERY_ANSWER, 'content-length': String(Buffer.byteLength(body)), connection: 'close' };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n${lines.join('')}\r\n${body}`;
}

const answered = new WeakSet<Duplex>();

/** The server's `clientError` listener, and the refusal of a connection whose first request came too late (server/connections.ts). */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, context: ClientErrorContext): void {
  const { log, headersTimeoutMs = HEADERS_TIMEOUT_MS, linger = true } = context;
  // The parser reports again on every later chunk of a connection it already gave up on.
  if (answered.has(socket)) return;
  answered.add(socket);
  // As Node itself does: no error answer into a response already under way.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const refusal = refusalOf(error, headersTimeoutMs);
  log(`connection refused before any handler: ${error.code ?? error.message}`, 'debug');
  socket.end(rawErrorAnswer(refusal), () => {
    if (!linger) socket.destroy();
  });
  // Half-closed: what the client still sends is read (and dropped by the parser) until it closes or the bounds pass.
  let bytes = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > LINGER_BYTES_MAX) socket.destroy();
  });
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
}
