// HTTP intake bounds: 413 with a lingering close (a client that writes its whole body first still reads the answer),
// 408 for a body that stalls or trickles, 431 for oversized headers, 429 per API key, and the serve flags that set them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Agent, get as httpGet } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, post, testDb, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';
import { killAll, spawnLedger } from '../helpers/spawn.js';
import { rawHttp, type RawResponse } from '../helpers/rawHttp.js';

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `total` bytes of an account body's description, in chunks of `chunk` bytes. */
function bigBody(total: number, chunk = 64 * 1024): Buffer[] {
  const head = Buffer.from('{"name":"big","currency":"USD","type":"ASSET","description":"');
  const tail = Buffer.from('"}');
  const chunks: Buffer[] = [head];
  let left = total - head.length - tail.length;
  const pad = Buffer.alloc(chunk, 'a');
  while (left > 0) {
    const n = Math.min(left, chunk);
    chunks.push(n === chunk ? pad : pad.subarray(0, n));
    left -= n;
  }
  chunks.push(tail);
  return chunks;
}

/** The same chunks framed for `transfer-encoding: chunked`, ending with the last chunk. */
function* chunked(chunks: Buffer[]): Generator<Buffer> {
  for (const chunk of chunks) yield Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
  yield Buffer.from('0\r\n\r\n');
}

/** One byte every `everyMs`, at most `max` of them. */
async function* trickle(everyMs: number, max: number): AsyncGenerator<string> {
  for (let i = 0; i < max; i++) {
    await sleep(everyMs);
    yield 'a';
  }
}

