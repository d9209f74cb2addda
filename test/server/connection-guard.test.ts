// The bookkeeping of server/connections.ts and server/streamSlots.ts: whatever way a connection or a stream ends, its
// count is given back once, and nothing is left behind (no address, no pending deadline, no handshake, no refusal
// being answered). Past a cap a connection is answered 503 (closed on TLS) and never reaches the handler, and at most
// CONNECTION_REFUSALS_MAX answers are under way at once.
import { createServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { generate } from 'selfsigned';
import { ConnectionGuard } from '../../src/server/connections.js';
import { isWholeRequestWithoutBody } from '../../src/server/connectionRefusal.js';
import { StreamSlots } from '../../src/server/streamSlots.js';
import { LedgerError } from '../../src/core/errors.js';
import { CONNECTION_REFUSALS_MAX } from '../../src/core/limits.js';
import { until } from '../helpers/poll.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

let handled = 0;

async function serve(tls: boolean, perClient: number, headersTimeoutMs: number, total = 1000) {
  const guard = new ConnectionGuard({ perClient, total, headersTimeoutMs }, () => {});
  const answer = (_req: unknown, res: { end(text: string): void }) => (handled++, res.end('ok'));
  const pems = tls ? await generate([{ name: 'commonName', value: 'guard.test' }], { keyType: 'ec' }) : undefined;
  const server: Server = pems ? createHttpsServer({ key: pems.private, cert: pems.cert }, answer) : createServer(answer);
  guard.attach(server, tls);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { guard, port: (server.address() as AddressInfo).port };
}

const opened = (port: number, localAddress = '127.0.0.1') =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress }, () => resolve(socket));
    socket.on('error', reject);
    // Read (and drop) what comes: a socket that reads nothing never sees the server close it.
    socket.resume();
  });

const closed = (socket: Socket) => new Promise((resolve) => (socket.destroyed ? resolve(undefined) : socket.once('close', resolve)));

const get = (tls: boolean, port: number) =>
  new Promise<number>((resolve) => {
    const request = tls ? httpsRequest : httpRequest;
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false, rejectUnauthorized: false, headers: { connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });

describe('ConnectionGuard', () => {
  it.each([false, true])('counts per address and leaves nothing behind, however connections end (TLS: %s)', async (tls) => {
    const { guard, port } = await serve(tls, 2, 300);
    const a = await opened(port);
    const b = await opened(port, '127.0.0.2');
    await until('both counted', () => guard.open('127.0.0.1') === 1 && guard.open('127.0.0.2') === 1);
    // Answered, then closed by the client.
    expect(await get(tls, port)).toBe(200);
    // One at the cap of its address: the third from 127.0.0.1 is refused and never counted.
    const c = await opened(port);
    const refused = await opened(port).catch(() => undefined);
    if (refused) await closed(refused);
    expect(guard.open('127.0.0.1')).toBeLessThanOrEqual(2);
    // Closed by the client before anything was sent; the others closed by their deadline.
    a.destroy();
    if (tls) {
      // A handshake finished, then nothing sent: 408 at the deadline.
      const secure = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false });
      secure.on('error', () => {});
      await new Promise((resolve) => secure.once('close', resolve));
    }
    await Promise.all([closed(b), closed(c)]);
    await until('nothing left', () => guard.open() === 0 && guard.tracked.clients === 0 && guard.tracked.openings === 0 && guard.tracked.handshaking === 0 && guard.tracked.refusing === 0);
  });

  const halfOpen: Socket[] = [];
  afterEach(() => {
    for (const socket of halfOpen.splice(0)) socket.destroy();
  });
  /**
   * A connection from `localAddress` that sends a request and reads until the server's end: what it received. Half-open,
   * it never closes its own side (it is kept until the test ends), so the answer to it stays under way while the server
   * waits for the rest of its request (a body announced and never sent).
   */
  const asked = (port: number, localAddress = '127.0.0.1', keepOpen = false) =>
    new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, localAddress, allowHalfOpen: keepOpen });
      if (keepOpen) halfOpen.push(socket);
      let text = '';
      socket.on('connect', () => socket.write(keepOpen ? 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n' : 'GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('error', () => {});
      socket.on('end', () => resolve(text));
      socket.on('close', () => resolve(text));
    });

  it('past the cap on all, from an address under its own: 503 naming --max-connections, the handler never called', async () => {
    const { guard, port } = await serve(false, 10, 5000, 2);
    const held = [await opened(port), await opened(port, '127.0.0.2')];
    await until('both counted', () => guard.open() === 2);
    const before = handled;
    const received = await asked(port, '127.0.0.3');
    expect(received).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(received).toContain('"code":"UNAVAILABLE"');
    expect(received).toContain('(--max-connections)');
    expect(handled).toBe(before);
    expect(guard.open()).toBe(2);
    for (const socket of held) socket.destroy();
    await until('nothing left', () => guard.open() === 0 && guard.tracked.clients === 0 && guard.tracked.refusing === 0);
  });

  it(`answers at most ${CONNECTION_REFUSALS_MAX} refused connections at once; past them, one is closed at once without an answer`, async () => {
    const { guard, port } = await serve(false, 1, 5000);
    const held = await opened(port);
    await until('one counted', () => guard.open() === 1);
    // Clients that never close: each answer is under way until the server's bound (CONNECTION_REFUSAL_LINGER_MS) ends it.
    const over = 8;
    const answers = await Promise.all(Array.from({ length: CONNECTION_REFUSALS_MAX + over }, () => asked(port, '127.0.0.1', true)));
    expect(answers.filter((text) => text.startsWith('HTTP/1.1 503 '))).toHaveLength(CONNECTION_REFUSALS_MAX);
    expect(answers.filter((text) => text === '')).toHaveLength(over);
    held.destroy();
    await until('nothing left', () => guard.open() === 0 && guard.tracked.clients === 0 && guard.tracked.refusing === 0);
  });

  it('on TLS a connection past the cap is closed without an answer', async () => {
    const { guard, port } = await serve(true, 1, 5000);
    const held = await opened(port);
    await until('one counted', () => guard.open() === 1);
    expect(await asked(port)).toBe('');
    expect(guard.tracked.refusing).toBe(0);
    held.destroy();
    await until('nothing left', () => guard.open() === 0 && guard.tracked.clients === 0);
  });
});

