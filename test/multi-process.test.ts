// Several `ledger serve` processes on one PostgreSQL database (issue 14): every acknowledged posting is there once,
// kept balances equal their entries, commit times and sequences never go backwards along a tenant's commit order,
// each audit chain verifies, and one Idempotency-Key sent to every process at once posts once, with no 5xx.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, TEST_ENGINE } from './helpers/postgres.js';
import { cli, createTenant } from './helpers/server.js';
import { killAll, spawnServe, type Spawned } from './helpers/spawn.js';
import { sqlOn } from './helpers/sql.js';

const SERVERS = 3;
const CLIENTS = 24;
const POSTINGS_PER_CLIENT = 12;

describe.skipIf(TEST_ENGINE !== 'postgres')('three servers on one PostgreSQL database', () => {
  let db: string;
  let servers: Array<Spawned & { url: string }>;
  let tenantId: string;
  let headers: Record<string, string>;
  let hot: string[];
  let cold: string[];

  const post = (url: string, key: string, from: string, to: string, amount = '1.00') =>
    fetch(`${url}/api/v1/transactions`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': key },
      body: JSON.stringify({
        lines: [
          { accountId: from, entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount, currency: 'USD', rail: 'ACH' } },
          { accountId: to, entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount, currency: 'USD', rail: 'ACH' } },
        ],
      }),
    });

  beforeAll(async () => {
    db = await freshDatabaseUrl();
    const tenant = await createTenant(db);
    tenantId = tenant.tenantId;
    headers = { authorization: `Bearer ${tenant.apiKey.rawKey}`, 'content-type': 'application/json' };
    servers = await Promise.all(Array.from({ length: SERVERS }, () => spawnServe(db)));
    const account = async (i: number) => {
      const res = await fetch(`${servers[i % SERVERS]!.url}/api/v1/accounts`, { method: 'POST', headers, body: JSON.stringify({ name: `a${i}`, currency: 'USD', type: 'ASSET' }) });
      return ((await res.json()) as { id: string }).id;
    };
    hot = await Promise.all([0, 1].map(account));
    cold = await Promise.all(Array.from({ length: 12 }, (_, i) => account(i + 2)));
  });

  afterAll(() => killAll());

  it('posts from every process at once: each acknowledged posting once, balances equal their entries, order kept, chain whole', async () => {
    const acknowledged: string[] = [];
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let n = 0; n < POSTINGS_PER_CLIENT; n++) {
          // Half the postings move the two hot accounts; the rest pair a hot account with a cold one.
          const from = hot[n % 2]!;
          const to = n % 2 === 0 ? hot[1 - (n % 2)]! : cold[(client + n) % cold.length]!;
          const res = await post(servers[(client + n) % SERVERS]!.url, randomUUID(), from, to);
          if (res.status === 201) acknowledged.push(((await res.json()) as { transactionId: string }).transactionId);
          else failures.push(`${res.status} ${await res.text()}`);
        }
      }),
    );
    expect(failures).toEqual([]);
    expect(acknowledged).toHaveLength(CLIENTS * POSTINGS_PER_CLIENT);

    const stored = await sqlOn<{ id: string }>(db, 'select id from transactions where tenant_id = ?', [tenantId]);
    expect(new Set(stored.rows.map((r) => r.id))).toEqual(new Set(acknowledged));
    expect(stored.rows).toHaveLength(acknowledged.length);

    // Every kept balance is the sum of its entries, and the last entry's running balance.
    const drift = await sqlOn(
      db,
      `select b.account_id from balances b
       where b.tenant_id = ? and b.balance <> (
         select coalesce(sum(case when e.entry_type = 'DEBIT' then e.amount else -e.amount end), 0)
         from entries e where e.tenant_id = b.tenant_id and e.account_id = b.account_id and e.asset = b.asset)
       or b.balance <> (select e.balance_after from entries e where e.tenant_id = b.tenant_id and e.account_id = b.account_id
                        and e.asset = b.asset order by e.seq desc limit 1)`,
      [tenantId],
    );
    expect(drift.rows).toEqual([]);

    // Commit times never go backwards along the commit order (sequence), whichever process committed.
    const backwards = await sqlOn(
      db,
      `select t.seq from transactions t join transactions u on u.tenant_id = t.tenant_id and u.seq > t.seq and u.created_at < t.created_at
       where t.tenant_id = ? limit 1`,
      [tenantId],
    );
    expect(backwards.rows).toEqual([]);

    // The balance endpoint agrees on every process, now and as of now.
    const asOf = encodeURIComponent(new Date(Date.now() + 1000).toISOString());
    for (const [i, account] of [...hot, ...cold].entries()) {
      const url = servers[i % SERVERS]!.url;
      const now = (await (await fetch(`${url}/api/v1/accounts/${account}/balance`, { headers })).json()) as { amount: number };
      const then = (await (await fetch(`${url}/api/v1/accounts/${account}/balance?asOf=${asOf}`, { headers })).json()) as { amount: number };
      expect(then.amount).toBe(now.amount);
    }

    const verify = await cli(['--db', db, 'audit', 'verify', '--tenant', tenantId]);
    expect(verify.code, verify.stderr).toBe(0);
  });

  it('one Idempotency-Key sent to every process at once posts once: the others replay its answer or get 409, never a 5xx', async () => {
    for (let round = 0; round < 5; round++) {
      const key = randomUUID();
      const answers = await Promise.all(servers.map((s) => post(s.url, key, hot[0]!, cold[round]!, '3.00')));
      const statuses = answers.map((a) => a.status);
      const bodies = await Promise.all(answers.map((a) => a.json() as Promise<{ transactionId?: string; code?: string }>));
      expect(statuses.every((s) => s === 201 || s === 409), JSON.stringify({ statuses, bodies })).toBe(true);
      const ids = new Set(bodies.flatMap((b) => (b.transactionId ? [b.transactionId] : [])));
      expect(ids.size).toBe(1);
      for (const [i, body] of bodies.entries()) if (statuses[i] === 409) expect(body.code).toBe('IDEMPOTENCY_IN_PROGRESS');
      const stored = await sqlOn(db, 'select 1 from idempotency where tenant_id = ? and key = ?', [tenantId, key]);
      expect(stored.rows).toHaveLength(1);
    }
  });

  it('a process killed under load loses nothing it acknowledged; the others keep serving', async () => {
    const victim = servers[2]!;
    const acknowledged: string[] = [];
    const survivorErrors: number[] = [];
    let stop = false;
    const load = Array.from({ length: 12 }, async (_, client) => {
      const server = servers[client % SERVERS]!;
      while (!stop) {
        const res = await post(server.url, randomUUID(), hot[0]!, cold[client % cold.length]!).catch(() => null);
        if (res?.status === 201) acknowledged.push(((await res.json()) as { transactionId: string }).transactionId);
        else if (server !== victim) survivorErrors.push(res?.status ?? 0);
        else await new Promise((r) => setTimeout(r, 20)); // the killed process refuses connections
      }
    });
    await new Promise((r) => setTimeout(r, 400));
    victim.kill();
    await victim.exited;
    await new Promise((r) => setTimeout(r, 400));
    stop = true;
    await Promise.all(load);
    expect(survivorErrors).toEqual([]);
    // The survivors answer.
    for (const s of servers.slice(0, 2)) expect((await post(s.url, randomUUID(), hot[1]!, cold[0]!)).status).toBe(201);
    const stored = await sqlOn<{ id: string }>(db, 'select id from transactions where tenant_id = ?', [tenantId]);
    const ids = new Set(stored.rows.map((r) => r.id));
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
    const verify = await cli(['--db', db, 'audit', 'verify', '--tenant', tenantId]);
    expect(verify.code, verify.stderr).toBe(0);
  });
});
