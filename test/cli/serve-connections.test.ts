// Connection limits of `ledger serve` (issue 15): 1,000 idle sockets do not keep normal requests from being answered;
// `--max-connections` caps open connections (past it, 503 UNAVAILABLE and closed; issue 41); `--keep-alive-timeout` closes idle keep-alive connections and
// `--headers-timeout` refuses slow headers with 408; bad values exit 2. Issue 29: the variables of
// `--max-connections-per-client` and `--max-streams-per-tenant` are read, and bad values of both exit 2.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli, createTenant, testDb } from '../helpers/server.js';
import { killAll, spawnServe } from '../helpers/spawn.js';
import { rawHttp } from '../helpers/rawHttp.js';

/** Opens `n` sockets that send nothing, each connected before the next, from these loopback addresses in turn. */
async function idleSockets(url: string, n: number, from: string[] = ['127.0.0.1']): Promise<Socket[]> {
  const port = Number(new URL(url).port);
  const sockets: Socket[] = [];
  for (let i = 0; i < n; i++) {
    sockets.push(
      await new Promise<Socket>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, localAddress: from[i % from.length] }, () => resolve(socket));
        socket.on('error', reject);
      }),
    );
  }
  // The server may close some of them (a cap): their errors are expected.
  for (const socket of sockets) socket.on('error', () => {});
  return sockets;
}

describe('serve connection limits', () => {
  let dir: string;
  let db: string;
  let rawKey: string;
  let open: Socket[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-conn-'));
    db = await testDb(dir);
    rawKey = (await createTenant(db)).apiKey.rawKey;
  });
  afterEach(async () => {
    for (const socket of open) socket.destroy();
    open = [];
    await killAll();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers normal requests promptly while 1,000 idle sockets are open', async () => {
    const server = await spawnServe(db);
    // From four client addresses: each within --max-connections-per-client (256).
    open = await idleSockets(server.url, 1000, ['127.0.0.10', '127.0.0.11', '127.0.0.12', '127.0.0.13']);
    const started = performance.now();
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${server.url}/api/v1/accounts?limit=1`, { headers: { authorization: `Bearer ${rawKey}`, connection: 'close' } });
      expect(res.status).toBe(200);
    }
    // Generous for a busy machine; a server stuck behind the idle sockets would take the headers timeout (20 s).
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(open.filter((socket) => socket.destroyed)).toHaveLength(0);
  });

  it('--max-connections caps open connections: past it a new one is answered 503 UNAVAILABLE, Retry-After: 1, and closed; below it again, requests are answered', async () => {
    const server = await spawnServe(db, ['--max-connections', '20']);
    open = await idleSockets(server.url, 20);
    const refused = await fetch(`${server.url}/api/v1/accounts`, { method: 'POST', headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('connection')).toBe('close');
    expect(await refused.json()).toEqual({ code: 'UNAVAILABLE', message: expect.stringContaining('The server has 20 connections open, the most it takes (--max-connections)') });
    for (const socket of open.splice(0, 5)) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await fetch(`${server.url}/healthz`, { headers: { connection: 'close' } })).status).toBe(200);
  });

  it('--keep-alive-timeout closes an idle keep-alive connection; --headers-timeout refuses slow headers with 408', async () => {
    const server = await spawnServe(db, ['--keep-alive-timeout', '1', '--headers-timeout', '2']);
    const host = `Host: ${new URL(server.url).host}`;
    const kept = await rawHttp(server.url, { head: `GET /healthz HTTP/1.1\r\n${host}`, waitForClose: true, timeoutMs: 10_000 });
    expect(kept.status).toBe(200);
    expect(kept.closed).toBe(true);
    expect(kept.closedAt! - kept.responseAt!).toBeGreaterThanOrEqual(900);
    expect(kept.closedAt! - kept.responseAt!).toBeLessThan(5000);

    // Headers that never end: 408 once the headers time-out passes (checked every second).
    const port = Number(new URL(server.url).port);
    const started = performance.now();
    const answer = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => socket.write(`GET /healthz HTTP/1.1\r\n${host}\r\nX-Slow: 1\r\n`));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', () => resolve(received));
      setTimeout(() => socket.destroy(), 10_000);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1900);
  });

  it('LEDGER_MAX_STREAMS_PER_TENANT and LEDGER_MAX_CONNECTIONS_PER_CLIENT are read (and bad values refused, naming the flag)', async () => {
    const server = await spawnServe(db, [], { env: { LEDGER_MAX_STREAMS_PER_TENANT: '1', LEDGER_MAX_CONNECTIONS_PER_CLIENT: '3' } });
    const host = `Host: ${new URL(server.url).host}`;
    // Three connections from this address at most: the fourth is answered 503; another address is served.
    open = await idleSockets(server.url, 3);
    const refused = await rawHttp(server.url, { head: `GET /healthz HTTP/1.1\r\n${host}`, timeoutMs: 5000 });
    expect(refused.status).toBe(503);
    expect(refused.json.message).toContain('This client address has 3 connections open');
    expect((await rawHttp(server.url, { head: `GET /healthz HTTP/1.1\r\n${host}`, localAddress: '127.0.0.2' })).status).toBe(200);
    // One stream for the tenant: the first is held (the helper stops waiting for a whole answer), the second refused.
    const streamHead = `GET /api/v1/events/stream HTTP/1.1\r\n${host}\r\nAuthorization: Bearer ${rawKey}`;
    const first = rawHttp(server.url, { head: streamHead, localAddress: '127.0.0.2', timeoutMs: 3000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const second = await rawHttp(server.url, { head: streamHead, localAddress: '127.0.0.2', timeoutMs: 5000 });
    expect(second.status).toBe(429);
    expect(second.json.code).toBe('RATE_LIMITED');
    expect((await first).status).toBe(200);

    for (const [variable, value, flag] of [
      ['LEDGER_MAX_STREAMS_PER_TENANT', 'none', '--max-streams-per-tenant'],
      ['LEDGER_MAX_CONNECTIONS_PER_CLIENT', '0', '--max-connections-per-client'],
    ]) {
      const res = await cli(['--db', db, 'serve', '--port', '0'], { [variable!]: value! });
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(flag);
    }
  });

  it('refuses bad values with exit 2, naming the flag', async () => {
    for (const [flag, value] of [
      ['--max-connections', '0'],
      ['--max-connections', 'many'],
      ['--keep-alive-timeout', '0'],
      ['--keep-alive-timeout', '601'],
      ['--headers-timeout', '1.5'],
      ['--max-connections-per-client', '0'],
      ['--max-connections-per-client', 'lots'],
      ['--max-connections-per-client', '1000001'],
      ['--max-streams-per-tenant', '0'],
      ['--max-streams-per-tenant', '2.5'],
      ['--max-streams-per-tenant', '-1'],
    ]) {
      const res = await cli(['--db', db, 'serve', '--port', '0', flag!, value!]);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(flag);
    }
  });
});