const requestHead = (method: string, path: string, rawKey: string, headers: Record<string, string>) =>
  [`${method} ${path} HTTP/1.1`, 'host: 127.0.0.1', `authorization: Bearer ${rawKey}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n');

/** A whole error answer over a raw socket (the shared strict check), JSON, that closes the connection. */
function expectRefusal(res: RawResponse, status: number, code: string) {
  const what = JSON.stringify({ status: res.status, error: res.error, complete: res.complete, headers: res.headers, body: res.body.slice(0, 300) });
  expect(res.error, what).toBeUndefined();
  expect(res.complete, what).toBe(true);
  expect(res.headers['content-type'] ?? '', what).toMatch(/^application\/json/);
  expect(res.headers.connection, what).toBe('close');
  expectError({ status: res.status, body: res.json, text: what }, status, code);
}

/** Fetch with a bound, so a test never hangs on a server that stopped answering. */
const bounded = (ms = 10_000) => ({ signal: AbortSignal.timeout(ms) });

describe('intake with the default limits: 413 for a body over 2 MiB (the client reads it), 431 for large headers, no rate limit', () => {
  let admin: Client;
  let cash: string;
  let sales: string;

  const t = useServerWithAccounts({ accounts: { cash: 'ASSET', sales: 'REVENUE' } });
  beforeAll(() => {
    ({ client: admin, accounts: { cash, sales } } = t);
  });

  /** The server keeps serving: health, and a normal two-line posting. */
  async function stillServes() {
    const health = await fetch(`${t.url}/healthz`, bounded());
    expect(health.status).toBe(200);
    await health.text();
    const res = await post(admin, [fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')]);
    expect(res.status, res.text).toBe(201);
  }

  async function accountNames(): Promise<string[]> {
    return (await walkPages<{ name: string }>(admin, '/api/v1/accounts', { limit: 200 })).items.map((a) => a.name).sort();
  }

  /** Writes a whole body of `size` bytes (declared, or chunked) before reading, then waits for the server to close. */
  const writeWholeBodyFirst = (method: string, path: string, size: number, framing: 'content-length' | 'chunked') =>
    rawHttp(t.url, {
      head: requestHead(method, path, t.tenant.apiKey.rawKey, {
        'content-type': 'application/json',
        ...(framing === 'chunked' ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(size) }),
      }),
      body: framing === 'chunked' ? chunked(bigBody(size)) : bigBody(size),
      writeAllFirst: true,
      waitForClose: true,
    });

  for (const size of [3 * MiB, 12 * MiB]) {
    it(`a client that writes its whole ${size / MiB} MiB body (Content-Length) before reading gets the whole 413, three times`, async () => {
      for (let i = 0; i < 3; i++) {
        const res = await writeWholeBodyFirst('POST', '/api/v1/accounts', size, 'content-length');
        expectRefusal(res, 413, 'BODY_TOO_LARGE');
        // The whole body was read and dropped, so the server closes at once rather than at the linger's end.
        expect(res.closed).toBe(true);
        await stillServes();
      }
      expect(await accountNames()).toEqual(['cash', 'sales']);
    });
  }

  it('a request without a body, answered in the turn it arrived, keeps its connection: three on one keep-alive socket', async () => {
    // /healthz answers before Node has marked the request complete; one without Content-Length or Transfer-Encoding
    // has nothing more to read, so it is not taken for one whose body is still arriving (which would close).
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const sockets = new Set<unknown>();
      for (const path of ['/healthz', '/healthz', `/api/v1/accounts/${cash}/balance`]) {
        const answer = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
          const req = httpGet(`${t.url}${path}`, { agent, headers: { authorization: `Bearer ${t.tenant.apiKey.rawKey}` } }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
          });
          req.on('socket', (socket) => sockets.add(socket));
          req.on('error', reject);
        });
        expect(answer).toEqual({ status: 200, connection: 'keep-alive' });
      }
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('a 12 MiB body to an unknown path or a wrong method, written before reading, gets its whole 404 or 405 and a lingering close', async () => {
    for (const [method, path, status, code] of [
      ['POST', '/api/v1/nowhere', 404, 'NOT_FOUND'],
      ['PATCH', '/api/v1/accounts', 405, 'METHOD_NOT_ALLOWED'],
    ] as const) {
      const res = await writeWholeBodyFirst(method, path, 12 * MiB, 'chunked');
      expectRefusal(res, status, code);
      expect(res.closed).toBe(true);
    }
    await stillServes();
  });

  it('a client that writes a 12 MiB chunked body (no Content-Length) before reading gets the whole 413, three times', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await writeWholeBodyFirst('POST', '/api/v1/accounts', 12 * MiB, 'chunked');
      expectRefusal(res, 413, 'BODY_TOO_LARGE');
      expect(res.closed).toBe(true);
      await stillServes();
    }
    expect(await accountNames()).toEqual(['cash', 'sales']);
  });

  for (const size of [3 * MiB, 12 * MiB]) {
    it(`fetch with a ${size / MiB} MiB string body resolves with the 413 and its JSON body`, async () => {
      const description = 'a'.repeat(size);
      let outcome: { status: number; body: any; text: string; headers: Headers } | string;
      try {
        const response = await fetch(`${t.url}/api/v1/transactions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.tenant.apiKey.rawKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body: `{"lines":[],"metadata":{"a":"${description}"}}`,
          ...bounded(20_000),
        });
        const text = await response.text();
        outcome = { status: response.status, body: JSON.parse(text), text, headers: response.headers };
      } catch (error) {
        outcome = `fetch failed: ${(error as Error).message} (${String((error as { cause?: unknown }).cause)})`;
      }
      expect(typeof outcome, String(outcome)).toBe('object');
      expectError(outcome as Exclude<typeof outcome, string>, 413, 'BODY_TOO_LARGE');
      await stillServes();
    });
  }

  it('the key is checked first: a valid ADMIN key with a 3 MiB body is 413 and creates nothing; a bad key is 401', async () => {
    const before = await accountNames();
    const res = await admin.request('POST', '/api/v1/accounts', { rawBody: `{"name":"huge","currency":"USD","type":"ASSET","description":"${'a'.repeat(3 * MiB)}"}` });
    expectError({ ...res, text: res.text.slice(0, 300) }, 413, 'BODY_TOO_LARGE');
    expect(await accountNames()).toEqual(before);
    const stranger = client(t.url, `sk_live_${'0'.repeat(32)}`);
    const refused = await stranger.request('POST', '/api/v1/accounts', { rawBody: `{"name":"huge","currency":"USD","type":"ASSET","description":"${'a'.repeat(3 * MiB)}"}` });
    expectError({ ...refused, text: refused.text.slice(0, 300) }, 401, 'UNAUTHENTICATED');
    expect(await accountNames()).toEqual(before);
    await stillServes();
  });

  for (const path of ['/healthz', '/api/v1/accounts']) {
    it(`a 20,000-byte header on GET ${path} gets the whole 431 HEADERS_TOO_LARGE, then the connection closes`, async () => {
      const res = await rawHttp(t.url, {
        head: requestHead('GET', path, t.tenant.apiKey.rawKey, { 'x-padding': 'a'.repeat(20_000) }),
        waitForClose: true,
        timeoutMs: 10_000,
      });
      expectRefusal(res, 431, 'HEADERS_TOO_LARGE');
      expect(res.closed).toBe(true);
      await stillServes();
    });
  }

  it('without --rate-limit there is no limit: 100 quick requests of one key are all 200', async () => {
    const statuses: number[] = [];
    for (let batch = 0; batch < 4; batch++) {
      const results = await Promise.all(Array.from({ length: 25 }, () => admin.get('/api/v1/accounts')));
      statuses.push(...results.map((r) => r.status));
    }
    expect(statuses).toHaveLength(100);
    expect(statuses.filter((s) => s !== 200), statuses.join(',')).toEqual([]);
  });
});

