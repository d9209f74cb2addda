// The setup file that holds every JSON answer to the OpenAPI document (test/helpers/answers-match-document.ts) fails
// a request whose answer does not match, naming the route, the status and the field; a 2xx JSON answer the
// document gives no schema; and a JSON answer under /api/ on a path the document does not have, unless it is an error
// with the error body. Shown with a stand-in server on loopback that answers documented paths wrongly.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ACCOUNT = '/api/v1/accounts/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('answers are held to the OpenAPI document', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === ACCOUNT) {
        return json(200, { id: 'not-a-uuid', name: 'cash', description: null, currency: 'USD', type: 'ASSET', normalBalance: 'DEBIT', createdAt: '2026-01-01T00:00:00.000Z', metadata: {} });
      }
      if (req.url === '/api/v1/accounts') return json(404, { message: 'gone' });
      if (req.url === '/api/v1/api-keys/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b') return json(200, { revoked: true });
      if (req.url === '/api/v1/not-in-the-document') return json(200, { id: 'x' });
      if (req.url === '/api/v1/unknown') return json(404, { code: 'NOT_FOUND', message: 'No such route.', details: [] });
      if (req.url === '/api/v1/unknown-badly') return json(404, { error: 'not found' });
      if (req.url?.startsWith('/api/v1/compliance/audit-export')) {
        return res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end('{"id":"0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"}\n');
      }
      return json(200, { status: 'ok' });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a 2xx answer that leaves its schema fails the request, naming the route, the status and the field', async () => {
    await expect(fetch(`${url}${ACCOUNT}`)).rejects.toThrow(/^GET \/api\/v1\/accounts\/\{accountId\} answered 200 with a body that does not match the OpenAPI document: \/id must match format "uuid"/);
  });

  it('an error answer is held to the error body', async () => {
    await expect(fetch(`${url}/api/v1/accounts`)).rejects.toThrow(/GET \/api\/v1\/accounts answered 404 .*must have required property 'code'/);
  });

  it('a 2xx JSON answer the document gives no schema fails', async () => {
    await expect(fetch(`${url}/api/v1/api-keys/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b`, { method: 'DELETE' })).rejects.toThrow(/DELETE \/api\/v1\/api-keys\/\{keyId\} answered 200 with application\/json the OpenAPI document gives no schema for/);
  });

  it('an NDJSON answer is held to its record schema, line by line', async () => {
    await expect(fetch(`${url}/api/v1/compliance/audit-export?from=2000-01-01&to=2100-01-01`)).rejects.toThrow(/GET \/api\/v1\/compliance\/audit-export answered 200 .*line 1 \(the body\) must have required property/);
  });

  it('a JSON answer under /api/ on a path the document does not have fails the request', async () => {
    await expect(fetch(`${url}/api/v1/not-in-the-document`)).rejects.toThrow(/^GET \/api\/v1\/not-in-the-document answered 200 with application\/json on a path the OpenAPI document does not have/);
  });

  it('an error on a path the document does not have passes when it is the error body, and fails when not', async () => {
    expect((await fetch(`${url}/api/v1/unknown`)).status).toBe(404);
    await expect(fetch(`${url}/api/v1/unknown-badly`)).rejects.toThrow(/^GET \/api\/v1\/unknown-badly answered 404 with a body that does not match the error body: \(the body\) must have required property/);
  });

  it('a JSON answer outside /api/ on a path the document does not have is another server\'s (a webhook receiver, a chain node)', async () => {
    expect(await (await fetch(`${url}/rpc`, { method: 'POST' })).json()).toEqual({ status: 'ok' });
  });

  it('what matches passes untouched', async () => {
    const res = await fetch(`${url}/healthz`);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
