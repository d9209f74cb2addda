// Issue 29 §2: text PostgreSQL cannot store (U+0000) and text with no UTF-8 form (an unpaired surrogate) is refused on
// both engines alike, with 400 and a detail at the field, wherever it comes in: a body's strings and keys, a query
// parameter, a header. Nothing is written, a hold with such text cannot be made (so every hold captures), and what
// still reaches the store, or is refused by the database itself, answers 4xx, never 503.
import { beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { BetterSqlite3 } from '../../src/store/sqlite/driver.js';
import { fiat, post, useServerWithAccounts, type Client, type HttpResult } from '../helpers/server.js';
import { expectValidation } from '../helpers/expect.js';
import { rawHttp } from '../helpers/rawHttp.js';
import { TEST_ENGINE } from '../helpers/postgres.js';
import { asPgStoreError } from '../../src/store/postgres/connect.js';
import { asStoreError } from '../../src/store/sqlite/connection.js';
import { statusByCode } from '../../src/server/errors.js';
import { LedgerError } from '../../src/core/errors.js';
import { newKey, execute, AGENT_PATH } from '../helpers/agents.js';

/** The two kinds of text refused, as JavaScript strings: JSON.stringify sends them as the escapes "\u0000" and "\ud800". */
const BAD = [
  { text: 'a\u0000b', message: /U\+0000/ },
  { text: 'a\ud800b', message: /unpaired surrogate \(U\+D800\)/ },
];

/** 400 VALIDATION_FAILED whose first detail names `path` (exactly, or by pattern) and the kind of text refused. */
function expectRefused(res: Pick<HttpResult, 'status' | 'body' | 'text'>, path: string | RegExp, message: RegExp) {
  expectValidation(res, { detail: { path, message } });
  const first = res.body.details[0];
  if (typeof path === 'string') expect(first.path, res.text).toBe(path);
  else expect(first.path, res.text).toMatch(path);
  expect(res.body.message, res.text).toMatch(message);
}

describe('text the ledger cannot store is refused at its field, on both engines', () => {
  let c: Client;
  let cash: string;
  let deposits: string;
  /** What the tenant holds, read over the API: nothing of it may change with a refused request. */
  const snapshot = async () => ({
    accounts: (await c.get('/api/v1/accounts?limit=200')).body.items.length,
    transactions: (await c.get('/api/v1/transactions?limit=200')).body.items.length,
    holds: (await c.get('/api/v1/holds?limit=200')).body.items.length,
    audit: (await c.get('/api/v1/compliance/audit-export?from=2000-01-01&to=2100-01-01')).text.split('\n').filter(Boolean).length,
  });

  const t = useServerWithAccounts({ accounts: { cash: 'ASSET', deposits: 'LIABILITY' } });
  beforeAll(async () => {
    ({ client: c, accounts: { cash, deposits } } = t);
    expect((await post(c, [fiat(cash, 'DEBIT', '100.00'), fiat(deposits, 'CREDIT', '100.00')])).status).toBe(201);
  });

  it('a line description, an account name, a metadata key and value: 400 at the field, nothing written', async () => {
    const before = await snapshot();
    for (const { text, message } of BAD) {
      expectRefused(await post(c, [fiat(cash, 'DEBIT', '1.00'), { ...fiat(deposits, 'CREDIT', '1.00'), description: text }]), 'lines.1.description', message);
      expectRefused(await c.post('/api/v1/accounts', { name: text, currency: 'USD', type: 'ASSET' }), 'name', message);
      expectRefused(await c.post('/api/v1/accounts', { name: 'ok', description: text, currency: 'USD', type: 'ASSET' }), 'description', message);
      expectRefused(await post(c, [fiat(cash, 'DEBIT', '1.00'), fiat(deposits, 'CREDIT', '1.00')], { metadata: { order: text } }), 'metadata.order', message);
      // A key is named by its escaped form: the answer never carries the text it refuses.
      const keyed = await post(c, [fiat(cash, 'DEBIT', '1.00'), fiat(deposits, 'CREDIT', '1.00')], { metadata: { [text]: 'v' } });
      expectRefused(keyed, /^metadata\.a\\u(0000|d800)b$/, message);
      expect(keyed.body.details[0].path).not.toContain(text);
      // An on-chain reference, a settlement's wallet: every string field alike.
      expectRefused(
        await c.post(
          '/api/v1/settlements',
          { accountId: cash, expectedToken: 'USDC', expectedAmount: '1', expectedChainId: 'EVM', expectedWalletAddress: text },
          { 'idempotency-key': `settle-${Math.random()}` },
        ),
        'expectedWalletAddress',
        message,
      );
    }
    expect(await snapshot()).toEqual(before);
  });

  it('a webhook URL: 400 at webhookUrl, and no webhook is set', async () => {
    for (const { text, message } of BAD) {
      expectRefused(await c.request('PUT', '/api/v1/tenant/webhook', { body: { webhookUrl: `https://hooks.example.com/${text}` } }), 'webhookUrl', message);
    }
    expect((await c.get('/api/v1/tenant/webhook')).status).toBe(404);
  });

  it('an agent transaction: 400 at the field, and nothing is recorded, not even a refusal', async () => {
    const agent = await newKey(c, t.url, ['AGENTS_EXECUTE', 'TRANSACTIONS_READ']);
    const before = await snapshot();
    for (const { text, message } of BAD) {
      expectRefused(await execute(agent.c, [fiat(cash, 'DEBIT', '1.00'), { ...fiat(deposits, 'CREDIT', '1.00'), description: text }]), 'lines.1.description', message);
      expectRefused(await execute(agent.c, [fiat(cash, 'DEBIT', '1.00'), fiat(deposits, 'CREDIT', '1.00')], { metadata: { note: text } }), 'metadata.note', message);
    }
    expect(await snapshot()).toEqual(before);
    expect((await c.get(AGENT_PATH)).body.items).toEqual([]);
  });

  it('a hold with such a description cannot be made, so every hold there is captures', async () => {
    const before = await snapshot();
    for (const { text, message } of BAD) {
      const res = await c.post('/api/v1/holds', { lines: [{ ...fiat(deposits, 'DEBIT', '5.00'), description: text }, fiat(cash, 'CREDIT', '5.00')] }, { 'idempotency-key': `hold-${Math.random()}` });
      expectRefused(res, 'lines.0.description', message);
    }
    expect(await snapshot()).toEqual(before);
    const made = await c.post('/api/v1/holds', { lines: [{ ...fiat(deposits, 'DEBIT', '5.00'), description: 'a plain description' }, fiat(cash, 'CREDIT', '5.00')] }, { 'idempotency-key': 'hold-plain' });
    expect(made.status, made.text).toBe(201);
    const pending = (await c.get('/api/v1/holds?status=PENDING')).body.items as Array<{ holdId: string }>;
    expect(pending.length).toBeGreaterThan(0);
    for (const { holdId } of pending) {
      const captured = await c.post(`/api/v1/holds/${holdId}/capture`, {});
      expect(captured.status, captured.text).toBe(200);
    }
  });

  it('a query parameter holding U+0000: 400 at the parameter', async () => {
    expectRefused(await c.get('/api/v1/accounts?limit=%00'), 'limit', /U\+0000/);
    expectRefused(await c.get('/api/v1/holds?status=PENDING%00'), 'status', /U\+0000/);
    expectRefused(await c.get(`/api/v1/accounts/${cash}/entries?cursor=x%00y`), 'cursor', /U\+0000/);
  });

  it('an Idempotency-Key or X-Agent-Session-Id holding U+0000 is named as the header (no other character reaches a header)', async () => {
    const before = await snapshot();
    const body = JSON.stringify({ lines: [fiat(cash, 'DEBIT', '1.00'), fiat(deposits, 'CREDIT', '1.00')] });
    for (const [name, path, others] of [
      ['Idempotency-Key', '/api/v1/transactions', []],
      ['X-Agent-Session-Id', '/api/v1/agent/transactions', ['Idempotency-Key: fine']],
    ] as const) {
      const head = [`POST ${path} HTTP/1.1`, 'Host: ledger', `Authorization: Bearer ${t.tenant.apiKey.rawKey}`, 'Content-Type: application/json', ...others];
      const res = await rawHttp(t.url, { head: [...head, `${name}: k\u0000x`, `Content-Length: ${Buffer.byteLength(body)}`].join('\r\n'), body: [body] });
      expectRefused({ status: res.status, body: res.json, text: res.body }, name, /U\+0000/);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('text that reaches the store by another way than the API is refused there as input (400), on either engine', async () => {
    const actor = { type: 'HUMAN' as const, keyId: 'cli' };
    const ledger = t.server.ledger;
    for (const { text } of BAD) {
      const refusals = await Promise.allSettled([
        ledger.accounts.create(t.tenant.tenantId, { name: text, currency: 'USD', type: 'ASSET' }, actor),
        ledger.webhooks.set(t.tenant.tenantId, actor, `https://hooks.example.com/${text}`),
        ledger.tenants.create(`tenant ${text}`, actor),
      ]);
      for (const refusal of refusals) {
        expect(refusal.status).toBe('rejected');
        const error = (refusal as PromiseRejectedResult).reason as LedgerError;
        expect(error).toBeInstanceOf(LedgerError);
        expect(error.code).toBe('VALIDATION_FAILED');
        expect(error.message).toMatch(/cannot be stored/);
      }
    }
    // The writer is not harmed: the next write goes through.
    expect((await post(c, [fiat(cash, 'DEBIT', '1.00'), fiat(deposits, 'CREDIT', '1.00')])).status).toBe(201);
  });
});

describe(`a refusal by the database itself is 4xx, never 503 (${TEST_ENGINE})`, () => {
  /** The engine's own error for a statement, as it reaches asStoreError. */
  async function engineError(statements: string[], failing: string, params: unknown[] = []): Promise<unknown> {
    if (TEST_ENGINE === 'postgres') {
      const db = new pg.Client({ connectionString: process.env.LEDGER_TEST_PG_ADMIN_URL });
      await db.connect();
      try {
        for (const s of statements) await db.query(s);
        await db.query(failing, params);
      } catch (error) {
        return error;
      } finally {
        await db.end();
      }
      throw new Error('the statement did not fail');
    }
    const db = new BetterSqlite3(':memory:');
    try {
      for (const s of statements) db.exec(s);
      db.prepare(failing.replace(/\$\d+/g, '?')).run(...params);
    } catch (error) {
      return error;
    } finally {
      db.close();
    }
    throw new Error('the statement did not fail');
  }
  const mapped = (error: unknown) => (TEST_ENGINE === 'postgres' ? asPgStoreError(error) : asStoreError(error)) as LedgerError;
  const table = 'CREATE TEMP TABLE refusals (id text PRIMARY KEY, name text NOT NULL, n integer CHECK (n > 0))';

  it('a unique key clash is 409 CONFLICT; a NOT NULL or CHECK refusal is 400; so is text PostgreSQL cannot hold', async () => {
    const cases: Array<[string, unknown[], number]> = [
      ["INSERT INTO refusals VALUES ('a', 'x', 1), ('a', 'y', 2)", [], 409],
      ["INSERT INTO refusals (id, name, n) VALUES ('b', NULL, 1)", [], 400],
      ["INSERT INTO refusals (id, name, n) VALUES ('c', 'x', 0)", [], 400],
    ];
    if (TEST_ENGINE === 'postgres') {
      cases.push(['SELECT $1::text', ['a\u0000b'], 400], ["SELECT '{\"a\":\"\\u0000\"}'::jsonb", [], 400], ["SELECT 'x'::integer", [], 400]);
    }
    for (const [failing, params, status] of cases) {
      const error = mapped(await engineError([table], failing, params));
      expect(error, failing).toBeInstanceOf(LedgerError);
      expect(statusByCode[error.code], `${failing}: ${error.message}`).toBe(status);
      expect(error.message).toMatch(/nothing was written/);
    }
  });
});