describe('intake: a body that stalls or trickles is refused with 408', () => {
  const IDLE_MS = 500;
  const lines: string[] = [];
  let rawKey: string;

  const t = useServerWithAccounts({ bodyIdleTimeoutMs: IDLE_MS, log: (line, level) => lines.push(`${level ?? 'info'}: ${line}`) });
  beforeAll(async () => {
    rawKey = t.tenant.apiKey.rawKey;
  });

  const internalErrors = () => lines.filter((l) => l.includes('internal error'));
  const accountHead = (length: number) => requestHead('POST', '/api/v1/accounts', rawKey, { 'content-type': 'application/json', 'content-length': String(length) });

  it('10 bytes of a declared 100, then nothing: 408 REQUEST_TIMEOUT after the idle time-out', async () => {
    const res = await rawHttp(t.url, { head: accountHead(100), body: ['{"name":"x'], timeoutMs: 10_000 });
    expectRefusal(res, 408, 'REQUEST_TIMEOUT');
    expect(res.responseAt!).toBeGreaterThanOrEqual(IDLE_MS - 100);
    expect(res.responseAt!).toBeLessThan(5_000);
  });

  it('a body trickling 1 byte every 100 ms (never idle) is refused at the total bound, 6 × the idle time-out', async () => {
    const res = await rawHttp(t.url, { head: accountHead(1000), body: trickle(100, 150), timeoutMs: 20_000 });
    expectRefusal(res, 408, 'REQUEST_TIMEOUT');
    expect(res.responseAt!).toBeGreaterThanOrEqual(2_500);
    expect(res.responseAt!).toBeLessThanOrEqual(10_000);
  });

  it('20 trickling clients at once are all answered 408 and closed by the server within 10 s; /healthz answers meanwhile', async () => {
    const clients = Array.from({ length: 20 }, () =>
      rawHttp(t.url, { head: accountHead(1000), body: trickle(100, 150), waitForClose: true, timeoutMs: 15_000 }),
    );
    let done = false;
    const all = Promise.all(clients).finally(() => (done = true));
    const health: Array<number | string> = [];
    while (!done) {
      health.push(
        await fetch(`${t.url}/healthz`, bounded(5_000))
          .then(async (r) => (await r.text(), r.status))
          .catch((e: Error) => `failed: ${e.message}`),
      );
      await sleep(250);
    }
    const results = await all;
    for (const res of results) {
      expectRefusal(res, 408, 'REQUEST_TIMEOUT');
      expect(res.responseAt!).toBeGreaterThanOrEqual(2_500);
      expect(res.closed, `closed by the server: ${JSON.stringify(res)}`).toBe(true);
      expect(res.closedAt!).toBeLessThanOrEqual(10_000);
    }
    expect(health.length).toBeGreaterThan(5);
    expect(health.every((s) => s === 200), JSON.stringify(health)).toBe(true);
  }, 30_000);

  it('a client that leaves mid-body is no internal error (with Content-Length, chunked, and while its 413 lingers)', async () => {
    const aborted = [
      rawHttp(t.url, { head: accountHead(1000), body: ['{"name":"x'], abortAfterBody: true, timeoutMs: 5_000 }),
      rawHttp(t.url, {
        head: requestHead('POST', '/api/v1/transactions', rawKey, { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'idempotency-key': randomUUID() }),
        body: ['a\r\n{"lines":[\r\n'],
        abortAfterBody: true,
        timeoutMs: 5_000,
      }),
      // Over the limit while reading: the 413 is under way and the rest is being discarded when the client leaves.
      rawHttp(t.url, {
        head: requestHead('POST', '/api/v1/accounts', rawKey, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
        body: [...chunked(bigBody(3 * MiB))].slice(0, 40),
        abortAfterBody: true,
        timeoutMs: 5_000,
      }),
      // Declared over the limit: refused before reading, the client leaves during the linger.
      rawHttp(t.url, { head: accountHead(3 * MiB), body: bigBody(3 * MiB).slice(0, 10), abortAfterBody: true, timeoutMs: 5_000 }),
    ];
    await Promise.all(aborted);
    // The server notices the aborts asynchronously: wait for its debug lines (or a bound), then a little more.
    for (let waited = 0; waited < 3_000 && lines.filter((l) => l.includes('closed the connection')).length < 2; waited += 50) await sleep(50);
    await sleep(300);
    expect(internalErrors(), lines.join('\n')).toEqual([]);
    const health = await fetch(`${t.url}/healthz`, bounded());
    expect(health.status).toBe(200);
  });

  it('nothing in this suite logged an internal error', () => {
    expect(internalErrors(), lines.join('\n')).toEqual([]);
  });
});

describe('intake: --rate-limit, per API key', () => {
  const RATE = 5;
  let first: Client;
  let second: Client;
  let otherTenant: Client;
  let firstKey: string;

  const t = useServerWithAccounts({ rateLimitPerSecond: RATE });
  beforeAll(async () => {
    firstKey = t.tenant.apiKey.rawKey;
    first = client(t.url, firstKey);
    const made = await first.post('/api/v1/api-keys', { scopes: ['ADMIN'] });
    if (made.status !== 201) throw new Error(`api key create failed: ${made.status} ${made.text}`);
    second = client(t.url, made.body.rawKey as string);
    const other = await createTenant(t.dbPath, 'Other');
    otherTenant = client(t.url, other.apiKey.rawKey);
    // The first key's bucket is full again before the burst.
    await sleep(1_200);
  });

  it('a burst of 20 is served about the burst size, the rest is 429 RATE_LIMITED with Retry-After, before any work', async () => {
    const burst = await Promise.all(Array.from({ length: 20 }, () => first.get('/api/v1/accounts')));
    // Straight after: writes by the same key are refused before they create anything.
    const names = Array.from({ length: 8 }, (_, i) => `limited-${i}`);
    const writes = await Promise.all(names.map((name) => first.post('/api/v1/accounts', { name, currency: 'USD', type: 'ASSET' })));
    // Other keys (same tenant, another tenant) are not held back, and neither is /healthz, whoever calls it.
    const secondRes = await second.get('/api/v1/accounts');
    const otherRes = await otherTenant.get('/api/v1/accounts');
    const health = await Promise.all(Array.from({ length: 30 }, () => first.get('/healthz')));

    const ok = burst.filter((r) => r.status === 200).length;
    expect(ok, burst.map((r) => r.status).join(',')).toBeGreaterThanOrEqual(RATE);
    expect(ok, burst.map((r) => r.status).join(',')).toBeLessThanOrEqual(8);
    for (const res of [...burst.filter((r) => r.status !== 200), ...writes.filter((r) => r.status !== 201)]) {
      expectError(res, 429, 'RATE_LIMITED');
      const retryAfter = res.headers.get('retry-after') ?? '';
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThan(0);
    }
    const refusedWrites = writes.filter((r) => r.status === 429).length;
    expect(refusedWrites, writes.map((r) => r.status).join(',')).toBeGreaterThanOrEqual(5);

    expect(secondRes.status, secondRes.text).toBe(200);
    expect(otherRes.status, otherRes.text).toBe(200);
    expect(otherRes.body.items).toEqual([]);
    expect(health.map((r) => r.status)).toEqual(health.map(() => 200));

    // Only the writes that were let through created an account.
    const created = names.filter((_, i) => writes[i]!.status === 201).sort();
    const listed = await walkPages<{ name: string }>(second, '/api/v1/accounts', { limit: 200 });
    expect(listed.items.map((a) => a.name).sort()).toEqual(created);

    // After a second and a bit the bucket has refilled.
    await sleep(1_200);
    const again = await first.get('/api/v1/accounts');
    expect(again.status, again.text).toBe(200);
  });
});

describe('intake: serve flags', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-intake-cli-'));
  });
  afterAll(async () => {
    await killAll();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The built binary, killed if it has not exited after 20 s (it would be listening instead of refusing its flags). */
  const serve = async (flags: string[]) => {
    const child = spawnLedger(['--db', await testDb(dir), 'serve', '--host', '127.0.0.1', '--port', '0', ...flags]);
    const timer = setTimeout(() => child.kill(), 20_000);
    const { code } = await child.exited;
    clearTimeout(timer);
    return { code, stdout: child.stdout(), stderr: child.stderr() };
  };

  for (const [flag, value] of [
    ['--rate-limit', '0'],
    ['--body-timeout', '0'],
    ['--rate-limit', 'abc'],
  ] as const) {
    it(`serve ${flag} ${value} exits 2 naming the flag`, async () => {
      const result = await serve([flag, value]);
      expect(result.code, JSON.stringify(result)).toBe(2);
      expect(result.stderr).toContain(flag);
      expect(result.stdout).not.toMatch(/listening/);
    });
  }
});
