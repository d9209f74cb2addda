// `ledger db check` (issue 15), on both engines: a whole ledger passes every check; a balance row, an entry, an
// audit record and a settlement damaged by hand are each named, and the command exits 1. Parts that are missing
// (issue 29: what a copy that stopped half-way left) are named too: a transaction without entries, a tenant with
// ledger rows but no audit chain, an audit record whose resource is gone.
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, client, createTenant, fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { sqlOn } from '../helpers/sql.js';
import { randomUUID } from 'node:crypto';

interface CheckReport {
  ok: boolean;
  results: Array<{ kind: string; checked: number; problems: number; first: string | null }>;
}

describe('ledger db check', () => {
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

  const t = useServerWithAccounts({ accounts: { cash: 'ASSET', revenue: 'REVENUE', wallet: 'ASSET' } });
  beforeAll(async () => {
    ({ client: c, accounts: { cash, revenue, wallet } } = t);
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

  it('passes a whole ledger: every check, with what it looked at, and exit 0', async () => {
    const { code, report, of } = await check();
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.results.map((r) => r.kind)).toEqual(['engine', 'balances', 'trial balances', 'running balances', 'transactions', 'reversals', 'audit chains', 'audit resources', 'settlements', 'bank statements', 'bank statement lines', 'bank matches', 'bank line matches']);
    expect(report.results.every((r) => r.problems === 0 && r.first === null)).toBe(true);
    expect(of('running balances').checked).toBe(12);
    expect(of('transactions').checked).toBe(6);
    expect(of('balances').checked).toBe(4);
    // The tenant's trial balance in USD and in USDC.
    expect(of('trial balances').checked).toBe(2);
    expect(of('settlements').checked).toBe(1);
    expect(of('audit chains').checked).toBeGreaterThanOrEqual(10);
    // Tenant, key, 3 accounts, 6 postings, the settlement registered and matched (with its transaction and account).
    expect(of('audit resources').checked).toBe(1 + 1 + 3 + 6 + 2 + 2);
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
    // The tenant's debits no longer equal its credits in USD.
    expect(run.of('trial balances').problems).toBe(1);
    expect(run.of('trial balances').first).toBe(`the trial balance of tenant ${t.tenant.tenantId} in USD does not balance: debit balances exceed credit balances by 1 minor units`);

    const row = (await sqlOn<{ seq: string; transaction_id: string; view: string }>(t.dbPath, 'select seq, transaction_id, view from entries where account_id = ? order by seq limit 1', [revenue])).rows[0]!;
    const entry = { id: (JSON.parse(row.view) as { entryId: string }).entryId, transaction_id: row.transaction_id };
    await sqlOn(t.dbPath, 'update entries set amount = amount + 7 where seq = ?', [row.seq]);
    run = await check();
    expect(run.of('running balances').first).toContain(`entry ${entry.id}`);
    expect(run.of('transactions').first).toContain(`transaction ${entry.transaction_id}`);
    expect(run.of('transactions').first).toContain('does not balance in USD');

    const record = (await sqlOn<{ id: string }>(t.dbPath, 'select id from audit_log where tenant_id = (select id from tenants where public_id = ?) order by seq limit 1 offset 2', [t.tenant.tenantId])).rows[0]!;
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

describe('ledger db check finds missing parts', () => {
  let c: Client;
  let cash: string;
  let revenue: string;
  const check = async () => {
    const res = await cli(['--db', t.dbPath, 'db', 'check', '--json']);
    const report = JSON.parse(res.stdout) as CheckReport;
    return { code: res.code, report, of: (kind: string) => report.results.find((r) => r.kind === kind)! };
  };

  const t = useServerWithAccounts({ accounts: { cash: 'ASSET', revenue: 'REVENUE' } });
  beforeAll(async () => {
    ({ client: c, accounts: { cash, revenue } } = t);
    for (const amount of ['1.00', '2.00']) expect((await post(c, [fiat(cash, 'DEBIT', amount), fiat(revenue, 'CREDIT', amount)])).status).toBe(201);
    // Holds captured, voided and pending: their records name holds and the capture's transaction.
    const hold = async (key: string) => {
      const res = await c.post('/api/v1/holds', { lines: [fiat(cash, 'DEBIT', '0.50'), fiat(revenue, 'CREDIT', '0.50')] }, { 'idempotency-key': key });
      expect(res.status, res.text).toBe(201);
      return res.body.holdId as string;
    };
    expect((await c.post(`/api/v1/holds/${await hold('h-1')}/capture`, {})).status).toBe(200);
    expect((await c.request('POST', `/api/v1/holds/${await hold('h-2')}/void`)).status).toBe(200);
    await hold('h-3');
  });

  it('a whole ledger with holds has no missing part', async () => {
    const { code, of } = await check();
    expect(code).toBe(0);
    expect(of('audit resources').problems).toBe(0);
    // Tenant, key, 2 accounts, 2 postings, 3 holds made, one captured (its posting; the hold and that transaction), one voided.
    expect(of('audit resources').checked).toBe(1 + 1 + 2 + 2 + 3 + (1 + 2) + 1);
  });

  it('a transaction whose entries are gone is named, and the command exits 1', async () => {
    const tx = (await c.get('/api/v1/transactions?limit=1')).body.items[0].transactionId as string;
    expect((await sqlOn(t.dbPath, 'delete from entries where transaction_id = ?', [tx])).changes).toBe(2);
    const run = await check();
    expect(run.code).toBe(1);
    expect(run.of('transactions').problems).toBe(1);
    expect(run.of('transactions').first).toBe(`transaction ${tx} of tenant ${t.tenant.tenantId} has no entries`);
  });

  it('a tenant with keys but no audit chain is named', async () => {
    const beta = await createTenant(t.dbPath, 'Beta');
    expect((await check()).of('audit chains').problems).toBe(0);
    expect((await sqlOn(t.dbPath, 'delete from audit_log where tenant_id = (select id from tenants where public_id = ?)', [beta.tenantId])).changes).toBeGreaterThan(0);
    const run = await check();
    expect(run.code).toBe(1);
    expect(run.of('audit chains').problems).toBe(1);
    expect(run.of('audit chains').first).toContain(`tenant ${beta.tenantId} holds keys, accounts or transactions but not one audit record`);
  });

  it('an audit record whose account is gone is named', async () => {
    const gone = await makeAccount(c, { name: 'gone', type: 'ASSET' });
    expect((await check()).of('audit resources').problems).toBe(0);
    expect((await sqlOn(t.dbPath, 'delete from accounts where id = ?', [gone])).changes).toBe(1);
    const record = (await sqlOn<{ id: string }>(t.dbPath, "select id from audit_log where action = 'CREATE_ACCOUNT' and payload like ?", [`%${gone}%`])).rows[0]!;
    const run = await check();
    expect(run.code).toBe(1);
    expect(run.of('audit resources').problems).toBe(1);
    expect(run.of('audit resources').first).toBe(`audit record ${record.id} of tenant ${t.tenant.tenantId} (CREATE_ACCOUNT) names account ${gone}, which does not exist`);
    const table = await cli(['--db', t.dbPath, 'db', 'check']);
    expect(table.code).toBe(1);
    expect(table.stdout).toContain('FAILED');
  });
});

describe('ledger db check, reversals', () => {
  let c: Client;
  const check = async () => {
    const res = await cli(['--db', t.dbPath, 'db', 'check', '--json']);
    const report = JSON.parse(res.stdout) as CheckReport;
    return { code: res.code, report, of: (kind: string) => report.results.find((r) => r.kind === kind)! };
  };
  const reverse = async (id: string) => {
    const res = await c.post(`/api/v1/transactions/${id}/reverse`, {}, { 'idempotency-key': randomUUID() });
    expect(res.status, res.text).toBe(201);
    return res.body.transactionId as string;
  };

  const t = useServerWithAccounts();
  beforeAll(() => {
    c = t.client;
  });

  it('every reversal mirrors its original; a damaged mirror and a link to another tenant\'s transaction are named', async () => {
    const cash = await makeAccount(c, { name: 'cash', type: 'ASSET' });
    const revenue = await makeAccount(c, { name: 'revenue', type: 'REVENUE' });
    const ids: string[] = [];
    for (const amount of ['3.00', '4.00']) ids.push((await post(c, [fiat(cash, 'DEBIT', amount), fiat(revenue, 'CREDIT', amount)])).body.transactionId);
    const reversals = [await reverse(ids[0]!), await reverse(ids[1]!)];
    let run = await check();
    expect(run.code).toBe(0);
    expect(run.of('reversals')).toEqual({ kind: 'reversals', checked: 2, problems: 0, first: null });

    // The first reversal's first line edited by hand: it no longer moves what the original moved.
    expect((await sqlOn(t.dbPath, `update transactions set document = replace(document, '"amount":3', '"amount":5') where id = ?`, [reversals[0]])).changes).toBe(1);
    run = await check();
    expect(run.code).toBe(1);
    expect(run.of('reversals').problems).toBe(1);
    expect(run.of('reversals').first).toBe(
      `the reversal of transaction ${ids[0]} of tenant ${t.tenant.tenantId} by transaction ${reversals[0]} does not mirror it: line 0 moves {"type":"FIAT","amount":5,"currency":"USD","rail":"ACH","bankReference":null}; the original's moves {"type":"FIAT","amount":3,"currency":"USD","rail":"ACH","bankReference":null}`,
    );

    // Mended; then a link whose reversal is another tenant's transaction.
    await sqlOn(t.dbPath, `update transactions set document = replace(document, '"amount":5', '"amount":3') where id = ?`, [reversals[0]]);
    expect((await check()).code).toBe(0);
    const beta = await createTenant(t.dbPath, 'Beta');
    const betaClient = client(t.url, beta.apiKey.rawKey);
    const betaCash = await makeAccount(betaClient, { name: 'cash', type: 'ASSET' });
    const betaRevenue = await makeAccount(betaClient, { name: 'revenue', type: 'REVENUE' });
    const foreign = (await post(betaClient, [fiat(betaCash, 'DEBIT', '1.00'), fiat(betaRevenue, 'CREDIT', '1.00')])).body.transactionId as string;
    expect((await sqlOn(t.dbPath, 'update transaction_reversals set reversal_id = ? where reversal_id = ?', [foreign, reversals[1]])).changes).toBe(1);
    run = await check();
    expect(run.of('reversals').problems).toBe(1);
    expect(run.of('reversals').first).toBe(`the reversal of transaction ${ids[1]} of tenant ${t.tenant.tenantId} by transaction ${foreign}: transaction ${foreign} is not a transaction of the tenant`);
    const table = await cli(['--db', t.dbPath, 'db', 'check']);
    expect(table.code).toBe(1);
    expect(table.stdout).toContain(`transaction ${foreign} is not a transaction of the tenant`);
    await sqlOn(t.dbPath, 'update transaction_reversals set reversal_id = ? where reversal_id = ?', [reversals[1], foreign]);
  });

  it('a rolled-back agent transaction whose rollback names another reversal than its record is named', async () => {
    const cash = await makeAccount(c, { name: 'cash', type: 'ASSET' });
    const revenue = await makeAccount(c, { name: 'revenue', type: 'REVENUE' });
    const agentKey = await c.post('/api/v1/api-keys', { scopes: ['AGENTS_EXECUTE', 'AGENTS_ROLLBACK'] });
    const agent = client(t.url, agentKey.body.rawKey);
    const executed = await agent.post('/api/v1/agent/transactions', { lines: [fiat(cash, 'DEBIT', '2.00'), fiat(revenue, 'CREDIT', '2.00')] }, { 'idempotency-key': randomUUID(), 'x-agent-session-id': 's' });
    expect(executed.status, executed.text).toBe(201);
    const rolled = await agent.post(`/api/v1/agent/transactions/${executed.body.transactionId}/rollback`, {});
    expect(rolled.status, rolled.text).toBe(201);
    const before = (await check()).of('reversals');
    expect(before.first).toBeNull();
    const other = randomUUID();
    await sqlOn(t.dbPath, 'update agent_transactions set reversal_transaction_id = ? where id = ?', [other, executed.body.transactionId]);
    const run = await check();
    expect(run.code).toBe(1);
    expect(run.of('reversals').first).toBe(
      `agent transaction ${executed.body.transactionId} of tenant ${t.tenant.tenantId} was rolled back by transaction ${other}, but its reversal record names ${rolled.body.transactionId}`,
    );
  });
});
