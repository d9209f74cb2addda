// `ledger db copy`: a SQLite ledger holding every kind of record moves to PostgreSQL (and back), and on the copy
// the old API key, an old cursor and `ledger audit verify` still work. Needs the test PostgreSQL (postgres project).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/serve.js';
import { cli, client, createTenant, fiat, makeAccount, onchain, post, type Client } from '../helpers/server.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { sqlOn } from '../helpers/sql.js';

const serve = (db: string) => startServer({ db, host: '127.0.0.1', port: 0, log: () => {} });
const WALLET = '0x00000000000000000000000000000000000000aa';

describe('ledger db copy (SQLite to PostgreSQL and back)', () => {
  let dir: string;
  let source: string;
  let running: RunningServer | undefined;
  let tenantId: string;
  let rawKey: string;
  let firstPage: { items: Array<{ transactionId: string }>; nextCursor: string };
  let secondPage: unknown;
  let accountsBefore: unknown;
  let holdBefore: { holdId: string };
  let balanceBefore: { accountId: string };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-copy-'));
    source = join(dir, 'source.db');
    const tenant = await createTenant(source, 'Acme');
    tenantId = tenant.tenantId;
    rawKey = tenant.apiKey.rawKey;
    running = await serve(source);
    const c: Client = client(running.url, rawKey);
    const cash = await makeAccount(c, { name: 'cash' });
    const deposits = await makeAccount(c, { name: 'deposits', type: 'LIABILITY' });
    const wallet = await makeAccount(c, { name: 'wallet' });
    for (const amount of ['1.00', '2.50', '3.75']) expect((await post(c, [fiat(cash, 'DEBIT', amount), fiat(deposits, 'CREDIT', amount)])).status).toBe(201);
    // A settlement, settled by the on-chain posting that records its transfer (a reconciliation result and events).
    const expected = await c.post(
      '/api/v1/settlements',
      { accountId: wallet, expectedToken: 'USDC', expectedAmount: '10.5', expectedChainId: 'EVM', expectedWalletAddress: WALLET },
      { 'idempotency-key': 'settle-1' },
    );
    expect(expected.status, expected.text).toBe(201);
    const chainPosting = await post(c, [onchain(wallet, 'DEBIT', '10.5', 'USDC', { walletAddress: WALLET }), onchain(deposits, 'CREDIT', '10.5', 'USDC', { walletAddress: WALLET })]);
    expect(chainPosting.status, chainPosting.text).toBe(201);
    expect((await c.post('/api/v1/reconciliation/batch', { transactionIds: [chainPosting.body.transactionId] })).status).toBe(200);
    // A PENDING settlement keeps a wallet watched, so a watcher's transfer to it is recorded (seen, not matched).
    expect((await c.post('/api/v1/settlements', { accountId: wallet, expectedToken: 'USDC', expectedAmount: '99', expectedChainId: 'EVM', expectedWalletAddress: WALLET }, { 'idempotency-key': 'settle-2' })).status).toBe(201);
    const ledger = running.ledger;
    await ledger.writer.run('recordTransfers', {
      chain: 'EVM',
      nextBlock: 120,
      transfers: [{ chain: 'EVM', txHash: `0x${'ab'.repeat(32)}`, logIndex: 3, token: 'USDC', tokenContract: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', from: `0x${'cd'.repeat(20)}`, to: WALLET, amountMinor: 1n, blockNumber: 110, blockHash: `0x${'ef'.repeat(32)}` }],
    });
    // A webhook, and a delivery attempt on record.
    await ledger.webhooks.set(tenantId, { type: 'HUMAN', keyId: 'cli' }, 'https://hooks.example.com/ledger');
    await post(c, [fiat(cash, 'DEBIT', '4.00'), fiat(deposits, 'CREDIT', '4.00')]);
    const event = (await ledger.store.outboxAfter(tenantId, 0))!;
    const at = new Date().toISOString();
    await ledger.writer.run('recordWebhookAttempt', {
      redelivery: false,
      state: { tenantId, eventId: event.id, eventSeq: event.seq, type: event.type, status: 'PENDING', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500', firstAttemptAt: at, nextAttemptAt: at, updatedAt: at },
    });
    // A policy rule, and an agent transaction posted under it.
    expect((await c.post('/api/v1/admin/policy-rules', { type: 'MAX_DEBIT_PER_SESSION', amount: '1000' })).status).toBe(201);
    const agentKey = await c.post('/api/v1/api-keys', { scopes: ['AGENTS_EXECUTE', 'TRANSACTIONS_READ'] });
    expect(agentKey.status, agentKey.text).toBe(201);
    const agent = client(running.url, agentKey.body.rawKey);
    const executed = await agent.post('/api/v1/agent/transactions', { lines: [fiat(cash, 'DEBIT', '5.00'), fiat(deposits, 'CREDIT', '5.00')] }, { 'idempotency-key': 'agent-1', 'x-agent-session-id': 'session-1' });
    expect(executed.status, executed.text).toBe(201);
    // A posting reversed: the link between the two is copied (the newest two transactions, on the page compared below).
    const mistaken = await post(c, [fiat(cash, 'DEBIT', '8.00'), fiat(deposits, 'CREDIT', '8.00')]);
    const reversed = await c.post(`/api/v1/transactions/${mistaken.body.transactionId}/reverse`, {}, { 'idempotency-key': 'reverse-1' });
    expect(reversed.status, reversed.text).toBe(201);

    // A PENDING hold (what it reserves is on the balance rows), a limit, and the first event pruned.
    expect((await c.request('PUT', `/api/v1/accounts/${cash}/limits`, { body: { limits: [{ asset: 'USD', min: '-1000' }] } })).status).toBe(200);
    const held = await c.post('/api/v1/holds', { lines: [fiat(cash, 'DEBIT', '7.00'), fiat(deposits, 'CREDIT', '7.00')] }, { 'idempotency-key': 'hold-1' });
    expect(held.status, held.text).toBe(201);
    holdBefore = held.body;
    const firstEvent = (await ledger.store.outboxAfter(tenantId, 0))!;
    expect(await ledger.events.prune(tenantId, new Date(Date.parse(firstEvent.createdAt) + 1).toISOString())).toBeGreaterThan(0);
    balanceBefore = (await c.get(`/api/v1/accounts/${deposits}/balance`)).body;

    const page = await c.get('/api/v1/transactions?limit=2');
    expect(page.body.nextCursor).toEqual(expect.any(String));
    expect(page.body.items[0].reversesTransactionId).toBe(mistaken.body.transactionId);
    firstPage = page.body;
    secondPage = (await c.get(`/api/v1/transactions?limit=2&cursor=${encodeURIComponent(firstPage.nextCursor)}`)).body;
    accountsBefore = (await c.get('/api/v1/accounts')).body;
    await running.close();
    running = undefined;
  });

  afterAll(async () => {
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies every table, verifies the copy, and the copy serves the old key, an old cursor and a whole audit chain', async () => {
    const target = await freshDatabaseUrl();
    const copied = await cli(['db', 'copy', '--from', source, '--to', target, '--json']);
    expect(copied.code, copied.stderr).toBe(0);
    const report = JSON.parse(copied.stdout) as { tables: Array<{ table: string; rows: number }>; tenantsVerified: number; auditRecordsVerified: number; balancesVerified: number };
    const rows = Object.fromEntries(report.tables.map((t) => [t.table, t.rows]));
    for (const table of ['tenants', 'api_keys', 'accounts', 'transactions', 'entries', 'balances', 'idempotency', 'audit_log', 'outbox', 'instance_secrets', 'settlements', 'reconciliation_results', 'webhooks', 'webhook_deliveries', 'policy_rules', 'agent_transactions', 'transaction_reversals', 'chain_checkpoints', 'chain_transfers', 'onchain_lines', 'holds', 'hold_accounts', 'event_retention']) {
      expect(rows[table], table).toBeGreaterThan(0);
    }
    expect(report.tenantsVerified).toBe(1);
    expect(report.auditRecordsVerified).toBe(rows.audit_log);
    // The copy is whole by every check, the records of every kind of action among them (none names what is not there).
    const checked = await cli(['--db', target, 'db', 'check', '--json']);
    expect(checked.code, checked.stdout).toBe(0);

    running = await serve(target);
    const c = client(running.url, rawKey);
    expect((await c.get('/api/v1/accounts')).body).toEqual(accountsBefore);
    expect((await c.get(`/api/v1/holds/${holdBefore.holdId}`)).body).toEqual(holdBefore);
    const balanceAfter = (await c.get(`/api/v1/accounts/${balanceBefore.accountId}/balance`)).body;
    expect({ ...balanceAfter, computedAt: null }).toEqual({ ...balanceBefore, computedAt: null });
    const next = await c.get(`/api/v1/transactions?limit=2&cursor=${encodeURIComponent(firstPage.nextCursor)}`);
    expect(next.status, next.text).toBe(200);
    // The same page; a cursor carries its time of signing, so only its presence is compared.
    const expected = secondPage as { items: unknown[]; nextCursor: string | null };
    expect(next.body.items).toEqual(expected.items);
    expect(typeof next.body.nextCursor).toBe(typeof expected.nextCursor);
    // The newest page, a reversal and what it reverses, linked both ways.
    expect((await c.get('/api/v1/transactions?limit=2')).body.items).toEqual(firstPage.items);
    // New writes continue the copied sequences.
    const cash = (accountsBefore as { items: Array<{ id: string; name: string }> }).items.find((a) => a.name === 'cash')!.id;
    const deposits = (accountsBefore as { items: Array<{ id: string; name: string }> }).items.find((a) => a.name === 'deposits')!.id;
    expect((await post(c, [fiat(cash, 'DEBIT', '6.00'), fiat(deposits, 'CREDIT', '6.00')])).status).toBe(201);
    expect((await c.get('/api/v1/transactions?limit=1')).body.items[0].lines[0].monetary.amount).toBe(6);
    await running.close();
    running = undefined;

    const verified = await cli(['--db', target, 'audit', 'verify', '--tenant', tenantId]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/chain is intact/);

    // Back to a new SQLite file, and the chain still holds there.
    const back = join(dir, 'back.db');
    const returned = await cli(['db', 'copy', '--from', target, '--to', back]);
    expect(returned.code, returned.stderr).toBe(0);
    expect(returned.stdout).toMatch(/Copied and verified/);
    expect((await cli(['--db', back, 'audit', 'verify', '--tenant', tenantId])).code).toBe(0);
  });

  it('refuses a target that already holds a ledger, and changes nothing there', async () => {
    const target = await freshDatabaseUrl();
    expect((await cli(['db', 'copy', '--from', source, '--to', target])).code).toBe(0);
    const again = await cli(['db', 'copy', '--from', source, '--to', target]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already holds a ledger/);
    expect((await cli(['--db', target, 'audit', 'verify', '--tenant', tenantId])).code).toBe(0);
  });

  it('audit verify on PostgreSQL names a record edited or removed by hand (exit 1)', async () => {
    const target = await freshDatabaseUrl();
    expect((await cli(['db', 'copy', '--from', source, '--to', target])).code).toBe(0);
    const { rows } = await sqlOn<{ seq: string; id: string; payload: string }>(target, 'SELECT seq, id, payload FROM audit_log WHERE tenant_id = (select id from tenants where public_id = ?) ORDER BY seq', [tenantId]);
    expect(rows.length).toBeGreaterThanOrEqual(12);
    const verify = () => cli(['--db', target, 'audit', 'verify', '--tenant', tenantId]);
    const broken = async (id: string) => {
      const run = await verify();
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toContain(id);
    };
    const mid = rows[Math.floor(rows.length / 2)]!;
    // An edited payload: that record is named.
    await sqlOn(target, 'UPDATE audit_log SET payload = ? WHERE seq = ?', [JSON.stringify({ ...JSON.parse(mid.payload), tampered: true }), mid.seq]);
    await broken(mid.id);
    await sqlOn(target, 'UPDATE audit_log SET payload = ? WHERE seq = ?', [mid.payload, mid.seq]);
    expect((await verify()).code).toBe(0);
    // A removed record: the one after it is named.
    await sqlOn(target, 'DELETE FROM audit_log WHERE seq = ?', [mid.seq]);
    await broken(rows[Math.floor(rows.length / 2) + 1]!.id);
  });

  it('db status and db migrate name the engine, the schema version and what is pending', async () => {
    const empty = await freshDatabaseUrl();
    const before = await cli(['--db', empty, 'db', 'status', '--json']);
    expect(before.code, before.stderr).toBe(0);
    const status = JSON.parse(before.stdout) as { engine: string; version: string | null; pending: string[]; database: string };
    expect(status).toMatchObject({ engine: 'postgres', version: null });
    expect(status.pending.length).toBeGreaterThan(0);
    expect(status.database).not.toMatch(/ledger-test/); // the password is never printed
    const migrated = await cli(['--db', empty, 'db', 'migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(new RegExp(`Applied ${status.pending.length} migration`));
    const after = JSON.parse((await cli(['--db', empty, 'db', 'status', '--json'])).stdout) as { version: string; pending: string[] };
    expect(after.pending).toEqual([]);
    expect(after.version).toBe(status.pending.at(-1));
    expect((await cli(['--db', empty, 'db', 'migrate'])).stdout).toMatch(/Nothing to apply/);
  });
});
