// Effective dates (issue 44, section 1) over HTTP, on both engines: a posting dated to the instant it belongs to
// (`effectiveAt`), within its bounds, shown on the transaction, its entries, its event and its audit record; without
// one, its commit time; each refusal a 400 that writes nothing; a replay with another effectiveAt a changed body.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cli, fiat, post, useServerWithAccounts } from '../helpers/server.js';
import { expectError, expectValidation } from '../helpers/expect.js';
import { parseNdjson } from '../helpers/audit.js';
import { sqlOn } from '../helpers/sql.js';
import { openSchema } from '../../src/store/migrate.js';
import { datedAtCommit } from '../../src/store/migrations/0027_effective_dates.js';
import { AGENT_PATH, createRule, newKey } from '../helpers/agents.js';

describe('effectiveAt on postings', () => {
  const t = useServerWithAccounts({ accounts: { cash: 'ASSET', sales: 'REVENUE' } });
  const lines = (amount: string) => [fiat(t.accounts.cash, 'DEBIT', amount), fiat(t.accounts.sales, 'CREDIT', amount)];
  const posting = (amount: string, effectiveAt?: unknown, key = randomUUID()) =>
    t.client.post('/api/v1/transactions', { lines: lines(amount), ...(effectiveAt === undefined ? {} : { effectiveAt }) }, { 'idempotency-key': key });
  const transaction = async (id: string) => (await t.client.get(`/api/v1/transactions/${id}`)).body;
  const entriesOf = async (id: string) => ((await t.client.get(`/api/v1/accounts/${t.accounts.cash}/entries?limit=200`)).body.entries as any[]).filter((e) => e.transactionId === id);
  const count = async () => ((await t.client.get(`/api/v1/accounts/${t.accounts.cash}/entries?limit=200`)).body.entries as any[]).length;

  it('dates a posting to the instant given, shown on the transaction, its entries, its event and its audit record', async () => {
    const res = await posting('10.00', '2026-06-30T23:59:59.999+00:00');
    expect(res.status, res.text).toBe(201);
    const { transactionId } = res.body;
    const got = await transaction(transactionId);
    expect(got.effectiveAt).toBe('2026-06-30T23:59:59.999Z');
    expect(got.lines.map((l: any) => l.effectiveAt)).toEqual(['2026-06-30T23:59:59.999Z', '2026-06-30T23:59:59.999Z']);
    expect(Date.parse(got.createdAt)).toBeGreaterThan(Date.parse(got.effectiveAt));
    const entries = await entriesOf(transactionId);
    expect(entries.map((e) => e.effectiveAt)).toEqual(['2026-06-30T23:59:59.999Z']);
    expect(entries[0].createdAt).toBe(got.createdAt);
    const statement = (await t.client.get(`/api/v1/accounts/${t.accounts.cash}/statement?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z`)).body;
    expect(statement.movements.find((m: any) => m.transactionId === transactionId)).toMatchObject({ occurredAt: got.createdAt, effectiveAt: '2026-06-30T23:59:59.999Z' });

    const events = (await t.client.get('/api/v1/events?limit=200')).body.items as any[];
    expect(events.find((e) => e.data?.transactionId === transactionId)?.data.effectiveAt).toBe('2026-06-30T23:59:59.999Z');
    const audit = parseNdjson((await t.client.get('/api/v1/compliance/audit-export?from=2000-01-01&to=2100-01-01')).text);
    expect(audit.find((r) => r.action === 'POST_TRANSACTION' && r.payload.transactionId === transactionId)?.payload.effectiveAt).toBe('2026-06-30T23:59:59.999Z');
  });

  it('without one, or a few minutes ahead (clocks disagree), is its commit time', async () => {
    const plain = await posting('1.00');
    expect(plain.status, plain.text).toBe(201);
    const a = await transaction(plain.body.transactionId);
    expect(a.effectiveAt).toBe(a.createdAt);
    expect((await entriesOf(plain.body.transactionId))[0].effectiveAt).toBe(a.createdAt);

    const ahead = await posting('1.00', new Date(Date.now() + 2 * 60_000).toISOString());
    expect(ahead.status, ahead.text).toBe(201);
    const b = await transaction(ahead.body.transactionId);
    expect(b.effectiveAt).toBe(b.createdAt);
  });

  it('refuses a future date, one before 2000 and one that is no instant, writing nothing', async () => {
    const before = await count();
    expectValidation(await posting('1.00', new Date(Date.now() + 10 * 60_000).toISOString()), { detail: { path: 'effectiveAt', message: /commit time/ } });
    expectValidation(await posting('1.00', '1999-12-31T23:59:59.999Z'), { detail: { path: 'effectiveAt', message: /2000-01-01/ } });
    expectValidation(await posting('1.00', '30 June'), { detail: { path: 'effectiveAt' } });
    expectValidation(await posting('1.00', 1_751_327_999_999), { detail: { path: 'effectiveAt' } });
    expect(await count()).toBe(before);
  });

  it('is part of the body its key was used with: the same answers again, another effectiveAt is refused', async () => {
    const key = randomUUID();
    const first = await posting('2.00', '2026-07-01T00:00:00Z', key);
    expect(first.status, first.text).toBe(201);
    const again = await posting('2.00', '2026-07-01T00:00:00.000Z', key);
    expect(again.status, again.text).toBe(201);
    expect(again.body.transactionId).toBe(first.body.transactionId);
    expectError(await posting('2.00', '2026-07-02T00:00:00Z', key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectError(await posting('2.00', undefined, key), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('is taken by each item of a batch, and a future one refuses an atomic batch at its item', async () => {
    const items = [
      { idempotencyKey: randomUUID(), lines: lines('3.00'), effectiveAt: '2026-05-31T12:00:00Z' },
      { idempotencyKey: randomUUID(), lines: lines('4.00') },
    ];
    const res = await t.client.post('/api/v1/transactions/batch', { transactions: items });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((r: any) => r.status)).toEqual([201, 201]);
    const [dated, plain] = await Promise.all(res.body.results.map((r: any) => transaction(r.transactionId)));
    expect(dated.effectiveAt).toBe('2026-05-31T12:00:00.000Z');
    expect(plain.effectiveAt).toBe(plain.createdAt);

    const before = await count();
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const atomic = await t.client.post('/api/v1/transactions/batch', {
      atomic: true,
      transactions: [{ idempotencyKey: randomUUID(), lines: lines('5.00') }, { idempotencyKey: randomUUID(), lines: lines('6.00'), effectiveAt: future }],
    });
    expectValidation(atomic, { detail: { path: 'transactions[1].effectiveAt' } });
    expect(await count()).toBe(before);
  });

  it('a transaction written before effective dates is dated at its commit by the migration (0027)', async () => {
    const res = await posting('7.00');
    expect(res.status, res.text).toBe(201);
    const { transactionId } = res.body;
    const { createdAt } = await transaction(transactionId);
    // Its texts as they were written before 0027 (none back-dated then), then the migration's step.
    const undated = (column: string) => `replace(${column}, ',"effectiveAt":"' || coalesce(effective_at, created_at) || '"', '')`;
    // (A line's is before its accountId, the transaction's at the end: each the same text.)
    await sqlOn(t.dbPath, `UPDATE transactions SET document = ${undated('document')}, effective_at = NULL`);
    await sqlOn(t.dbPath, `UPDATE entries SET view = ${undated('view')}, effective_at = NULL`);
    const { rows } = await sqlOn<{ document: string }>(t.dbPath, 'SELECT document FROM transactions');
    expect(rows.filter((r) => r.document.includes('effectiveAt'))).toEqual([]);
    const schema = (await openSchema(t.dbPath, { migrate: false }))!;
    try {
      await datedAtCommit(schema.kysely);
    } finally {
      await schema.close();
    }
    const migrated = await transaction(transactionId);
    expect(migrated.effectiveAt).toBe(createdAt);
    expect(migrated.lines.map((l: any) => Object.keys(l).slice(-4))).toEqual(Array(2).fill(['createdAt', 'effectiveAt', 'accountId', 'bankStatementLineId']));
    expect(migrated.lines.map((l: any) => l.effectiveAt)).toEqual([createdAt, createdAt]);
    expect((await entriesOf(transactionId))[0]).toMatchObject({ createdAt, effectiveAt: createdAt, bankStatementLineId: null });
    const listed = (await t.client.get('/api/v1/transactions?limit=200')).body.items as any[];
    expect(listed.length).toBeGreaterThan(1);
    for (const x of listed) expect(x.effectiveAt).toBe(x.createdAt);
  });

  it("is taken by an agent's transaction, posted at once or held and approved later", async () => {
    const agent = await newKey(t.client, t.url, ['AGENTS_EXECUTE']);
    await createRule(t.client, { type: 'REQUIRE_HUMAN_APPROVAL_ABOVE', amount: '50', agentKeyPrefix: agent.prefix });
    const execute = (amount: string, effectiveAt: string) =>
      agent.c.request('POST', AGENT_PATH, { body: { lines: lines(amount), effectiveAt }, headers: { 'x-agent-session-id': 'month-end', 'idempotency-key': randomUUID() } });
    const posted = await execute('10.00', '2026-06-30T10:00:00Z');
    expect(posted.status, posted.text).toBe(201);
    expect((await transaction(posted.body.transactionId)).effectiveAt).toBe('2026-06-30T10:00:00.000Z');
    const held = await execute('80.00', '2026-06-30T11:00:00Z');
    expect(held.status, held.text).toBe(202);
    const approved = await t.client.post(`${AGENT_PATH}/${held.body.transactionId}/approve`);
    expect(approved.status, approved.text).toBe(200);
    const got = await transaction(held.body.transactionId);
    expect(got.effectiveAt).toBe('2026-06-30T11:00:00.000Z');
    expect(Date.parse(got.createdAt)).toBeGreaterThan(Date.parse(got.effectiveAt));
    expectValidation(await execute('1.00', new Date(Date.now() + 3_600_000).toISOString()), { detail: { path: 'effectiveAt' } });
  });

  it("dates a reversal to its own instant, or its commit's, never the original's", async () => {
    const original = await posting('9.00', '2026-06-15T00:00:00Z');
    expect(original.status, original.text).toBe(201);
    const reverse = (id: string, body: Record<string, unknown>, key = randomUUID()) => t.client.post(`/api/v1/transactions/${id}/reverse`, body, { 'idempotency-key': key });
    const plain = await reverse(original.body.transactionId, {});
    expect(plain.status, plain.text).toBe(201);
    const a = await transaction(plain.body.transactionId);
    expect(a.effectiveAt).toBe(a.createdAt);

    const other = await posting('9.50', '2026-06-15T00:00:00Z');
    const key = randomUUID();
    const dated = await reverse(other.body.transactionId, { effectiveAt: '2026-06-20T00:00:00Z' }, key);
    expect(dated.status, dated.text).toBe(201);
    expect((await transaction(dated.body.transactionId)).effectiveAt).toBe('2026-06-20T00:00:00.000Z');
    expect((await reverse(other.body.transactionId, { effectiveAt: '2026-06-20T00:00:00.000Z' }, key)).body.transactionId).toBe(dated.body.transactionId);
    expectError(await reverse(other.body.transactionId, { effectiveAt: '2026-06-21T00:00:00Z' }, key), 422, 'IDEMPOTENCY_KEY_REUSED');
    expectValidation(await reverse((await posting('9.75')).body.transactionId, { effectiveAt: '1999-01-01T00:00:00Z' }), { detail: { path: 'effectiveAt' } });
  });

  it("dates a hold's capture to the instant given; its replay with another is refused", async () => {
    const hold = await t.client.post('/api/v1/holds', { lines: lines('12.00') }, { 'idempotency-key': randomUUID() });
    expect(hold.status, hold.text).toBe(201);
    const key = randomUUID();
    const capture = (body: Record<string, unknown>) => t.client.post(`/api/v1/holds/${hold.body.holdId}/capture`, body, { 'idempotency-key': key });
    const captured = await capture({ effectiveAt: '2026-06-30T18:00:00Z' });
    expect(captured.status, captured.text).toBe(200);
    expect((await transaction(captured.body.transactionId)).effectiveAt).toBe('2026-06-30T18:00:00.000Z');
    expect((await capture({ effectiveAt: '2026-06-30T18:00:00.000Z' })).status).toBe(200);
    expectError(await capture({}), 422, 'IDEMPOTENCY_KEY_REUSED');
  });

  it("is what bank matching's AMOUNT_DATE rule compares with the line's booking date", async () => {
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const backdated = await posting('33.33', `${day(20)}T12:00:00Z`);
    expect(backdated.status, backdated.text).toBe(201);
    // Today's line first: by createdAt it would take the entry.
    const csv = `bookingDate,amount,reference\n${day(0)},33.33,WIRE-2\n${day(20)},33.33,WIRE-1\n`;
    const imported = await t.client.request('POST', `/api/v1/accounts/${t.accounts.cash}/bank-statements`, { rawBody: csv, headers: { 'content-type': 'text/csv' } });
    expect(imported.status, imported.text).toBe(201);
    const found = (await t.client.get(`/api/v1/bank-statements/${imported.body.statementId}/lines`)).body.items as any[];
    // Booked today, the day it was posted: not matched; booked 20 days ago, the day it is effective: matched.
    expect(found.map((l) => [l.status, l.matchRule])).toEqual([['UNMATCHED', null], ['MATCHED', 'AMOUNT_DATE']]);
    expect((await entriesOf(backdated.body.transactionId))[0].bankStatementLineId).toBe(found[1].lineId);
  });

  it('is not taken where a posting is not dated: a hold', async () => {
    const res = await t.client.post('/api/v1/holds', { lines: lines('1.00'), effectiveAt: '2026-01-01T00:00:00Z' }, { 'idempotency-key': randomUUID() });
    expectValidation(res, { detail: { path: 'effectiveAt' } });
    expect((await post(t.client, lines('1.00'))).status).toBe(201);
  });
});

describe('the balance by effective instant (basis=effective)', () => {
  const t = useServerWithAccounts({ accounts: { bank: 'ASSET', income: 'REVENUE' } });

  it('equals the sum of the entries effective by each instant, across hours, days, months and years, beside the posted basis', async () => {
    const { bank, income } = t.accounts;
    let seed = 44;
    const next = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    const now = Date.now();
    const fixed = ['2024-12-31T23:59:59.999Z', '2025-01-01T00:00:00.000Z', '2026-06-30T23:00:00.000Z', '2026-06-30T23:30:00.000Z', '2026-07-01T00:00:00.000Z'];
    const postings = Array.from({ length: 40 }, (_, i) => {
      const cents = 1 + next(99_999);
      const inward = next(3) !== 0;
      const kind = next(4);
      const effectiveAt = kind === 0 ? undefined : kind === 1 ? fixed[next(fixed.length)] : new Date(now - next(30 * 24) * 3_600_000 - next(3_600_000)).toISOString();
      const amount = (cents / 100).toFixed(2);
      return {
        idempotencyKey: `eff-${i}-${randomUUID()}`,
        lines: [fiat(bank, inward ? 'DEBIT' : 'CREDIT', amount), fiat(income, inward ? 'CREDIT' : 'DEBIT', amount)],
        ...(effectiveAt === undefined ? {} : { effectiveAt }),
        signed: inward ? cents : -cents,
      };
    });
    // In a few batches, so that later commits back-date across what is committed already.
    const posted: Array<{ signed: number; createdAt: string; effectiveAt: string }> = [];
    for (let i = 0; i < postings.length; i += 8) {
      const part = postings.slice(i, i + 8);
      const res = await t.client.post('/api/v1/transactions/batch', { transactions: part.map(({ signed: _, ...item }) => item) });
      expect(res.status, res.text).toBe(200);
      for (const [j, r] of (res.body.results as any[]).entries()) {
        expect(r.status, JSON.stringify(r)).toBe(201);
        const got = (await t.client.get(`/api/v1/transactions/${r.transactionId}`)).body;
        posted.push({ signed: part[j]!.signed, createdAt: got.createdAt, effectiveAt: got.effectiveAt });
      }
    }
    const sumBy = (at: string, key: 'createdAt' | 'effectiveAt') => posted.filter((p) => p[key] <= at).reduce((s, p) => s + p.signed, 0);
    const cents = (amount: number) => Math.round(amount * 100);
    const instants = new Set<string>(['2000-01-01T00:00:00.000Z', new Date().toISOString()]);
    for (const p of posted) {
      for (const iso of [p.effectiveAt, p.createdAt]) {
        const ms = Date.parse(iso);
        for (const d of [-1, 0, 1, -3_600_000, 3_600_000]) instants.add(new Date(ms + d).toISOString());
      }
    }
    for (const at of instants) {
      const effective = await t.client.get(`/api/v1/accounts/${bank}/balance?asOf=${encodeURIComponent(at)}&basis=effective`);
      expect(effective.status, effective.text).toBe(200);
      expect(cents(effective.body.amount), `effective at ${at}`).toBe(sumBy(at, 'effectiveAt'));
      const byCommit = await t.client.get(`/api/v1/accounts/${bank}/balance?asOf=${encodeURIComponent(at)}&basis=posted`);
      expect(cents(byCommit.body.amount), `posted at ${at}`).toBe(sumBy(at, 'createdAt'));
    }
    // Now, both bases agree with the current balance (nothing is dated ahead).
    const current = (await t.client.get(`/api/v1/accounts/${bank}/balance`)).body.amount;
    expect(cents(current)).toBe(sumBy('9999', 'effectiveAt'));
    expect(cents((await t.client.get(`/api/v1/accounts/${bank}/balance?basis=effective`)).body.amount)).toBe(cents(current));
  });

  it('ledger accounts balance --basis answers what the endpoint does, and refuses an unknown basis with exit 2', async () => {
    const at = '2026-07-01T00:00:00.000Z';
    const http = (await t.client.get(`/api/v1/accounts/${t.accounts.bank}/balance?asOf=${at}&basis=effective`)).body;
    const run = await cli(['--db', t.dbPath, 'accounts', 'balance', t.accounts.bank, '--tenant', t.tenant.tenantId, '--as-of', at, '--basis', 'effective', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect({ ...JSON.parse(run.stdout), computedAt: null }).toEqual({ ...http, computedAt: null });
    const refused = await cli(['--db', t.dbPath, 'accounts', 'balance', t.accounts.bank, '--tenant', t.tenant.tenantId, '--basis', 'booked']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/basis/);
  });

  it('refuses an unknown basis', async () => {
    expectValidation(await t.client.get(`/api/v1/accounts/${t.accounts.bank}/balance?basis=booked`), { detail: { path: 'basis' } });
  });
});
