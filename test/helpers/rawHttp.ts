// HTTP/1.1 spoken over a raw socket, for what fetch cannot send or show: repeated headers, a body written before
// reading, a client that gives up mid-upload, the exact status line and when the server closes.
import { connect } from 'node:net';

export interface RawResponse {
  /** 0 when no response head arrived. */
  status: number;
  /** The whole status line, reason phrase included ('' when none arrived). */
  statusLine: string;
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json: any;
  /** A whole response (head and its declared body) arrived. */
  complete: boolean;
  /** The socket closed before the helper gave up (only waited for with `waitForClose`). */
  closed: boolean;
  /** A socket or write error seen (ECONNRESET, EPIPE, ...), or 'timeout'. */
  error?: string;
  /** ms from connecting to the whole response, and to the socket's close. */
  responseAt?: number;
  closedAt?: number;
}

export interface RawRequest {
  /** The request head, without the blank line that ends it. */
  head: string;
  /** Body bytes, written in order (each write awaited); a generator may pace them. */
  body?: Iterable<Buffer | string> | AsyncIterable<Buffer | string>;
  /** Write the whole request (every write callback seen) before reading anything, as naive clients do. */
  writeAllFirst?: boolean;
  /** After the whole response, wait for the server to close the socket (else the helper closes it). */
  waitForClose?: boolean;
  /** Destroy the socket right after the body was written (a client that gives up mid-upload). */
  abortAfterBody?: boolean;
  /** The helper's overall bound. */
  timeoutMs?: number;
  /** The client's own address (another loopback address, 127.0.0.2, is another client to the server). */
  localAddress?: string;
}

/** Parses a response out of the bytes received so far; undefined while it is not whole. */
function parseResponse(received: Buffer, bodiless: boolean): { status: number; statusLine: string; headers: Record<string, string>; body: string } | undefined {
  const headEnd = received.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine, ...lines] = received.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = received.subarray(headEnd + 4);
  // The answer to HEAD has the headers of a body, and none.
  if (bodiless) return { status, statusLine: statusLine ?? '', headers, body: rest.toString('utf8') };
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (rest.length < length) return undefined;
    return { status, statusLine: statusLine ?? '', headers, body: rest.subarray(0, length).toString('utf8') };
  }
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
      if (size === 0) return { status, statusLine: statusLine ?? '', headers, body: Buffer.concat(parts).toString('utf8') };
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  return undefined;
}

/** One HTTP/1.1 request over a raw socket to 127.0.0.1, bounded in time; never rejects. */
export function rawHttp(url: string, request: RawRequest): Promise<RawResponse> {
  const port = Number(new URL(url).port);
  const timeoutMs = request.timeoutMs ?? 20_000;
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect({ host: '127.0.0.1', port, localAddress: request.localAddress });
    let received = Buffer.alloc(0);
    let parsed: ReturnType<typeof parseResponse>;
    let responseAt: number | undefined;
    let closedAt: number | undefined;
    let error: string | undefined;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      let json: unknown;
      try {
        json = parsed ? JSON.parse(parsed.body) : undefined;
      } catch {
        json = undefined;
      }
      resolve({
        status: parsed?.status ?? Number(/^HTTP\/1\.1 (\d{3})/.exec(received.toString('latin1'))?.[1] ?? 0),
        statusLine: parsed?.statusLine ?? received.toString('latin1').split('\r\n')[0] ?? '',
        headers: parsed?.headers ?? {},
        body: parsed?.body ?? received.toString('utf8'),
        json,
        complete: parsed !== undefined,
        closed: closedAt !== undefined,
        error,
        responseAt,
        closedAt,
      });
    };
    const timer = setTimeout(() => {
      error ??= 'timeout';
      settle();
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (parsed) return;
      parsed = parseResponse(received, /^HEAD /.test(request.head));
      if (parsed) {
        responseAt = performance.now() - started;
        if (!request.waitForClose) settle();
      }
    };
    const startReading = () => {
      if (!settled) socket.on('data', onData);
    };
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    socket.on('close', () => {
      closedAt = performance.now() - started;
      settle();
    });
    const write = (chunk: Buffer | string) =>
      new Promise<void>((done, fail) => socket.write(chunk, (e) => (e ? fail(e) : done())));
    socket.once('connect', () => {
      if (!request.writeAllFirst) startReading();
      void (async () => {
        try {
          await write(`${request.head}\r\n\r\n`);
          for await (const chunk of request.body ?? []) {
            // A client that reads while writing stops once it has its answer.
            if (settled || parsed || socket.destroyed) break;
            await write(chunk);
          }
        } catch (e) {
          error ??= (e as NodeJS.ErrnoException).code ?? (e as Error).message;
        }
        if (request.abortAfterBody) {
          socket.destroy();
          return;
        }
        if (request.writeAllFirst) startReading();
      })();
    });
  });
}

