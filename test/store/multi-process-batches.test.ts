// Batches across processes (issue 33): two `ledger serve` processes on one PostgreSQL database. The same batch (the
// same keys and bodies), sent many times to both processes at once, posts each of its postings once: every answer is
// what the single endpoint would give (201 with the one id, or 409 while a request of the same process holds the
// key), never a 5xx, never a second posting. The processes share no memory: what makes a key's second posting a
// replay is the idempotency record, read under the tenant's write lock, with its primary key as the last guard.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { tenantOver, type HttpTenant } from '../helpers/tenant.js';
import { killAll, spawnServe, type Spawned } from '../helpers/spawn.js';
import { sqlOn } from '../helpers/sql.js';
import { IDEMPOTENT_ENDPOINTS } from '../../src/store/sql/storedNames.js';

const RACERS = 10;
const POSTINGS = 5;

describe('batches raced across two servers on one PostgreSQL database', () => {
  let db: string;
  let servers: Array<Spawned & { url: string }>;
  let acme: HttpTenant;
  let cash: string;
  let sales: string;

  const line = (accountId: string, entryType: string, amount: string) => ({ accountId, entryType, monetaryEntry: { type: 'FIAT', amount, currency: 'USD', rail: 'ACH' } });
  const batchOf = (keys: string[], atomic: boolean) =>
    JSON.stringify({ atomic, transactions: keys.map((idempotencyKey, i) => ({ idempotencyKey, lines: [line(cash, 'DEBIT', `${i + 1}.00`), line(sales, 'CREDIT', `${i + 1}.00`)] })) });
  const race = async (body: string) => {
    const answers = await Promise.all(
      Array.from({ length: RACERS }, (_, i) => fetch(`${servers[i % 2]!.url}/api/v1/transactions/batch`, { method: 'POST', headers: acme.headers, body })),
    );
    return Promise.all(answers.map(async (a) => ({ status: a.status, body: (await a.json()) as Record<string, any> })));
  };
  const balance = async (server: number) =>
    ((await (await fetch(`${servers[server]!.url}/api/v1/accounts/${cash}/balance`, { headers: acme.headers })).json()) as { amount: number }).amount;

  beforeAll(async () => {
    db = await freshDatabaseUrl();
    acme = await tenantOver(db);
    servers = await Promise.all([0, 1].map(() => spawnServe(db)));
    cash = await acme.account(servers[0]!.url, 'cash');
    sales = await acme.account(servers[1]!.url, 'sales', 'REVENUE');
  });
  afterAll(() => killAll());

  it(`one atomic batch sent ${RACERS} times through both processes at once: each posting made once; every 201 answers the same ids`, async () => {
    const keys = Array.from({ length: POSTINGS }, () => randomUUID());
    const results = await race(batchOf(keys, true));
    const summary = JSON.stringify(results.map((r) => `${r.status} ${r.body.code ?? ''}`));
    expect(results.filter((r) => r.status !== 201 && r.status !== 409), summary).toEqual([]);
    const won = results.filter((r) => r.status === 201);
    expect(won.length, summary).toBeGreaterThanOrEqual(1);
    for (const r of won) expect(r.body).toEqual(won[0]!.body);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
    // 1 + 2 + ... + 5, once, as both processes read it.
    expect([await balance(0), await balance(1)]).toEqual([15, 15]);
  });

  it(`one batch, not atomic, sent ${RACERS} times at once: each item 201 with its one id or 409 in flight; each posting once`, async () => {
    const keys = Array.from({ length: POSTINGS }, () => randomUUID());
    const results = await race(batchOf(keys, false));
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: RACERS }, () => 200));
    const ids = new Map<number, Set<string>>();
    for (const r of results) {
      for (const item of r.body.results as Array<{ index: number; status: number; transactionId?: string; error?: { code: string } }>) {
        if (item.status === 201) ids.set(item.index, (ids.get(item.index) ?? new Set()).add(item.transactionId!));
        else expect([item.status, item.error?.code]).toEqual([409, 'IDEMPOTENCY_IN_PROGRESS']);
      }
    }
    for (let i = 0; i < POSTINGS; i++) expect(ids.get(i)?.size, `item ${i}`).toBe(1);
    expect([await balance(0), await balance(1)]).toEqual([30, 30]);
    const stored = await sqlOn(db, "select count(*) as n from idempotency where tenant_id = (select id from tenants where public_id = ?) and endpoint = ?", [acme.tenantId, IDEMPOTENT_ENDPOINTS.stored('POST /api/v1/transactions')]);
    expect(Number((stored.rows[0] as { n: unknown }).n)).toBe(2 * POSTINGS);
  });
});
