// Hostile and odd input on the write endpoints, routing errors, health and the OpenAPI document.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, client, fiat, makeAccount, post, startTestServer, type Client, type HttpResult, type TestServer } from '../helpers/server.js';

const MiB = 1024 * 1024;

function expectError(res: HttpResult, status: number, code?: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type') ?? '').toMatch(/application\/json/);
  expect(typeof res.body?.message, res.text).toBe('string');
  expect(res.body.message.length).toBeGreaterThan(0);
  expect(typeof res.body?.code, res.text).toBe('string');
  if (code) expect(res.body.code).toBe(code);
}

function expect4xx(res: HttpResult, what: string) {
  expect(res.status, `${what}: ${res.text}`).toBeGreaterThanOrEqual(400);
  expect(res.status, `${what}: ${res.text}`).toBeLessThan(500);
  expectError(res, res.status);
}

let keyCounter = 0;
const idem = () => ({ 'idempotency-key': `hard-${keyCounter++}-${randomUUID()}` });

/**
 * Sends a body with chunked transfer encoding (no Content-Length), as a streaming client would, over a raw socket:
 * the server may answer before it has read the whole body, and the answer must still be seen.
 */
function postChunked(url: string, path: string, rawKey: string, chunks: Buffer[], headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      const text = received.toString('utf8');
      const headerEnd = text.indexOf('\r\n\r\n');
      if (headerEnd < 0) {
        if (error) {
          done = true;
          reject(error);
        }
        return;
      }
      const head = text.slice(0, headerEnd);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      const body = text.slice(headerEnd + 4);
      if (!error && length && Buffer.byteLength(body) < Number(length[1])) return;
      if (!error && !length) return;
      done = true;
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), text: body });
    };
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      finish();
    });
    socket.on('error', (e) => finish(e));
    socket.on('close', () => finish(new Error('connection closed before a full response')));
    socket.setTimeout(20_000, () => finish(new Error('timed out')));
    socket.once('connect', () => {
      const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${rawKey}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n${extra}\r\n`,
      );
      for (const chunk of chunks) {
        if (done || socket.destroyed) return;
        socket.write(`${chunk.length.toString(16)}\r\n`);
        socket.write(chunk);
        socket.write('\r\n');
      }
      if (!done && !socket.destroyed) socket.write('0\r\n\r\n');
    });
  });
}

describe('hardening: hostile request bodies change nothing', () => {
  let t: TestServer;
  let admin: Client;
  let debitAcct: string;
  let creditAcct: string;
  let validTx: () => { lines: unknown[] };

  async function unchanged() {
    const accounts = await admin.get('/api/v1/accounts?limit=200');
    expect(accounts.status).toBe(200);
    expect(accounts.body.items).toHaveLength(2);
    const txs = await admin.get('/api/v1/transactions');
    expect(txs.status).toBe(200);
    expect(txs.body.items).toEqual([]);
    for (const id of [debitAcct, creditAcct]) {
      const bal = await admin.get(`/api/v1/accounts/${id}/balance`);
      expect(bal.body.amount).toBe(0);
    }
  }

  const postAccountRaw = (rawBody: string, headers: Record<string, string> = {}) => admin.request('POST', '/api/v1/accounts', { rawBody, headers });
  const postTxRaw = (rawBody: string, headers: Record<string, string> = {}) => admin.request('POST', '/api/v1/transactions', { rawBody, headers: { ...idem(), ...headers } });

  const ACCOUNT = '"name":"x","currency":"USD","type":"ASSET"';
  let LINES: string;

  beforeAll(async () => {
    t = await startTestServer();
    admin = client(t.url, t.tenant.apiKey.rawKey);
    debitAcct = await makeAccount(admin, { name: 'cash', type: 'ASSET' });
    creditAcct = await makeAccount(admin, { name: 'sales', type: 'REVENUE' });
    validTx = () => ({ lines: [fiat(debitAcct, 'DEBIT', '10.00'), fiat(creditAcct, 'CREDIT', '10.00')] });
    LINES = `"lines":${JSON.stringify(validTx().lines)}`;
  });
  afterAll(async () => t?.stop());

  it('invalid JSON is 400', async () => {
    const bodies = [
      '{',
      `{${ACCOUNT},}`,
      "{name:'x',currency:'USD',type:'ASSET'}",
      `{${ACCOUNT}} trailing`,
      `{${ACCOUNT}}{${ACCOUNT}}`,
      'NaN',
      `{${ACCOUNT},"description":"unterminated}`,
      '\u0000',
    ];
    for (const body of bodies) {
      const res = await postAccountRaw(body);
      expectError(res, 400);
    }
    for (const body of ['{', `{${LINES},}`, `{${LINES}} x`, '{"lines":[1,2,]}']) {
      expectError(await postTxRaw(body), 400);
    }
    await unchanged();
  });

  it('JSON that is not an object (array, string, number, null, boolean) is 400', async () => {
    for (const body of [`[{${ACCOUNT}}]`, '[]', '"x"', '42', '1e400', 'null', 'true']) {
      expectError(await postAccountRaw(body), 400);
    }
    for (const body of [`[{${LINES}}]`, '[]', '"lines"', '0', 'null', 'false']) {
      expectError(await postTxRaw(body), 400);
    }
    await unchanged();
  });

  it('empty and whitespace-only bodies are 400', async () => {
    for (const body of ['', '   ', '\n']) {
      expectError(await postAccountRaw(body), 400);
      expectError(await postTxRaw(body), 400);
    }
    // No body at all, not even a content type.
    expectError(await admin.request('POST', '/api/v1/accounts'), 400);
    expectError(await admin.request('POST', '/api/v1/transactions', { headers: idem() }), 400);
    await unchanged();
  });

  it('duplicate keys are refused, with equal or different values, at any depth', async () => {
    const accountBodies = [
      `{"name":"x","name":"x","currency":"USD","type":"ASSET"}`,
      `{"name":"x","name":"y","currency":"USD","type":"ASSET"}`,
      `{"name":"x","currency":"USD","type":"ASSET","type":"LIABILITY"}`,
      // The same key spelled with an escape is still the same key.
      `{"name":"x","na\\u006de":"y","currency":"USD","type":"ASSET"}`,
    ];
    for (const body of accountBodies) expectError(await postAccountRaw(body), 400);

    const [d, c] = validTx().lines as Array<Record<string, unknown>>;
    const lineText = (l: Record<string, unknown>) => JSON.stringify(l);
    const dupAmount = lineText(d!).replace('"amount":"10.00"', '"amount":"10.00","amount":"99.00"');
    const dupSame = lineText(d!).replace('"amount":"10.00"', '"amount":"10.00","amount":"10.00"');
    const dupAccount = lineText(c!).replace(`"accountId":"${creditAcct}"`, `"accountId":"${creditAcct}","accountId":"${debitAcct}"`);
    const txBodies = [
      `{${LINES},${LINES}}`,
      `{"lines":[${dupAmount},${lineText(c!)}]}`,
      `{"lines":[${dupSame},${lineText(c!)}]}`,
      `{"lines":[${lineText(d!)},${dupAccount}]}`,
      `{${LINES},"metadata":{"a":"1","a":"1"}}`,
      `{${LINES},"metadata":{"a":"1","a":"2"}}`,
    ];
    for (const body of txBodies) expectError(await postTxRaw(body), 400);
    await unchanged();
  });

  it('__proto__ keys are refused, top level and nested, plain or escaped', async () => {
    const accountBodies = [
      `{${ACCOUNT},"__proto__":{"admin":true}}`,
      `{"__proto__":{"name":"x","currency":"USD","type":"ASSET"}}`,
      `{${ACCOUNT},"\\u005f_proto__":{"admin":true}}`,
      `{${ACCOUNT},"__proto__":null}`,
    ];
    for (const body of accountBodies) expect4xx(await postAccountRaw(body), body);
    const txBodies = [
      `{${LINES},"__proto__":{"polluted":"yes"}}`,
      `{${LINES},"metadata":{"__proto__":"x"}}`,
      `{${LINES},"metadata":{"__proto__":{"polluted":"yes"}}}`,
      `{${LINES},"metadata":{"ok":"1","\\u005f\\u005fproto\\u005f\\u005f":"x"}}`,
      `{"lines":[${JSON.stringify(validTx().lines[0]).replace('"type":"FIAT"', '"type":"FIAT","__proto__":{"amount":"1"}')},${JSON.stringify(validTx().lines[1])}]}`,
    ];
    for (const body of txBodies) expect4xx(await postTxRaw(body), body);
    // Nothing leaked into the prototype of anything the server hands back.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await unchanged();
  });

  it('unknown fields are refused at every level', async () => {
    expectError(await admin.post('/api/v1/accounts', { name: 'x', currency: 'USD', type: 'ASSET', extra: 1 }), 400);
    const lines = validTx().lines as Array<Record<string, any>>;
    const bodies: unknown[] = [
      { ...validTx(), extra: true },
      { ...validTx(), status: 'POSTED' },
      { lines: [{ ...lines[0], memo: 'x' }, lines[1]] },
      { lines: [{ ...lines[0], monetaryEntry: { ...lines[0]!.monetaryEntry, fee: '1.00' } }, lines[1]] },
    ];
    for (const body of bodies) expectError(await admin.post('/api/v1/transactions', body, idem()), 400);
    await unchanged();
  });

  it('deep nesting is refused without harm', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect4xx(await postAccountRaw(`{${ACCOUNT},"description":${deep}}`), 'deep account');
    expect4xx(await postTxRaw(`{${LINES},"metadata":{"a":${deep}}}`), 'deep transaction');
    const objects = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    expect4xx(await postTxRaw(`{${LINES},"metadata":${objects}}`), 'deep objects');
    await unchanged();
  });

  it('amounts that are not positive, too precise or too large are 400', async () => {
    const amounts = ['0', '-10.00', '1.005', '10.001', '1234567890123456789', '1e400', '1e-400', '1E+19'];
    for (const amount of amounts) {
      // As a JSON number literal, not through JSON.stringify, so the exact text reaches the server.
      const body = `{"lines":[${JSON.stringify(fiat(debitAcct, 'DEBIT', 'AMT'))},${JSON.stringify(fiat(creditAcct, 'CREDIT', 'AMT'))}]}`.replaceAll('"AMT"', amount);
      expectError(await postTxRaw(body), 400);
      // And as a decimal string.
      expectError(await post(admin, [fiat(debitAcct, 'DEBIT', amount), fiat(creditAcct, 'CREDIT', amount)]), 400);
    }
    for (const amount of [' 1.00', '1.00 ', '', 'ten', '0x10', '1,00', 'Infinity']) {
      expectError(await post(admin, [fiat(debitAcct, 'DEBIT', amount), fiat(creditAcct, 'CREDIT', amount)]), 400);
    }
    await unchanged();
  });

  it('a body over 2 MiB is 413 (with Content-Length)', async () => {
    const pad = 'a'.repeat(2 * MiB + 10);
    expectError(await postAccountRaw(`{${ACCOUNT},"description":"${pad}"}`), 413);
    expectError(await postTxRaw(`{${LINES},"metadata":{"a":"${pad}"}}`), 413);
    await unchanged();
  });

  it('a body over 2 MiB is 413 (chunked, without Content-Length)', async () => {
    const chunk = Buffer.from('a'.repeat(64 * 1024));
    const chunks = [Buffer.from(`{${ACCOUNT},"description":"`), ...Array.from({ length: 40 }, () => chunk), Buffer.from('"}')];
    const res = await postChunked(t.url, '/api/v1/accounts', t.tenant.apiKey.rawKey, chunks);
    expect(res.status, res.text).toBe(413);
    const body = JSON.parse(res.text);
    expect(typeof body.message).toBe('string');
    expect(typeof body.code).toBe('string');
    const txChunks = [Buffer.from(`{${LINES},"metadata":{"a":"`), ...Array.from({ length: 40 }, () => chunk), Buffer.from('"}}')];
    const res2 = await postChunked(t.url, '/api/v1/transactions', t.tenant.apiKey.rawKey, txChunks, idem());
    expect(res2.status, res2.text).toBe(413);
    await unchanged();
  });

  it('a body of exactly 2 MiB is read (then refused for its content with 400, not 413)', async () => {
    const head = `{${ACCOUNT},"description":"`;
    const tail = '"}';
    const body = head + 'a'.repeat(2 * MiB - head.length - tail.length) + tail;
    expect(Buffer.byteLength(body)).toBe(2 * MiB);
    expectError(await postAccountRaw(body), 400);
    await unchanged();
  });

  it('a wrong or missing content type does not let a bad body through', async () => {
    expectError(await postAccountRaw(`[{${ACCOUNT}}]`, { 'content-type': 'text/plain' }), 400);
    await unchanged();
  });
});

