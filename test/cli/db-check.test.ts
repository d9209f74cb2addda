// `ledger db check` (issue 15), on both engines: a whole ledger passes every check; a balance row, an entry, an
// audit record and a settlement damaged by hand are each named, and the command exits 1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, client, fiat, makeAccount, onchain, post, startTestServer, type Client, type TestServer } from '../helpers/server.js';
import { sqlOn } from '../helpers/sql.js';

interface CheckReport {
  ok: boolean;
  results: Array<{ kind: string; checked: number; problems: number; first: string | null }>;
}

describe('ledger db check', () => {
  let t: TestServer;
  let c: Client;
  let cash: string;
  let revenue: string;
  let wallet: string;
  let settlementId: string;
  const check = async () => {
    const res = await cli(['--db', t.dbPath, 'db', 'check', '--json']);
    const report = JSON.parse(res.stdout) as CheckReport;
    return { code: res.code, report, of: (kind: string) => report.results.find((r) => r.kind === kind)! };
  };

  beforeAll(async () => {
    t = await startTestServer();
    c = client(t.url, t.tenant.apiKey.rawKey);
    cash = await makeAccount(c, { name: 'cash', type: 'ASSET' });
    revenue = await makeAccount(c, { name: 'revenue', type: 'REVENUE' });
    wallet = await makeAccount(c, { name: 'wallet', type: 'ASSET' });
    for (let i = 1; i <= 5; i++) expect((await post(c, [fiat(cash, 'DEBIT', `${i}.25`), fiat(revenue, 'CREDIT', `${i}.25`)])).status).toBe(201);
    const registered = await c.post(
      '/api/v1/settlements',
      { accountId: wallet, expectedToken: 'USDC', expectedAmount: '5', expectedWalletAddress: '0x0000000000000000000000000000000000000001', expectedChainId: 'EVM' },
      { 'idempotency-key': 'check-settlement' },
    );
    expect(registered.status, registered.text).toBe(201);
    settlementId = registered.body.settlementId;
    expect((await post(c, [onchain(wallet, 'DEBIT', '5'), onchain(revenue, 'CREDIT', '5')])).status).toBe(201);
    expect((await c.get(`/api/v1/settlements/${settlementId}`)).body.status).toBe('SETTLED');
  });
  afterAll(async () => t?.stop());

  it('passes a whole ledger: every check, with what it looked at, and exit 0', async () => {
    const { code, report, of } = await check();
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.results.map((r) => r.kind)).toEqual(['engine', 'balances', 'running balances', 'transactions', 'audit chains', 'settlements']);
    expect(report.results.every((r) => r.problems === 0 && r.first === null)).toBe(true);
    expect(of('running balances').checked).toBe(12);
    expect(of('transactions').checked).toBe(6);
    expect(of('balances').checked).toBe(4);
    expect(of('settlements').checked).toBe(1);
    expect(of('audit chains').checked).toBeGreaterThanOrEqual(10);
    const table = await cli(['--db', t.dbPath, 'db', 'check']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('is whole');
  });

  it('names a damaged balance row, entry, audit record and settlement, and exits 1', async () => {
    await sqlOn(t.dbPath, "update balances set balance = balance + 1 where account_id = ? and asset = 'USD'", [cash]);
    let run = await check();
    expect(run.code).toBe(1);
    expect(run.of('balances').problems).toBe(1);
    expect(run.of('balances').first).toContain(`the kept balance of account ${cash}`);

    const entry = (await sqlOn<{ id: string; transaction_id: string }>(t.dbPath, 'select id, transaction_id from entries where account_id = ? order by seq limit 1', [revenue])).rows[0]!;
    await sqlOn(t.dbPath, 'update entries set amount = amount + 7 where id = ?', [entry.id]);
    run = await check();
    expect(run.of('running balances').first).toContain(`entry ${entry.id}`);
    expect(run.of('transactions').first).toContain(`transaction ${entry.transaction_id}`);
    expect(run.of('transactions').first).toContain('does not balance in USD');

    const record = (await sqlOn<{ id: string }>(t.dbPath, 'select id from audit_log where tenant_id = ? order by seq limit 1 offset 2', [t.tenant.tenantId])).rows[0]!;
    await sqlOn(t.dbPath, "update audit_log set actor_key_id = 'someone-else' where id = ?", [record.id]);
    run = await check();
    expect(run.of('audit chains').problems).toBe(1);
    expect(run.of('audit chains').first).toContain(record.id);

    await sqlOn(t.dbPath, "update settlements set status = 'PENDING' where id = ?", [settlementId]);
    run = await check();
    expect(run.of('settlements').first).toContain(`settlement ${settlementId}`);
    expect(run.of('settlements').first).toContain('PENDING but matched');

    expect(run.report.ok).toBe(false);
    expect(run.of('engine').problems).toBe(0);
    const table = await cli(['--db', t.dbPath, 'db', 'check']);
    expect(table.code).toBe(1);
    expect(table.stdout).toContain('FAILED');
    expect(table.stdout).toContain(entry.id);
  });
});
