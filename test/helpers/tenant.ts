// A tenant as the tests of spawned servers use it: made through the CLI, then spoken to over HTTP on whichever server
// a test names (several processes serve one database).
import { randomUUID } from 'node:crypto';
import { createTenant } from './server.js';

export interface HttpTenant {
  tenantId: string;
  rawKey: string;
  /** Authorization and JSON content type. */
  headers: Record<string, string>;
  /** Creates a USD account on the server at `url`; answers its id. */
  account(url: string, name: string, type?: 'ASSET' | 'REVENUE'): Promise<string>;
  /** Posts `amount` USD from `from` (DEBIT) to `to` (CREDIT) under `key` (a fresh one by default). */
  transfer(url: string, from: string, to: string, options?: { amount?: string; key?: string }): Promise<Response>;
}

export async function tenantOver(db: string, name = 'Acme'): Promise<HttpTenant> {
  const tenant = await createTenant(db, name);
  const headers = { authorization: `Bearer ${tenant.apiKey.rawKey}`, 'content-type': 'application/json' };
  return {
    tenantId: tenant.tenantId,
    rawKey: tenant.apiKey.rawKey,
    headers,
    account: async (url, accountName, type = 'ASSET') => {
      const res = await fetch(`${url}/api/v1/accounts`, { method: 'POST', headers, body: JSON.stringify({ name: accountName, currency: 'USD', type }) });
      if (res.status !== 201) throw new Error(`account ${accountName}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    },
    transfer: (url, from, to, { amount = '1.00', key = randomUUID() } = {}) =>
      fetch(`${url}/api/v1/transactions`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': key },
        body: JSON.stringify({
          lines: [
            { accountId: from, entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount, currency: 'USD', rail: 'ACH' } },
            { accountId: to, entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount, currency: 'USD', rail: 'ACH' } },
          ],
        }),
      }),
  };
}