describe('hardening: exact amounts', () => {
  let t: TestServer;
  let admin: Client;

  beforeAll(async () => {
    t = await startTestServer();
    admin = client(t.url, t.tenant.apiKey.rawKey);
  });
  afterAll(async () => t?.stop());

  const rawTx = (debit: string, credit: string, amount: string) =>
    admin.request('POST', '/api/v1/transactions', {
      rawBody: `{"lines":[${JSON.stringify(fiat(debit, 'DEBIT', 'AMT'))},${JSON.stringify(fiat(credit, 'CREDIT', 'AMT'))}]}`.replaceAll('"AMT"', amount),
      headers: idem(),
    });

  it('12345678901234567.89 USD (17 whole digits, within AMOUNT_WHOLE_DIGITS_MAX=18) is kept exactly', async () => {
    const cash = await makeAccount(admin, { type: 'ASSET' });
    const sales = await makeAccount(admin, { type: 'REVENUE' });
    const res = await rawTx(cash, sales, '12345678901234567.89');
    expect(res.status, res.text).toBe(201);
    for (const id of [cash, sales]) {
      const bal = await admin.get(`/api/v1/accounts/${id}/balance`);
      expect(bal.status).toBe(200);
      expect(bal.text).toMatch(/"amount":12345678901234567\.89[,}]/);
    }
    const entries = await admin.get(`/api/v1/accounts/${cash}/entries`);
    expect(entries.text).toMatch(/"amount":12345678901234567\.89[,}]/);
    const tx = await admin.get(`/api/v1/transactions/${res.body.transactionId}`);
    expect(tx.status).toBe(200);
    expect(tx.text).toMatch(/"amount":12345678901234567\.89[,}]/);
    // And balances built from such amounts stay exact: + 0.3 as 0.1 + 0.2.
    const more = await post(admin, [fiat(cash, 'DEBIT', 0.1), fiat(cash, 'DEBIT', 0.2), fiat(sales, 'CREDIT', 0.3)]);
    expect(more.status, more.text).toBe(201);
    const bal = await admin.get(`/api/v1/accounts/${cash}/balance`);
    expect(bal.text).toMatch(/"amount":12345678901234568\.19[,}]/);
  });

  it('the same amount as a decimal string is kept exactly too', async () => {
    const cash = await makeAccount(admin, { type: 'ASSET' });
    const sales = await makeAccount(admin, { type: 'REVENUE' });
    const res = await post(admin, [fiat(cash, 'DEBIT', '12345678901234567.89'), fiat(sales, 'CREDIT', '12345678901234567.89')]);
    expect(res.status, res.text).toBe(201);
    expect((await admin.get(`/api/v1/accounts/${sales}/balance`)).text).toMatch(/"amount":12345678901234567\.89[,}]/);
  });

  it('the largest accepted amounts add up beyond 64-bit integers without loss', async () => {
    const cash = await makeAccount(admin, { type: 'ASSET' });
    const sales = await makeAccount(admin, { type: 'REVENUE' });
    for (let i = 0; i < 2; i++) {
      const res = await rawTx(cash, sales, '999999999999999999.99');
      expect(res.status, res.text).toBe(201);
    }
    expect((await admin.get(`/api/v1/accounts/${cash}/balance`)).text).toMatch(/"amount":1999999999999999999\.98[,}]/);
    expect((await rawTx(cash, sales, '1000000000000000000')).status).toBe(400);
  });

  it('1 plus 10^-121 is refused (too many decimal places), not rounded to 1.00', async () => {
    const cash = await makeAccount(admin, { type: 'ASSET' });
    const sales = await makeAccount(admin, { type: 'REVENUE' });
    const tiny = `1.${'0'.repeat(120)}1`;
    const asNumber = await admin.request('POST', '/api/v1/transactions', {
      rawBody: `{"lines":[${JSON.stringify(fiat(cash, 'DEBIT', 'AMT'))},${JSON.stringify(fiat(sales, 'CREDIT', '1.00'))}]}`.replace('"AMT"', tiny),
      headers: idem(),
    });
    expectError(asNumber, 400);
    const asString = await post(admin, [fiat(cash, 'DEBIT', tiny), fiat(sales, 'CREDIT', '1.00')]);
    expectError(asString, 400);
    expect((await admin.get(`/api/v1/accounts/${cash}/balance`)).body.amount).toBe(0);
  });

  it('names and metadata that merely contain "__proto__" or key-like text as values are accepted', async () => {
    const acct = await admin.post('/api/v1/accounts', { name: '__proto__', description: '{"a":1,"a":2}', currency: 'USD', type: 'ASSET' });
    expect(acct.status, acct.text).toBe(201);
    expect(acct.body.name).toBe('__proto__');
    const other = await makeAccount(admin, { type: 'REVENUE' });
    const res = await post(admin, [fiat(acct.body.id, 'DEBIT', '1.00'), fiat(other, 'CREDIT', '1.00')], {
      metadata: { note: '__proto__', quote: 'a":"b', backslash: 'c:\\', 'a"b': 'x' },
    });
    expect(res.status, res.text).toBe(201);
    const tx = await admin.get(`/api/v1/transactions/${res.body.transactionId}`);
    expect(tx.body.metadata).toEqual({ note: '__proto__', quote: 'a":"b', backslash: 'c:\\', 'a"b': 'x' });
  });
});