describe('isWholeRequestWithoutBody: a refused connection is closed at once only when its client has sent all it will', () => {
  const is = (text: string) => isWholeRequestWithoutBody(Buffer.from(text, 'latin1'));
  it('a head with no body, read whole', () => {
    expect(is('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')).toBe(true);
    expect(is('POST /a HTTP/1.1\r\nContent-Length: 0\r\nHost: x\r\n\r\n')).toBe(true);
    expect(is('POST /a HTTP/1.1\r\ncontent-length: 000\r\n\r\n')).toBe(true);
  });
  it('anything more or less waits for the client (a body announced, a head cut short, a second request or a body after it)', () => {
    expect(is('POST /a HTTP/1.1\r\nContent-Length: 12\r\n\r\n')).toBe(false);
    expect(is('POST /a HTTP/1.1\r\nHost: x\r\ncontent-length:  010\r\n\r\n')).toBe(false);
    expect(is('POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n')).toBe(false);
    expect(is('GET /healthz HTTP/1.1\r\nHost: x\r\n')).toBe(false);
    expect(is('GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n')).toBe(false);
    expect(is('POST /a HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}')).toBe(false);
  });
});

describe('StreamSlots', () => {
  it('refuses past the tenant cap, the client cap and the total with 429, and gives a slot back once however often released', () => {
    const slots = new StreamSlots({ perTenant: 2, perClient: 3, total: 4 });
    const a1 = slots.take('a', 'x');
    slots.take('a', 'x');
    expect(() => slots.take('a', 'y')).toThrow(/--max-streams-per-tenant/);
    const b1 = slots.take('b', 'x');
    expect(() => slots.take('b', 'x')).toThrow(/--max-connections-per-client/);
    slots.take('b', 'y');
    try {
      slots.take('c', 'y');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(LedgerError);
      expect((error as LedgerError).code).toBe('RATE_LIMITED');
      expect((error as LedgerError).message).toMatch(/half of --max-connections,/);
      expect((error as LedgerError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect((error as LedgerError).closeConnection).toBe(true);
    }
    a1();
    a1();
    expect(slots.open('a')).toBe(1);
    expect(slots.open()).toBe(3);
    const c1 = slots.take('c', 'y');
    expect(() => slots.take('c', 'z')).toThrow(/half of --max-connections,/);
    for (const release of [b1, c1]) release();
    expect(slots.open('b')).toBe(1);
    expect(slots.open()).toBe(2);
  });

  it('forgets tenants and addresses once their streams have ended', () => {
    const slots = new StreamSlots({ perTenant: 100, perClient: 100, total: 1000 });
    const releases = Array.from({ length: 50 }, (_, i) => slots.take(`t${i % 7}`, `c${i % 5}`));
    expect(slots.tracked).toEqual({ tenants: 7, clients: 5 });
    for (const release of releases) release();
    expect(slots.tracked).toEqual({ tenants: 0, clients: 0 });
    expect(slots.open()).toBe(0);
  });
});
