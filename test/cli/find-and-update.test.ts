// `ledger transactions list` and `ledger accounts list|update|create --metadata` (issue 31): the filters of the HTTP
// lists, straight on the database; --json on transactions list is NDJSON over every page.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, fiat, makeAccount, post, useServerWithAccounts, type Client } from '../helpers/server.js';

describe('finding and updating from the command line', () => {
  let c: Client;
  const run = (...args: string[]) => cli(['--db', t.dbPath, ...args, '--tenant', t.tenant.tenantId]);

  const t = useServerWithAccounts();
  beforeAll(() => {
    c = t.client;
  });

  it('transactions list: filters as the endpoint takes them; --json is NDJSON, every page followed; a table otherwise', async () => {
    const cash = await makeAccount(c, { name: 'cash' });
    const sales = await makeAccount(c, { name: 'sales', type: 'REVENUE' });
    const tag = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.unshift((await post(c, [fiat(cash, 'DEBIT', '1.00'), fiat(sales, 'CREDIT', '1.00')], { metadata: { tag, n: String(i) } })).body.transactionId);
    const key = `cli-${randomUUID()}`;
    const keyed = (await post(c, [fiat(cash, 'DEBIT', '2.00'), fiat(sales, 'CREDIT', '2.00')], { key })).body.transactionId;

    const all = await run('transactions', 'list', '--metadata', `tag=${tag}`, '--limit', '2', '--json');
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.transactionId)).toEqual(ids);
    expect(lines[0]).toEqual((await c.get(`/api/v1/transactions/${ids[0]}`)).body);
    const two = await run('transactions', 'list', '--metadata', `tag=${tag}`, '--metadata', 'n=3', '--account', cash, '--json');
    expect(two.stdout.trim().split('\n').map((l) => JSON.parse(l).transactionId)).toEqual([ids[1]]);
    const byKey = await run('transactions', 'list', '--idempotency-key', key, '--json');
    expect(JSON.parse(byKey.stdout).transactionId).toBe(keyed);

    const table = await run('transactions', 'list', '--metadata', `tag=${tag}`, '--limit', '2');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(ids[0]);
    expect(table.stdout).not.toContain(ids[2]);
    expect(table.stdout).toMatch(/more: --cursor \S+/);
    const cursor = /more: --cursor (\S+)/.exec(table.stdout)![1]!;
    expect((await run('transactions', 'list', '--metadata', `tag=${tag}`, '--limit', '2', '--cursor', cursor)).stdout).toContain(ids[2]);

    expect((await run('transactions', 'list', '--metadata', 'nope')).code).toBe(2);
    expect((await run('transactions', 'list', '--from', '2026-02-01', '--to', '2026-01-01')).code).toBe(2);
    expect((await run('transactions', 'list', '--account', 'x')).code).toBe(2);
  });

  it('accounts create --metadata, list by type, currency, name and metadata, update name, description and metadata', async () => {
    const tag = randomUUID();
    const created = await run('accounts', 'create', '--name', `vault-${tag}`, '--currency', 'BRL', '--type', 'ASSET', '--metadata', `tag=${tag}`, '--json');
    expect(created.code, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout);
    expect(account.metadata).toEqual({ tag });
    const listed = await run('accounts', 'list', '--metadata', `tag=${tag}`, '--currency', 'BRL', '--type', 'ASSET', '--name', `vault-${tag}`, '--json');
    expect(JSON.parse(listed.stdout).items.map((a: { id: string }) => a.id)).toEqual([account.id]);
    expect(JSON.parse((await run('accounts', 'list', '--metadata', `tag=${tag}`, '--currency', 'USD', '--json')).stdout).items).toEqual([]);

    const updated = await run('accounts', 'update', account.id, '--name', 'renamed', '--description', 'moved', '--metadata', 'desk=b', '--json');
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ id: account.id, name: 'renamed', description: 'moved', metadata: { desk: 'b' } });
    const cleared = await run('accounts', 'update', account.id, '--no-description');
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stdout).toContain('renamed');
    expect((await c.get(`/api/v1/accounts/${account.id}`)).body).toMatchObject({ name: 'renamed', description: null, metadata: { desk: 'b' } });
    // Nothing to change, or a bad field: exit 2.
    expect((await run('accounts', 'update', account.id)).code).toBe(2);
    expect((await run('accounts', 'update', account.id, '--name', ' ')).code).toBe(2);
    expect((await run('accounts', 'update', randomUUID(), '--name', 'x')).code).toBe(1);
  });
});
