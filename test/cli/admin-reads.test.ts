// The reads an operator reaches for first (issue 15): `ledger tenants list`, `ledger accounts balance` and
// `ledger transactions get`, each a table for people and `--json` for scripts, the JSON as the HTTP endpoint answers.
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, createTenant, fiat, post, useServerWithAccounts, type Client } from '../helpers/server.js';

describe('operator reads from the CLI', () => {
  let c: Client;
  let cash: string;
  let revenue: string;
  let transactionId: string;
  let postedAt: string;
  const ledger = (...args: string[]) => cli(['--db', t.dbPath, ...args]);

  const t = useServerWithAccounts({ accounts: { cash: 'ASSET', revenue: 'REVENUE' } });
  beforeAll(async () => {
    ({ client: c, accounts: { cash, revenue } } = t);
    const res = await post(c, [fiat(cash, 'DEBIT', '12.50'), fiat(revenue, 'CREDIT', '12.50')], { metadata: { order: 'A-1' } });
    expect(res.status, res.text).toBe(201);
    transactionId = res.body.transactionId;
    postedAt = (await c.get(`/api/v1/transactions/${transactionId}`)).body.createdAt;
  });

  it('tenants list: every tenant oldest first, with its keys not revoked', async () => {
    const second = await createTenant(t.dbPath, 'Second');
    const created = await ledger('keys', 'create', '--tenant', second.tenantId, '--scopes', 'ACCOUNTS_READ', '--json');
    expect(created.code, created.stderr).toBe(0);
    const json = await ledger('tenants', 'list', '--json');
    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout) as Array<{ tenantId: string; name: string; createdAt: string; activeKeys: number }>;
    expect(listed.map((x) => x.tenantId)).toEqual([t.tenant.tenantId, second.tenantId]);
    expect(listed[1]).toEqual({ tenantId: second.tenantId, name: 'Second', createdAt: expect.any(String), activeKeys: 2 });
    expect(listed[0]!.activeKeys).toBe(1);

    await ledger('keys', 'revoke', (JSON.parse(created.stdout) as { id: string }).id, '--tenant', second.tenantId);
    const table = await ledger('tenants', 'list');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/tenant id\s+│\s+name\s+│\s+created\s+│\s+active keys/);
    expect(table.stdout).toMatch(new RegExp(`${second.tenantId}\\s+│\\s+Second\\s+│[^│]+│\\s+1\\s+│`));
  });

  it('accounts balance: --json as GET …/balance answers it, now and as of an instant', async () => {
    const json = await ledger('accounts', 'balance', cash, '--tenant', t.tenant.tenantId, '--json');
    expect(json.code, json.stderr).toBe(0);
    const http = (await c.get(`/api/v1/accounts/${cash}/balance`)).body;
    expect({ ...JSON.parse(json.stdout), computedAt: null }).toEqual({ ...http, computedAt: null });
    expect(json.stdout).toContain('"amount":12.5');

    const before = await ledger('accounts', 'balance', cash, '--tenant', t.tenant.tenantId, '--as-of', new Date(Date.parse(postedAt) - 1).toISOString(), '--json');
    expect(JSON.parse(before.stdout).amount).toBe(0);

    const table = await ledger('accounts', 'balance', cash, '--tenant', t.tenant.tenantId);
    expect(table.stdout).toContain('cash (ASSET, normal DEBIT)');
    expect(table.stdout).toMatch(/USD\s+│\s+12\.5\s+│/);
  });

  it('transactions get: --json as GET /transactions/{id} answers it; a table of its lines for people', async () => {
    const json = await ledger('transactions', 'get', transactionId, '--tenant', t.tenant.tenantId, '--json');
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout.trim()).toBe((await c.get(`/api/v1/transactions/${transactionId}`)).text);
    const table = await ledger('transactions', 'get', transactionId, '--tenant', t.tenant.tenantId);
    expect(table.stdout).toContain(`Transaction ${transactionId}`);
    expect(table.stdout).toContain('order: A-1');
    expect(table.stdout).toMatch(new RegExp(`${cash}\\s+│\\s+DEBIT\\s+│\\s+12\\.5\\s+│\\s+USD`));
  });

  it('refuses bad input with the documented exits: 2 for a malformed argument, 1 for what is not there', async () => {
    const tenant = t.tenant.tenantId;
    expect((await ledger('accounts', 'balance', 'nope', '--tenant', tenant)).code).toBe(2);
    const badInstant = await ledger('accounts', 'balance', cash, '--tenant', tenant, '--as-of', 'yesterday');
    expect(badInstant.code).toBe(2);
    expect(badInstant.stderr).toContain('--as-of');
    expect((await ledger('accounts', 'balance', revenue, '--tenant', '00000000-0000-4000-8000-000000000000')).code).toBe(1);
    expect((await ledger('transactions', 'get', 'x', '--tenant', tenant)).code).toBe(2);
    const missing = await ledger('transactions', 'get', '00000000-0000-4000-8000-000000000000', '--tenant', tenant);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('was not found');
  });
});
