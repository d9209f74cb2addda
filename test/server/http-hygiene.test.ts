// HTTP hygiene (issue 15): the status line carries its reason phrase; every answer says nosniff and no-store; a body
// declared as anything but JSON is 415; repeated Host or Idempotency-Key headers are 400 and change nothing; HEAD is
// answered on every GET route, with the GET's status and headers and no body.
import { beforeAll, describe, expect, it } from 'vitest';
import { makeAccount, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation } from '../helpers/expect.js';
import { rawHttp } from '../helpers/rawHttp.js';
import { allRoutes } from '../../src/server/app.js';

const ACCOUNT = JSON.stringify({ name: 'hygiene', currency: 'USD', type: 'ASSET' });

describe('HTTP hygiene', () => {
  let c: Client;
  let auth: string;
  let accountId: string;

  const t = useServerWithAccounts();
  beforeAll(async () => {
    c = t.client;
    auth = `Bearer ${t.tenant.apiKey.rawKey}`;
    accountId = await makeAccount(c);
  });

  const raw = (head: string, body?: string) => rawHttp(t.url, { head, body: body === undefined ? undefined : [body] });
  const hostLine = () => `Host: ${new URL(t.url).host}`;

  it('the status line carries its reason phrase, on answers and on errors', async () => {
    expect((await raw(`GET /healthz HTTP/1.1\r\n${hostLine()}`)).statusLine).toBe('HTTP/1.1 200 OK');
    expect((await raw(`GET /api/v1/accounts HTTP/1.1\r\n${hostLine()}`)).statusLine).toBe('HTTP/1.1 401 Unauthorized');
    expect((await raw(`GET /nowhere HTTP/1.1\r\n${hostLine()}`)).statusLine).toBe('HTTP/1.1 404 Not Found');
    const created = await raw(`POST /api/v1/accounts HTTP/1.1\r\n${hostLine()}\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${ACCOUNT.length}`, ACCOUNT);
    expect(created.statusLine).toBe('HTTP/1.1 201 Created');
  });

  it('every answer says X-Content-Type-Options: nosniff and Cache-Control: no-store, above all those that carry a secret', async () => {
    const answers = [
      await fetch(`${t.url}/healthz`),
      await fetch(`${t.url}/api/v1/accounts`, { headers: { authorization: auth } }),
      await fetch(`${t.url}/api/v1/accounts`),
      await fetch(`${t.url}/nowhere`),
      await fetch(`${t.url}/api/v1/api-keys`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: '{"scopes":["ACCOUNTS_READ"]}' }),
      await fetch(`${t.url}/api/v1/tenant/webhook`, { method: 'PUT', headers: { authorization: auth, 'content-type': 'application/json' }, body: '{"webhookUrl":"https://8.8.8.8/hook"}' }),
    ];
    expect(answers[4]!.status).toBe(201);
    expect(answers[5]!.status).toBe(200);
    for (const res of answers) {
      expect(res.headers.get('x-content-type-options'), res.url).toBe('nosniff');
      expect(res.headers.get('cache-control'), res.url).toBe('no-store');
    }
  });

  it('a body declared as anything but JSON is 415 UNSUPPORTED_MEDIA_TYPE and creates nothing; JSON with a UTF-8 charset, or no type, is read', async () => {
    const before = (await c.get('/api/v1/accounts?limit=200')).body.items.length;
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1', 'application/jsonx']) {
      const res = await fetch(`${t.url}/api/v1/accounts`, { method: 'POST', headers: { authorization: auth, 'content-type': type }, body: ACCOUNT });
      const text = await res.text();
      expectError({ status: res.status, text, body: JSON.parse(text) }, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    expect((await c.get('/api/v1/accounts?limit=200')).body.items.length).toBe(before);
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON; Charset=UTF-8', 'application/json;charset="utf-8"']) {
      const res = await fetch(`${t.url}/api/v1/accounts`, { method: 'POST', headers: { authorization: auth, 'content-type': type }, body: ACCOUNT });
      expect(res.status, type).toBe(201);
    }
    const untyped = await raw(`POST /api/v1/accounts HTTP/1.1\r\n${hostLine()}\r\nAuthorization: ${auth}\r\nContent-Length: ${ACCOUNT.length}`, ACCOUNT);
    expect(untyped.status).toBe(201);
  });

  it('two Host headers are 400, as RFC 9112 requires', async () => {
    for (const path of ['/healthz', '/api/v1/accounts', '/nowhere']) {
      const res = await raw(`GET ${path} HTTP/1.1\r\n${hostLine()}\r\nHost: other.example\r\nAuthorization: ${auth}`);
      expectValidation({ status: res.status, text: res.body, body: res.json });
    }
  });

  it('two Idempotency-Key headers are 400 and post nothing (not the key "a, b")', async () => {
    const body = JSON.stringify({
      lines: [
        { accountId, entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'ACH' } },
        { accountId: await makeAccount(c), entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'ACH' } },
      ],
    });
    const res = await raw(
      `POST /api/v1/transactions HTTP/1.1\r\n${hostLine()}\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nIdempotency-Key: a\r\nidempotency-key: b\r\nContent-Length: ${body.length}`,
      body,
    );
    expectValidation({ status: res.status, text: res.body, body: res.json });
    expect(res.json.message).toMatch(/Idempotency-Key/i);
    expect((await c.get(`/api/v1/accounts/${accountId}/balance`)).body.amount).toBe(0);
    const once = await c.post('/api/v1/transactions', JSON.parse(body), { 'idempotency-key': 'a, b' });
    expect(once.status, once.text).toBe(201);
  });

  it('HEAD is answered on every GET route: the status and headers of GET, no body', async () => {
    const getRoutes = allRoutes.filter((route) => route.method === 'GET');
    expect(getRoutes.length).toBeGreaterThan(10);
    for (const route of getRoutes) {
      // Ids that name nothing: each route answers what GET answers (200, 400 or 404), the same for HEAD.
      const path = route.path.replace(/:accountId/, accountId).replace(/:\w+/g, '00000000-0000-4000-8000-000000000000');
      const query = route.path.endsWith('audit-export') ? '?from=2000-01-01&to=2100-01-01' : '';
      // The event stream never ends by itself: its GET is read as far as its headers.
      const stream = route.path.endsWith('/events/stream');
      const abort = new AbortController();
      const get = await fetch(`${t.url}${path}${query}`, { headers: { authorization: auth }, signal: abort.signal });
      const getBody = stream ? new ArrayBuffer(0) : await get.arrayBuffer();
      abort.abort();
      const head = await raw(`HEAD ${path}${query} HTTP/1.1\r\n${hostLine()}\r\nAuthorization: ${auth}`);
      expect(head.status, `HEAD ${route.path}`).toBe(get.status);
      expect(head.headers['content-type'], `HEAD ${route.path}`).toBe(get.headers.get('content-type') ?? undefined);
      if (get.status === 200 && get.headers.get('content-length')) expect(head.headers['content-length'], `HEAD ${route.path}`).toBe(String(getBody.byteLength));
      expect(head.body, `HEAD ${route.path}`).toBe('');
    }
    const refused = await fetch(`${t.url}/api/v1/accounts/${accountId}`, { method: 'POST', headers: { authorization: auth } });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('GET, HEAD, PATCH');
  });
});
