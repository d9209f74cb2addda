// Hostile and odd input on the write endpoints, routing errors, health and the OpenAPI document.
import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, fiat, makeAccount, post, startTestServer, useServerWithAccounts, type Client, type HttpResult } from '../helpers/server.js';
import { expectError, expectValidation } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';
import { killAll, spawnServe, type Spawned } from '../helpers/spawn.js';

const MiB = 1024 * 1024;

/** A raw socket's answer as the error helpers read it: its status, its text and that text parsed. */
const parsed = (res: { status: number; text: string }) => {
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = undefined;
  }
  return { status: res.status, text: res.text, body };
};

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
  let admin: Client;
  let debitAcct: string;
  let creditAcct: string;
  let validTx: () => { lines: unknown[] };

  async function unchanged() {
    const accounts = await walkPages<{ id: string }>(admin, '/api/v1/accounts', { limit: 200 });
    expect(accounts.items.map((a) => a.id).sort()).toEqual([debitAcct, creditAcct].sort());
    const txs = await walkPages(admin, '/api/v1/transactions', { limit: 200 });
    expect(txs.items).toEqual([]);
    for (const id of [debitAcct, creditAcct]) {
      const bal = await admin.get(`/api/v1/accounts/${id}/balance`);
      expect(bal.body.amount).toBe(0);
    }
  }

  const postAccountRaw = (rawBody: string, headers: Record<string, string> = {}) => admin.request('POST', '/api/v1/accounts', { rawBody, headers });
  const postTxRaw = (rawBody: string, headers: Record<string, string> = {}) => admin.request('POST', '/api/v1/transactions', { rawBody, headers: { ...idem(), ...headers } });

  const ACCOUNT = '"name":"x","currency":"USD","type":"ASSET"';
  let LINES: string;

  const t = useServerWithAccounts({ accounts: { debitAcct: { name: 'cash', type: 'ASSET' }, creditAcct: { name: 'sales', type: 'REVENUE' } } });
  beforeAll(async () => {
    ({ client: admin, accounts: { debitAcct, creditAcct } } = t);
    validTx = () => ({ lines: [fiat(debitAcct, 'DEBIT', '10.00'), fiat(creditAcct, 'CREDIT', '10.00')] });
    LINES = `"lines":${JSON.stringify(validTx().lines)}`;
  });

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
      expectValidation(res);
    }
    for (const body of ['{', `{${LINES},}`, `{${LINES}} x`, '{"lines":[1,2,]}']) {
      expectValidation(await postTxRaw(body));
    }
    await unchanged();
  });

  it('JSON that is not an object (array, string, number, null, boolean) is 400', async () => {
    for (const body of [`[{${ACCOUNT}}]`, '[]', '"x"', '42', '1e400', 'null', 'true']) {
      expectValidation(await postAccountRaw(body));
    }
    for (const body of [`[{${LINES}}]`, '[]', '"lines"', '0', 'null', 'false']) {
      expectValidation(await postTxRaw(body));
    }
    await unchanged();
  });

  it('empty and whitespace-only bodies are 400', async () => {
    for (const body of ['', '   ', '\n']) {
      expectValidation(await postAccountRaw(body));
      expectValidation(await postTxRaw(body));
    }
    // No body at all, not even a content type.
    expectValidation(await admin.request('POST', '/api/v1/accounts'));
    expectValidation(await admin.request('POST', '/api/v1/transactions', { headers: idem() }));
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
    for (const body of accountBodies) expectValidation(await postAccountRaw(body));

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
    for (const body of txBodies) expectValidation(await postTxRaw(body));
    await unchanged();
  });

  it('__proto__ keys are refused, top level and nested, plain or escaped', async () => {
    const accountBodies = [
      `{${ACCOUNT},"__proto__":{"admin":true}}`,
      `{"__proto__":{"name":"x","currency":"USD","type":"ASSET"}}`,
      `{${ACCOUNT},"\\u005f_proto__":{"admin":true}}`,
      `{${ACCOUNT},"__proto__":null}`,
    ];
    for (const body of accountBodies) expectValidation(await postAccountRaw(body));
    const txBodies = [
      `{${LINES},"__proto__":{"polluted":"yes"}}`,
      `{${LINES},"metadata":{"__proto__":"x"}}`,
      `{${LINES},"metadata":{"__proto__":{"polluted":"yes"}}}`,
      `{${LINES},"metadata":{"ok":"1","\\u005f\\u005fproto\\u005f\\u005f":"x"}}`,
      `{"lines":[${JSON.stringify(validTx().lines[0]).replace('"type":"FIAT"', '"type":"FIAT","__proto__":{"amount":"1"}')},${JSON.stringify(validTx().lines[1])}]}`,
    ];
    for (const body of txBodies) expectValidation(await postTxRaw(body));
    // Nothing leaked into the prototype of anything the server hands back.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await unchanged();
  });

  it('unknown fields are refused at every level', async () => {
    expectValidation(await admin.post('/api/v1/accounts', { name: 'x', currency: 'USD', type: 'ASSET', extra: 1 }));
    const lines = validTx().lines as Array<Record<string, any>>;
    const bodies: unknown[] = [
      { ...validTx(), extra: true },
      { ...validTx(), status: 'POSTED' },
      { lines: [{ ...lines[0], memo: 'x' }, lines[1]] },
      { lines: [{ ...lines[0], monetaryEntry: { ...lines[0]!.monetaryEntry, fee: '1.00' } }, lines[1]] },
    ];
    for (const body of bodies) expectValidation(await admin.post('/api/v1/transactions', body, idem()));
    await unchanged();
  });

  it('deep nesting is refused without harm', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expectValidation(await postAccountRaw(`{${ACCOUNT},"description":${deep}}`));
    expectValidation(await postTxRaw(`{${LINES},"metadata":{"a":${deep}}}`));
    const objects = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    expectValidation(await postTxRaw(`{${LINES},"metadata":${objects}}`));
    await unchanged();
  });

  it('amounts that are not positive, too precise or too large are 400', async () => {
    const amounts = ['0', '-10.00', '1.005', '10.001', '1234567890123456789', '1e400', '1e-400', '1E+19'];
    for (const amount of amounts) {
      // As a JSON number literal, not through JSON.stringify, so the exact text reaches the server.
      const body = `{"lines":[${JSON.stringify(fiat(debitAcct, 'DEBIT', 'AMT'))},${JSON.stringify(fiat(creditAcct, 'CREDIT', 'AMT'))}]}`.replaceAll('"AMT"', amount);
      expectValidation(await postTxRaw(body));
      // And as a decimal string.
      expectValidation(await post(admin, [fiat(debitAcct, 'DEBIT', amount), fiat(creditAcct, 'CREDIT', amount)]));
    }
    for (const amount of [' 1.00', '1.00 ', '', 'ten', '0x10', '1,00', 'Infinity']) {
      expectValidation(await post(admin, [fiat(debitAcct, 'DEBIT', amount), fiat(creditAcct, 'CREDIT', amount)]));
    }
    await unchanged();
  });

  it('a body over 2 MiB is 413 (with Content-Length)', async () => {
    const pad = 'a'.repeat(2 * MiB + 10);
    expectError(await postAccountRaw(`{${ACCOUNT},"description":"${pad}"}`), 413, 'BODY_TOO_LARGE');
    expectError(await postTxRaw(`{${LINES},"metadata":{"a":"${pad}"}}`), 413, 'BODY_TOO_LARGE');
    await unchanged();
  });

  it('a body over 2 MiB is 413 (chunked, without Content-Length)', async () => {
    const chunk = Buffer.from('a'.repeat(64 * 1024));
    const chunks = [Buffer.from(`{${ACCOUNT},"description":"`), ...Array.from({ length: 40 }, () => chunk), Buffer.from('"}')];
    const res = await postChunked(t.url, '/api/v1/accounts', t.tenant.apiKey.rawKey, chunks);
    expectError(parsed(res), 413, 'BODY_TOO_LARGE');
    const txChunks = [Buffer.from(`{${LINES},"metadata":{"a":"`), ...Array.from({ length: 40 }, () => chunk), Buffer.from('"}}')];
    const res2 = await postChunked(t.url, '/api/v1/transactions', t.tenant.apiKey.rawKey, txChunks, idem());
    expectError(parsed(res2), 413, 'BODY_TOO_LARGE');
    await unchanged();
  });

  it('a body of exactly 2 MiB is read (then refused for its content with 400, not 413)', async () => {
    const head = `{${ACCOUNT},"description":"`;
    const tail = '"}';
    const body = head + 'a'.repeat(2 * MiB - head.length - tail.length) + tail;
    expect(Buffer.byteLength(body)).toBe(2 * MiB);
    expectValidation(await postAccountRaw(body));
    await unchanged();
  });

  it('a wrong or missing content type does not let a bad body through', async () => {
    expectError(await postAccountRaw(`[{${ACCOUNT}}]`, { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    await unchanged();
  });
});

describe('hardening: exact amounts', () => {
  let admin: Client;

  const t = useServerWithAccounts();
  beforeAll(() => {
    admin = t.client;
  });

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
    expectValidation(await rawTx(cash, sales, '1000000000000000000'));
  });

  it('1 plus 10^-121 is refused (too many decimal places), not rounded to 1.00', async () => {
    const cash = await makeAccount(admin, { type: 'ASSET' });
    const sales = await makeAccount(admin, { type: 'REVENUE' });
    const tiny = `1.${'0'.repeat(120)}1`;
    const asNumber = await admin.request('POST', '/api/v1/transactions', {
      rawBody: `{"lines":[${JSON.stringify(fiat(cash, 'DEBIT', 'AMT'))},${JSON.stringify(fiat(sales, 'CREDIT', '1.00'))}]}`.replace('"AMT"', tiny),
      headers: idem(),
    });
    expectValidation(asNumber);
    const asString = await post(admin, [fiat(cash, 'DEBIT', tiny), fiat(sales, 'CREDIT', '1.00')]);
    expectValidation(asString);
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
  let server: Spawned & { url: string };
  let dir: string;
  let rawKey: string;

  beforeAll(async () => {
    const t = await startTestServer();
    // Only to get a migrated database with a tenant; the server under test is a separate process with a small heap.
    dir = t.dir;
    rawKey = t.tenant.apiKey.rawKey;
    await t.server.close();
    server = await spawnServe(t.dbPath, [], { nodeArgs: ['--max-old-space-size=256'] });
  });
  afterAll(async () => {
    await killAll();
    await server?.exited;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('amount 1e100000000 is refused with 400 and the server keeps answering', async () => {
    const c = client(server.url, rawKey);
    const cash = await makeAccount(c, { type: 'ASSET' });
    const sales = await makeAccount(c, { type: 'REVENUE' });
    let res: HttpResult | string;
    try {
      res = await c.request('POST', '/api/v1/transactions', {
        rawBody: `{"lines":[${JSON.stringify(fiat(cash, 'DEBIT', 'AMT'))},${JSON.stringify(fiat(sales, 'CREDIT', 'AMT'))}]}`.replaceAll('"AMT"', '1e100000000'),
        headers: idem(),
      });
    } catch (error) {
      res = `request failed: ${(error as Error).message}`;
    }
    expect(typeof res, `${String(res)}; server stderr:\n${server.stderr().slice(-600)}`).toBe('object');
    expectValidation(res as HttpResult);
    const health = await fetch(`${server.url}/healthz`).then((r) => r.status).catch((e: Error) => `down: ${e.message}`);
    expect(health).toBe(200);
  }, 60_000);
});

describe('routing, health and the OpenAPI document', () => {
  let admin: Client;

  // The webhook route is called with a loopback URL (port 9: nothing listens, nothing leaves the machine).
  const t = useServerWithAccounts({ webhooks: { allowPrivate: true } });
  beforeAll(() => {
    admin = t.client;
  });

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
    const accountsBefore = (await walkPages(admin, '/api/v1/accounts', { limit: 200 })).items;
    for (const [method, path] of [
      ['PUT', '/api/v1/accounts'],
      ['DELETE', '/api/v1/accounts'],
      ['PUT', `/api/v1/accounts/${accountId}`],
      ['DELETE', `/api/v1/accounts/${accountId}`],
      ['POST', `/api/v1/accounts/${accountId}/balance`],
      ['DELETE', '/api/v1/transactions'],
      ['PUT', '/api/v1/api-keys'],
      ['POST', `/api/v1/api-keys/${randomUUID()}`],
      ['POST', '/healthz'],
    ] as const) {
      const res = await admin.request(method, path, { body: { name: 'y', currency: 'USD', type: 'ASSET' } });
      expect(res.status, `${method} ${path}`).toBe(405);
      expectError(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow') ?? '').not.toBe('');
    }
    expect((await walkPages(admin, '/api/v1/accounts', { limit: 200 })).items).toEqual(accountsBefore);
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
    // Holds for the capture and void routes, and one to read.
    const newHold = async () =>
      (await admin.post('/api/v1/holds', { lines: [fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')] }, idem())).body.holdId as string;
    byRoute['post /api/v1/holds/{holdId}/capture'] = await newHold();
    byRoute['post /api/v1/holds/{holdId}/void'] = await newHold();
    byRoute['get /api/v1/holds/{holdId}'] = await newHold();
    // A transaction of its own to reverse (the others are read after it).
    byRoute['post /api/v1/transactions/{transactionId}/reverse'] = (await post(admin, [fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')])).body.transactionId;
    // Bank statements: one to read and reconcile, one to delete; lines to match, unmatch and ignore (amounts of their own).
    const bank = async (csv: string) => {
      const res = await admin.request('POST', `/api/v1/accounts/${cash}/bank-statements`, { rawBody: csv, headers: { 'content-type': 'text/csv' } });
      expect(res.status, res.text).toBe(201);
      return { statementId: res.body.statementId as string, lines: (await admin.get(`/api/v1/bank-statements/${res.body.statementId}/lines`)).body.items as Array<{ lineId: string; status: string }> };
    };
    const day = new Date().toISOString().slice(0, 10);
    // Two entries of 3.33: the 3.33 line is ambiguous, left UNMATCHED, and matched to one of them by hand.
    const matchable = await post(admin, [fiat(cash, 'DEBIT', '3.33'), fiat(sales, 'CREDIT', '3.33')]);
    expect((await post(admin, [fiat(cash, 'DEBIT', '3.33'), fiat(sales, 'CREDIT', '3.33')])).status).toBe(201);
    expect((await post(admin, [fiat(cash, 'DEBIT', '4.44', 'USD', { bankReference: 'HARD-1' }), fiat(sales, 'CREDIT', '4.44')])).status).toBe(201);
    const kept = await bank(`bookingDate,amount,reference\n${day},3.33,H0\n${day},4.44,HARD-1\n${day},9.92,H2\n`);
    const gone = await bank(`bookingDate,amount,reference\n${day},8.88,G1\n`);
    const [toMatch, toUnmatch, toIgnore] = kept.lines;
    const entryToMatch = (await admin.get(`/api/v1/transactions/${matchable.body.transactionId}`)).body.lines[0].entryId as string;
    await admin.request('PUT', `/api/v1/accounts/${cash}/reconciliation-settings`, { body: { dateWindowDays: 3 } });
    byRoute['post /api/v1/bank-statement-lines/{lineId}/match'] = toMatch!.lineId;
    byRoute['post /api/v1/bank-statement-lines/{lineId}/unmatch'] = toUnmatch!.lineId;
    byRoute['post /api/v1/bank-statement-lines/{lineId}/ignore'] = toIgnore!.lineId;
    byRoute['delete /api/v1/bank-statements/{statementId}'] = gone.statementId;
    const ids: Record<string, string> = {
      statementId: kept.statementId,
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
      'put /api/v1/accounts/{accountId}/limits': { limits: [{ asset: 'USD', min: '-1000', max: null }] },
      'post /api/v1/holds': { lines: [fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')] },
      'post /api/v1/holds/{holdId}/capture': {},
      'post /api/v1/transactions/{transactionId}/reverse': {},
      'patch /api/v1/accounts/{accountId}': { metadata: { checked: 'yes' } },
      'post /api/v1/transactions/batch': { transactions: [{ idempotencyKey: randomUUID(), lines: [fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')] }] },
      'post /api/v1/bank-statement-lines/{lineId}/match': { entryIds: [entryToMatch] },
      'post /api/v1/bank-statement-lines/{lineId}/ignore': { note: 'checked' },
      'put /api/v1/accounts/{accountId}/reconciliation-settings': { dateWindowDays: 2 },
    };
    // A webhook is configured first, so that its GET has one to answer whatever the document's order.
    const webhook = await admin.request('PUT', '/api/v1/tenant/webhook', { body: bodies['put /api/v1/tenant/webhook'] });
    expect(webhook.status, webhook.text).toBe(200);
    // The documented success answer of each operation that is not a plain read (a GET answers 200).
    const success: Record<string, number> = {
      'post /api/v1/accounts': 201,
      'post /api/v1/transactions': 201,
      'post /api/v1/api-keys': 201,
      'delete /api/v1/api-keys/{keyId}': 204,
      'post /api/v1/settlements': 201,
      'delete /api/v1/settlements/{settlementId}': 200,
      'post /api/v1/reconciliation/batch': 200,
      'put /api/v1/tenant/webhook': 200,
      'post /api/v1/admin/policy-rules': 201,
      'delete /api/v1/admin/policy-rules/{ruleId}': 204,
      'post /api/v1/agent/transactions': 201,
      'post /api/v1/agent/transactions/{transactionId}/approve': 200,
      'post /api/v1/agent/transactions/{transactionId}/reject': 200,
      'post /api/v1/agent/transactions/{transactionId}/rollback': 201,
      'put /api/v1/accounts/{accountId}/limits': 200,
      'post /api/v1/holds': 201,
      'post /api/v1/holds/{holdId}/capture': 200,
      'post /api/v1/holds/{holdId}/void': 200,
      'post /api/v1/transactions/{transactionId}/reverse': 201,
      'patch /api/v1/accounts/{accountId}': 200,
      'post /api/v1/transactions/batch': 200,
      'post /api/v1/accounts/{accountId}/bank-statements': 201,
      'post /api/v1/bank-statements/{statementId}/reconcile': 200,
      'delete /api/v1/bank-statements/{statementId}': 200,
      'post /api/v1/bank-statement-lines/{lineId}/match': 200,
      'post /api/v1/bank-statement-lines/{lineId}/unmatch': 200,
      'post /api/v1/bank-statement-lines/{lineId}/ignore': 200,
      'put /api/v1/accounts/{accountId}/reconciliation-settings': 200,
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
      if (path.endsWith('/balance-history')) concrete += '?from=2026-01-01T00:00:00Z&to=2026-01-10T00:00:00Z';
      if (path.endsWith('/events/stream')) {
        // A stream never ends by itself: its status and type are what is checked here.
        const abort = new AbortController();
        const stream = await fetch(`${t.url}${concrete}`, { headers: { authorization: `Bearer ${t.tenant.apiKey.rawKey}` }, signal: abort.signal });
        expect(stream.status, key).toBe(200);
        expect(stream.headers.get('content-type'), key).toMatch(/^text\/event-stream/);
        abort.abort();
        continue;
      }
      // A statement's file is the one body that is not JSON.
      const file = key === 'post /api/v1/accounts/{accountId}/bank-statements' ? { rawBody: `bookingDate,amount\n${day},1.23\n`, headers: { 'content-type': 'text/csv' } } : null;
      const res = await admin.request(method.toUpperCase(), concrete, {
        ...(key in bodies ? { body: bodies[key] } : {}),
        ...(file ?? { headers: method === 'post' || method === 'delete' ? { ...idem(), 'x-agent-session-id': 'hardening' } : {} }),
      });
      const expected = success[key] ?? (method === 'get' ? 200 : undefined);
      expect(expected, `no documented success status for ${key}`).toBeDefined();
      expect(res.status, `${key}: ${res.text}`).toBe(expected);
    }
  });
});
