// Limits and holds across processes (issue 19): two `ledger serve` processes on one PostgreSQL database; 64 debits and
// holds sent to both at once never take an account past its min, and a hold made through one is captured through the
// other.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { tenantOver, type HttpTenant } from '../helpers/tenant.js';
import { killAll, spawnServe, type Spawned } from '../helpers/spawn.js';

describe('limits and holds across two servers on one PostgreSQL database', () => {
  let servers: Array<Spawned & { url: string }>;
  let acme: HttpTenant;
  let wallet: string;
  let merchant: string;

  const lines = (amount: string) => [
    { accountId: merchant, entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount, currency: 'USD', rail: 'ACH' } },
    { accountId: wallet, entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount, currency: 'USD', rail: 'ACH' } },
  ];
  const send = (server: number, path: string, body: unknown) =>
    fetch(`${servers[server]!.url}${path}`, { method: 'POST', headers: { ...acme.headers, 'idempotency-key': randomUUID() }, body: JSON.stringify(body) });

  beforeAll(async () => {
    const db = await freshDatabaseUrl();
    acme = await tenantOver(db);
    servers = await Promise.all([0, 1].map(() => spawnServe(db)));
    wallet = await acme.account(servers[0]!.url, 'wallet');
    merchant = await acme.account(servers[1]!.url, 'merchant');
    const funding = await acme.account(servers[0]!.url, 'funding', 'REVENUE');
    expect((await acme.transfer(servers[0]!.url, wallet, funding, { amount: '100.00' })).status).toBe(201);
    const limits = await fetch(`${servers[1]!.url}/api/v1/accounts/${wallet}/limits`, { method: 'PUT', headers: acme.headers, body: JSON.stringify({ limits: [{ asset: 'USD', min: '0' }] }) });
    expect(limits.status).toBe(200);
  });
  afterAll(() => killAll());

  it('64 debits and holds through both processes: exactly what the money covers goes through', async () => {
    const results = await Promise.all(
      Array.from({ length: 64 }, (_, i) => send(i % 2, i % 4 < 2 ? '/api/v1/transactions' : '/api/v1/holds', { lines: lines('10.00') })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 422)).toHaveLength(54);
    for (const server of servers) {
      const balance = (await (await fetch(`${server.url}/api/v1/accounts/${wallet}/balance`, { headers: acme.headers })).json()) as { available: number };
      expect(balance.available).toBe(0);
    }
  });

  it('a hold made through one process is captured through the other, once', async () => {
    const funding = await acme.account(servers[0]!.url, 'more', 'REVENUE');
    expect((await acme.transfer(servers[0]!.url, wallet, funding, { amount: '5.00' })).status).toBe(201);
    const hold = (await (await send(0, '/api/v1/holds', { lines: lines('5.00') })).json()) as { holdId: string };
    const captures = await Promise.all([0, 1, 0, 1].map((s) => send(s, `/api/v1/holds/${hold.holdId}/capture`, {})));
    expect(captures.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
  });
});