describe('hardening: an amount with a huge exponent does not take the server down', () => {
  let child: ChildProcess;
  let url: string;
  let dir: string;
  let rawKey: string;
  let stderr = '';

  beforeAll(async () => {
    const t = await startTestServer();
    // Only to get a migrated database with a tenant; the server under test is a separate process with a small heap.
    dir = t.dir;
    rawKey = t.tenant.apiKey.rawKey;
    await t.server.close();
    child = spawn(process.execPath, ['--max-old-space-size=256', BIN, '--db', join(dir, 'ledger.db'), 'serve', '--port', '0'], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /(http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
    });
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    const { rmSync } = await import('node:fs');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('amount 1e100000000 is refused with 400 and the server keeps answering', async () => {
    const c = client(url, rawKey);
    const cash = await makeAccount(c, { type: 'ASSET' });
    const sales = await makeAccount(c, { type: 'REVENUE' });
    let status: number | string;
    try {
      const res = await c.request('POST', '/api/v1/transactions', {
        rawBody: `{"lines":[${JSON.stringify(fiat(cash, 'DEBIT', 'AMT'))},${JSON.stringify(fiat(sales, 'CREDIT', 'AMT'))}]}`.replaceAll('"AMT"', '1e100000000'),
        headers: idem(),
      });
      status = res.status;
    } catch (error) {
      status = `request failed: ${(error as Error).message}`;
    }
    expect(status, `server stderr:\n${stderr.slice(0, 600)}`).toBe(400);
    const health = await fetch(`${url}/healthz`).then((r) => r.status).catch((e: Error) => `down: ${e.message}`);
    expect(health).toBe(200);
  }, 60_000);
});

describe('routing, health and the OpenAPI document', () => {
  let t: TestServer;
  let admin: Client;

  beforeAll(async () => {
    // The webhook route is called with a loopback URL (port 9: nothing listens, nothing leaves the machine).
    t = await startTestServer({ webhooks: { allowPrivate: true } });
    admin = client(t.url, t.tenant.apiKey.rawKey);
  });
  afterAll(async () => t?.stop());

  it('an unknown path is 404 JSON', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/nope'],
      ['GET', '/nope'],
      ['POST', '/api/v2/accounts'],
      ['GET', `/api/v1/accounts/${randomUUID()}/nope`],
      ['DELETE', '/api/v1'],
    ] as const) {
      expectError(await admin.request(method, path), 404, 'NOT_FOUND');
      expectError(await client(t.url).request(method, path), 404, 'NOT_FOUND');
    }
  });

  it('a known path with the wrong method is 405 JSON, and changes nothing', async () => {
    const accountId = await makeAccount(admin);
    for (const [method, path] of [
      ['PUT', '/api/v1/accounts'],
      ['DELETE', '/api/v1/accounts'],
      ['PATCH', `/api/v1/accounts/${accountId}`],
      ['DELETE', `/api/v1/accounts/${accountId}`],
      ['POST', `/api/v1/accounts/${accountId}/balance`],
      ['DELETE', '/api/v1/transactions'],
      ['PUT', '/api/v1/api-keys'],
      ['POST', `/api/v1/api-keys/${randomUUID()}`],
      ['POST', '/healthz'],
    ] as const) {
      const res = await admin.request(method, path, { body: { name: 'y', currency: 'USD', type: 'ASSET' } });
      expect(res.status, `${method} ${path}`).toBe(405);
      expectError(res, 405);
      expect(res.headers.get('allow') ?? '').not.toBe('');
    }
    const list = await admin.get('/api/v1/accounts');
    expect(list.body.items.map((a: { id: string }) => a.id)).toEqual([accountId]);
    expect((await admin.get(`/api/v1/accounts/${accountId}`)).status).toBe(200);
  });

  it('GET /healthz answers 200 {"status":"ok"} without authentication', async () => {
    const res = await client(t.url).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    const withBadKey = await client(t.url, 'garbage').get('/healthz');
    expect(withBadKey.status).toBe(200);
  });

  it('GET /api/v1/openapi.json is an OpenAPI 3.1 document covering every route the server answers', async () => {
    const res = await admin.get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(String(doc.openapi)).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info?.title).toBe('string');
    expect(typeof doc.info?.version).toBe('string');
    const routes: Array<[string, string]> = [
      ['get', '/healthz'],
      ['get', '/api/v1/openapi.json'],
      ['post', '/api/v1/accounts'],
      ['get', '/api/v1/accounts'],
      ['get', '/api/v1/accounts/{accountId}'],
      ['get', '/api/v1/accounts/{accountId}/balance'],
      ['get', '/api/v1/accounts/{accountId}/entries'],
      ['get', '/api/v1/accounts/{accountId}/statement'],
      ['post', '/api/v1/transactions'],
      ['get', '/api/v1/transactions'],
      ['get', '/api/v1/transactions/{transactionId}'],
      ['post', '/api/v1/api-keys'],
      ['get', '/api/v1/api-keys'],
      ['delete', '/api/v1/api-keys/{keyId}'],
      ['post', '/api/v1/settlements'],
      ['get', '/api/v1/settlements'],
      ['get', '/api/v1/settlements/{settlementId}'],
      ['delete', '/api/v1/settlements/{settlementId}'],
      ['post', '/api/v1/reconciliation/batch'],
      ['get', '/api/v1/reconciliation/results'],
      ['get', '/api/v1/compliance/audit-export'],
      ['put', '/api/v1/tenant/webhook'],
      ['get', '/api/v1/tenant/webhook'],
      ['post', '/api/v1/admin/policy-rules'],
      ['get', '/api/v1/admin/policy-rules'],
      ['delete', '/api/v1/admin/policy-rules/{ruleId}'],
      ['post', '/api/v1/agent/transactions'],
      ['get', '/api/v1/agent/transactions'],
      ['get', '/api/v1/agent/transactions/{transactionId}'],
      ['post', '/api/v1/agent/transactions/{transactionId}/approve'],
      ['post', '/api/v1/agent/transactions/{transactionId}/reject'],
      ['post', '/api/v1/agent/transactions/{transactionId}/rollback'],
      ['get', '/api/v1/agent/audit'],
    ];
    for (const [method, path] of routes) {
      expect(doc.paths?.[path]?.[method], `${method.toUpperCase()} ${path}`).toBeTypeOf('object');
    }
    const body = doc.paths['/api/v1/transactions'].post.requestBody;
    const schema = body?.content?.['application/json']?.schema;
    expect(schema?.properties?.lines, JSON.stringify(body)).toBeTypeOf('object');
    expect(schema.required).toContain('lines');
    expect(doc.paths['/api/v1/accounts'].post.requestBody?.content?.['application/json']?.schema?.properties?.name).toBeTypeOf('object');

    // Every operation the document lists is one the server answers (neither 404 for the route nor 405).
    const cash = await makeAccount(admin, { type: 'ASSET' });
    const sales = await makeAccount(admin, { type: 'REVENUE' });
    const tx = await post(admin, [fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')]);
    const spare = await admin.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    const expectation = {
      accountId: cash,
      expectedToken: 'USDC',
      expectedAmount: '1',
      expectedWalletAddress: '0x0000000000000000000000000000000000000001',
      expectedChainId: 'EVM',
    };
    const settlement = await admin.post('/api/v1/settlements', expectation, idem());
    // Agent transactions for the approve, reject and rollback routes: two held by a rule, one posted.
    const agent = client(t.url, (await admin.post('/api/v1/api-keys', { scopes: ['AGENTS_EXECUTE'] })).body.rawKey);
    const rule = await admin.post('/api/v1/admin/policy-rules', { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '5' });
    const execute = async (amount: string) =>
      (await agent.post('/api/v1/agent/transactions', { lines: [fiat(cash, 'DEBIT', amount), fiat(sales, 'CREDIT', amount)] }, { ...idem(), 'x-agent-session-id': 's' })).body
        .transactionId as string;
    const byRoute: Record<string, string> = {
      'post /api/v1/agent/transactions/{transactionId}/approve': await execute('6.00'),
      'post /api/v1/agent/transactions/{transactionId}/reject': await execute('7.00'),
      'post /api/v1/agent/transactions/{transactionId}/rollback': await execute('1.00'),
      'get /api/v1/agent/transactions/{transactionId}': await execute('1.00'),
    };
    const ids: Record<string, string> = {
      accountId: cash,
      transactionId: tx.body.transactionId,
      keyId: spare.body.id,
      settlementId: settlement.body.settlementId,
      ruleId: rule.body.id,
    };
    const bodies: Record<string, unknown> = {
      'post /api/v1/settlements': expectation,
      'post /api/v1/reconciliation/batch': { transactionIds: [tx.body.transactionId] },
      'put /api/v1/tenant/webhook': { webhookUrl: 'https://127.0.0.1:9/hook' },
      'post /api/v1/admin/policy-rules': { type: 'ALLOWED_CHAINS', chains: ['EVM'] },
      'post /api/v1/agent/transactions': { lines: [fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')] },
      'post /api/v1/accounts': { name: 'z', currency: 'USD', type: 'ASSET' },
      'post /api/v1/transactions': { lines: [fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')] },
      'post /api/v1/api-keys': { scopes: ['ACCOUNTS_READ'] },
    };
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ['get', 'post', 'put', 'delete', 'patch'].includes(m))
        .map((m) => [m, path] as [string, string]),
    );
    expect(documented.length).toBeGreaterThanOrEqual(routes.length);
    for (const [method, path] of documented) {
      const key = `${method} ${path}`;
      let concrete = path.replace(/\{(\w+)\}/g, (_, name: string) => byRoute[key] ?? ids[name] ?? randomUUID());
      if (path.endsWith('/statement') || path.endsWith('/audit-export')) concrete += '?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z';
      const res = await admin.request(method.toUpperCase(), concrete, {
        ...(key in bodies ? { body: bodies[key] } : {}),
        headers: method === 'post' ? { ...idem(), 'x-agent-session-id': 'hardening' } : {},
      });
      expect(res.status, `${key}: ${res.text}`).toBeGreaterThanOrEqual(200);
      expect(res.status, `${key}: ${res.text}`).toBeLessThan(300);
    }
  });
});
