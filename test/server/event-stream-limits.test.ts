// Event streams have bounds (issue 29): past --max-streams-per-tenant a tenant's next stream is 429 RATE_LIMITED with
// Retry-After, and its connection is closed (a refused stream holds no slot); a stream that ends gives its slot back;
// another tenant streams and posts meanwhile. All streams together hold at most half of --max-connections, and the
// streams from one client address half of --max-connections-per-client, so an ordinary request still gets through.
import { request, type IncomingMessage } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, post, useServerWithAccounts, type Client, type TestServer } from '../helpers/server.js';
import { expectError } from '../helpers/expect.js';
import { openStream, type SseStream } from '../helpers/sse.js';
import { rawHttp } from '../helpers/rawHttp.js';
import { until } from '../helpers/poll.js';

const STREAM = '/api/v1/events/stream';

describe('event stream caps', () => {
  const streams: SseStream[] = [];
  const open = async (t: TestServer, rawKey: string, query = '') => {
    const stream = await openStream(`${t.url}${STREAM}${query}`, rawKey);
    streams.push(stream);
    return stream;
  };
  /** A stream request over a connection of its own: the answer, and whether the server closed the connection. */
  const rawStream = (t: TestServer, rawKey: string) =>
    rawHttp(t.url, {
      head: `GET ${STREAM} HTTP/1.1\r\nHost: ${new URL(t.url).host}\r\nAuthorization: Bearer ${rawKey}`,
      waitForClose: true,
      timeoutMs: 10_000,
    });
  /**
   * Opens streams up to a cap: when one is refused because the server has not yet seen the streams of the last test
   * close, it is tried again; once all `n` are open, the cap is held by these alone.
   */
  const fill = async (t: TestServer, rawKey: string, n: number) => {
    const opened: SseStream[] = [];
    for (let i = 0; i < n; i++) {
      opened.push(
        await until('a stream slot', async () => {
          const stream = await open(t, rawKey);
          return stream.status === 200 ? stream : (stream.close(), false);
        }),
      );
    }
    return opened;
  };
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  describe('per tenant (--max-streams-per-tenant 3)', () => {
    let a: { rawKey: string; c: Client; accounts: [string, string] };
    let b: { rawKey: string; c: Client; accounts: [string, string] };

    const tenant = async (rawKey: string) => {
      const c = client(t.url, rawKey);
      return { rawKey, c, accounts: [await makeAccount(c, { name: 'cash' }), await makeAccount(c, { name: 'deposits', type: 'LIABILITY' })] as [string, string] };
    };
    const postOne = async (who: typeof a) => {
      const res = await post(who.c, [fiat(who.accounts[0], 'DEBIT', '1.00'), fiat(who.accounts[1], 'CREDIT', '1.00')]);
      expect(res.status, res.text).toBe(201);
      return res.body.transactionId as string;
    };

    const t = useServerWithAccounts({ maxStreamsPerTenant: 3, eventStream: { heartbeatMs: 300 } });
    beforeAll(async () => {
      a = await tenant(t.tenant.apiKey.rawKey);
      b = await tenant((await createTenant(t.dbPath, 'Other')).apiKey.rawKey);
    });

    it('the next stream past the cap is 429 RATE_LIMITED with Retry-After, and its connection is closed', async () => {
      await fill(t, a.rawKey, 3);
      const refused = await open(t, a.rawKey);
      expectError({ status: refused.status, body: JSON.parse(refused.text!), text: refused.text!, headers: refused.headers }, 429, 'RATE_LIMITED');
      expect(JSON.parse(refused.text!).message).toMatch(/--max-streams-per-tenant/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // On a connection of its own: the server closes it after the answer, so a refused stream holds no connection.
      const raw = await rawStream(t, a.rawKey);
      expect(raw.status).toBe(429);
      expect(raw.json.code).toBe('RATE_LIMITED');
      expect(raw.headers.connection).toBe('close');
      expect(raw.closed).toBe(true);
      expect(raw.error).toBeUndefined();
    });

    it('while one tenant is at its cap, another tenant streams and posts, and the first still posts', async () => {
      await fill(t, a.rawKey, 3);
      expect((await open(t, a.rawKey)).status).toBe(429);
      const other = await open(t, b.rawKey);
      expect(other.status).toBe(200);
      const id = await postOne(b);
      const [frame] = await other.waitForEvents(1);
      expect(JSON.parse(frame!.data!).data.transactionId).toBe(id);
      await postOne(a);
      expect((await a.c.get('/api/v1/events?limit=1')).status).toBe(200);
    });

    it('a stream that ends gives its slot back', async () => {
      const held = await fill(t, a.rawKey, 3);
      expect((await open(t, a.rawKey)).status).toBe(429);
      held[0]!.close();
      // The slot is given back when the server sees the connection close: a moment after the client closed it.
      const again = await until('a slot given back', async () => {
        const stream = await open(t, a.rawKey);
        return stream.status === 200 ? stream : (stream.close(), false);
      });
      const id = await postOne(a);
      const [frame] = await again.waitForEvents(1);
      expect(JSON.parse(frame!.data!).data.transactionId).toBe(id);
      expect((await open(t, a.rawKey)).status).toBe(429);
    });

    it('requests that get no stream take no slot: HEAD, and streams refused with 400', async () => {
      for (let i = 0; i < 5; i++) {
        const head = await rawHttp(t.url, { head: `HEAD ${STREAM} HTTP/1.1\r\nHost: ${new URL(t.url).host}\r\nAuthorization: Bearer ${a.rawKey}` });
        expect(head.status).toBe(200);
        expect((await open(t, a.rawKey, '?type=nonsense')).status).toBe(400);
      }
      await fill(t, a.rawKey, 3);
      expect((await open(t, a.rawKey)).status).toBe(429);
    });
  });

  describe('all tenants together (--max-connections 10: 5 streams at most)', () => {
    let other: string;

    const t = useServerWithAccounts({ maxConnections: 10 });
    beforeAll(async () => {
      other = (await createTenant(t.dbPath, 'Other')).apiKey.rawKey;
    });

    it('streams hold at most half of the connections, across tenants; an ordinary request still gets through', async () => {
      const rawKey = t.tenant.apiKey.rawKey;
      const held = await fill(t, rawKey, 3);
      await fill(t, other, 2);
      // Far under either tenant's own cap (100): the server's is reached.
      for (const key of [rawKey, other]) {
        const refused = await rawStream(t, key);
        expect(refused.status).toBe(429);
        expect(refused.json.code).toBe('RATE_LIMITED');
        expect(refused.json.message).toMatch(/half of --max-connections/);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(refused.closed).toBe(true);
      }
      // On a new connection each: with 5 of 10 slots held by streams, requests are answered.
      for (const path of ['/healthz', '/api/v1/accounts']) {
        const res = await rawHttp(t.url, { head: `GET ${path} HTTP/1.1\r\nHost: ${new URL(t.url).host}\r\nAuthorization: Bearer ${rawKey}\r\nConnection: close` });
        expect(res.status, path).toBe(200);
      }
      // One stream ends: one more may start, and no more.
      held[0]!.close();
      await until('a slot given back', async () => {
        const stream = await open(t, other);
        return stream.status === 200 || (stream.close(), false);
      });
      expect((await rawStream(t, other)).status).toBe(429);
    });
  });

  describe('one client address (--max-connections-per-client 6: 3 streams from it at most)', () => {
    const held: IncomingMessage[] = [];
    /** A stream request from `localAddress`, held open until the test ends: its status. */
    const stream = (localAddress: string, rawKey: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${t.url}${STREAM}`, { agent: false, localAddress, headers: { authorization: `Bearer ${rawKey}` } }, (res) => {
          res.resume();
          if (res.statusCode === 200) held.push(res);
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });

    const t = useServerWithAccounts({ maxConnectionsPerClient: 6 });
    afterAll(async () => {
      for (const res of held) res.destroy();
    });

    it("a client's streams leave it room for ordinary requests; another address still streams", async () => {
      const rawKey = t.tenant.apiKey.rawKey;
      const other = (await createTenant(t.dbPath, 'Other')).apiKey.rawKey;
      // Across tenants: the cap is the address's.
      expect([await stream('127.0.0.3', rawKey), await stream('127.0.0.3', other), await stream('127.0.0.3', rawKey)]).toEqual([200, 200, 200]);
      const refused = await rawHttp(t.url, {
        head: `GET ${STREAM} HTTP/1.1\r\nHost: ${new URL(t.url).host}\r\nAuthorization: Bearer ${other}`,
        localAddress: '127.0.0.3',
        waitForClose: true,
      });
      expect(refused.status).toBe(429);
      expect(refused.json.code).toBe('RATE_LIMITED');
      expect(refused.json.message).toMatch(/half of --max-connections-per-client/);
      expect(refused.closed).toBe(true);
      // Ordinary requests from that address: answered (3 of its 6 connections are streams).
      for (let i = 0; i < 2; i++) {
        const res = await rawHttp(t.url, { head: `GET /api/v1/accounts HTTP/1.1\r\nHost: ${new URL(t.url).host}\r\nAuthorization: Bearer ${rawKey}`, localAddress: '127.0.0.3' });
        expect(res.status).toBe(200);
      }
      expect(await stream('127.0.0.4', other)).toBe(200);
    });
  });
});
