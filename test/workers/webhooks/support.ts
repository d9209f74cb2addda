// What the webhook suites share: signing as a receiver does, a receiver that answers by path, a tenant with a
// pair of accounts that pays and sets its webhook, and a ledger in the test's own process for driving a sender.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.js';
import { sqliteWriter } from '../../../src/store/sqlite/writer.js';
import { Ledger } from '../../../src/core/ledger.js';
import { expect } from 'vitest';
import { client, createTenant, fiat, makeAccount, post, type Client, type TestServer } from '../../helpers/server.js';
import type { Received, Receiver } from '../../helpers/receiver.js';

export const sign = (secret: string, raw: Buffer | string) => `sha256=${createHmac('sha256', Buffer.from(secret, 'ascii')).update(raw).digest('hex')}`;

export type Handler = (request: Received, res: ServerResponse) => void;
/** Routes a receiver's answers by path (default 200) and records each request's method. */
export function routed(r: Receiver): Map<string, Handler> {
  const handlers = new Map<string, Handler>();
  r.respond = (request, res) => {
    (request as Received & { method?: string }).method = (res as ServerResponse & { req?: { method?: string } }).req?.method;
    const handler = handlers.get(request.path.split('?')[0]!);
    if (handler) handler(request, res);
    else res.writeHead(200).end('ok');
  };
  return handlers;
}

export interface Tenant {
  id: string;
  c: Client;
  a: string;
  b: string;
  /** Posts a balanced 2-line fiat transaction, expects 201, returns its id. */
  pay(amount?: string, metadata?: Record<string, string>): Promise<string>;
  setWebhook(url: string): Promise<string>;
}

export async function makeTenant(t: Pick<TestServer, 'dbPath' | 'url'>, name: string): Promise<Tenant> {
  const tn = await createTenant(t.dbPath, name);
  const c = client(t.url, tn.apiKey.rawKey);
  const a = await makeAccount(c, { name: 'cash', type: 'ASSET' });
  const b = await makeAccount(c, { name: 'deposits', type: 'LIABILITY' });
  return {
    id: tn.tenantId,
    c,
    a,
    b,
    async pay(amount = '1.00', metadata?: Record<string, string>) {
      const res = await post(c, [fiat(a, 'DEBIT', amount), fiat(b, 'CREDIT', amount)], { metadata });
      expect(res.status, res.text).toBe(201);
      return res.body.transactionId as string;
    },
    async setWebhook(url: string) {
      const res = await c.request('PUT', '/api/v1/tenant/webhook', { body: { webhookUrl: url } });
      expect(res.status, res.text).toBe(200);
      return res.body.webhookSecret as string;
    },
  };
}


/** A ledger in this process on a fresh SQLite file with a writer of its own, for tests that drive a sender directly. */
export async function localLedger(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const dbPath = join(dir, 'ledger.db');
  const store = await SqliteStore.open(dbPath);
  const writer = await sqliteWriter(store);
  const ledger = await Ledger.open(store, writer);
  const close = async () => {
    await writer.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { dbPath, store, ledger, close };
}
