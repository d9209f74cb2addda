// Several `ledger serve` processes on one PostgreSQL database (issue 14): every acknowledged posting is there once,
// kept balances equal their entries, commit times and sequences never go backwards along a tenant's commit order,
// each audit chain verifies, and one Idempotency-Key sent to every process at once posts once, with no 5xx.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { cli } from '../helpers/server.js';
import { tenantOver, type HttpTenant } from '../helpers/tenant.js';
import { killAll, spawnServe, type Spawned } from '../helpers/spawn.js';
import { sqlOn } from '../helpers/sql.js';

const SERVERS = 3;
const CLIENTS = 24;
const POSTINGS_PER_CLIENT = 12;

describe('three servers on one PostgreSQL database', () => {
  let db: string;
  let servers: Array<Spawned & { url: string }>;
  let acme: HttpTenant;
  let tenantId: string;
  let headers: Record<string, string>;
  let hot: string[];
  let cold: string[];

  const post = (url: string, key: string, from: string, to: string, amount = '1.00') => acme.transfer(url, from, to, { amount, key });

  /** Kept balances equal their entries, commit times and sequences agree along the commit order, the chain verifies. */
  const expectWhole = async (tenant: string) => {
    // Every kept balance is the sum of its entries, and the last entry's running balance.
    const drift = await sqlOn(
      db,
      `select b.account_id from balances b
       where b.tenant_id = (select id from tenants where public_id = ?) and (b.balance <> (
         select coalesce(sum(case when e.entry_type = 'DEBIT' then e.amount else -e.amount end), 0)
         from entries e where e.tenant_id = b.tenant_id and e.account_id = b.account_id and e.asset = b.asset)
       or b.balance <> (select e.balance_after from entries e where e.tenant_id = b.tenant_id and e.account_id = b.account_id
                        and e.asset = b.asset order by e.seq desc limit 1))`,
      [tenant],
    );
    expect(drift.rows).toEqual([]);

    // Commit times never go backwards along the commit order (sequence), whichever process committed.
    for (const [table, time] of [['transactions', 'created_at'], ['audit_log', 'occurred_at'], ['outbox', 'created_at']]) {
      const backwards = await sqlOn(
        db,
        `select t.seq from ${table} t join ${table} u on u.tenant_id = t.tenant_id and u.seq > t.seq and u.${time} < t.${time}
         where t.tenant_id = (select id from tenants where public_id = ?) limit 1`,
        [tenant],
      );
      expect(backwards.rows, table).toEqual([]);
    }

    const verify = await cli(['--db', db, 'audit', 'verify', '--tenant', tenant]);
    expect(verify.code, verify.stderr).toBe(0);
  };

  beforeAll(async () => {
    db = await freshDatabaseUrl();
    acme = await tenantOver(db);
    tenantId = acme.tenantId;
    headers = acme.headers;
    servers = await Promise.all(Array.from({ length: SERVERS }, () => spawnServe(db)));
    const account = (i: number) => acme.account(servers[i % SERVERS]!.url, `a${i}`);
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

    const stored = await sqlOn<{ id: string }>(db, 'select id from transactions where tenant_id = (select id from tenants where public_id = ?)', [tenantId]);
    expect(new Set(stored.rows.map((r) => r.id))).toEqual(new Set(acknowledged));
    expect(stored.rows).toHaveLength(acknowledged.length);

    await expectWhole(tenantId);

    // The balance endpoint agrees on every process, now and as of now.
    const asOf = encodeURIComponent(new Date(Date.now() + 1000).toISOString());
    for (const [i, account] of [...hot, ...cold].entries()) {
      const url = servers[i % SERVERS]!.url;
      const now = (await (await fetch(`${url}/api/v1/accounts/${account}/balance`, { headers })).json()) as { amount: number };
      const then = (await (await fetch(`${url}/api/v1/accounts/${account}/balance?asOf=${asOf}`, { headers })).json()) as { amount: number };
      expect(then.amount).toBe(now.amount);
    }
  });

  it('tenants write in parallel from every process, each tenant whole and in order', async () => {
    const tenants = await Promise.all(
      ['North', 'South', 'East'].map(async (name) => {
        const tenant = await tenantOver(db, name);
        const [from, to] = await Promise.all(['from', 'to'].map((accountName, i) => tenant.account(servers[i]!.url, accountName)));
        return { tenant, from: from!, to: to! };
      }),
    );
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        const tenant = tenants[client % tenants.length]!;
        for (let n = 0; n < POSTINGS_PER_CLIENT / 2; n++) {
          const res = await tenant.tenant.transfer(servers[(client + n) % SERVERS]!.url, tenant.from, tenant.to);
          if (res.status !== 201) failures.push(`${res.status} ${await res.text()}`);
        }
      }),
    );
    expect(failures).toEqual([]);
    for (const { tenant } of tenants) {
      const count = await sqlOn(db, 'select 1 from transactions where tenant_id = (select id from tenants where public_id = ?)', [tenant.tenantId]);
      expect(count.rows).toHaveLength((CLIENTS / tenants.length) * (POSTINGS_PER_CLIENT / 2));
      await expectWhole(tenant.tenantId);
    }
  });

  it('a key revoked through one process (or the CLI) is refused by every process on its next request; a cursor minted by one is accepted by another', async () => {
    const created = await cli(['--db', db, 'keys', 'create', '--tenant', tenantId, '--scopes', 'ACCOUNTS_READ', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout) as { id: string; rawKey: string };
    const read = (url: string, rawKey: string) => fetch(`${url}/api/v1/accounts?limit=1`, { headers: { authorization: `Bearer ${rawKey}` } });
    for (const server of servers) expect((await read(server.url, key.rawKey)).status).toBe(200);
    const revoked = await fetch(`${servers[0]!.url}/api/v1/api-keys/${key.id}`, { method: 'DELETE', headers });
    expect(revoked.status).toBeLessThan(300);
    for (const server of servers) expect((await read(server.url, key.rawKey)).status).toBe(401);

    const another = JSON.parse((await cli(['--db', db, 'keys', 'create', '--tenant', tenantId, '--scopes', 'ACCOUNTS_READ', '--json'])).stdout) as { id: string; rawKey: string };
    expect((await read(servers[1]!.url, another.rawKey)).status).toBe(200);
    expect((await cli(['--db', db, 'keys', 'revoke', another.id, '--tenant', tenantId])).code).toBe(0);
    for (const server of servers) expect((await read(server.url, another.rawKey)).status).toBe(401);

    // The first page from one process, the next from another.
    const first = (await (await read(servers[0]!.url, headers.authorization!.slice('Bearer '.length))).json()) as { items: Array<{ id: string }>; nextCursor: string };
    const next = await fetch(`${servers[2]!.url}/api/v1/accounts?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`, { headers });
    expect(next.status).toBe(200);
    const page = (await next.json()) as { items: Array<{ id: string }> };
    expect(page.items).toHaveLength(1);
    expect(page.items[0]!.id).not.toBe(first.items[0]!.id);
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
      const stored = await sqlOn(db, 'select 1 from idempotency where tenant_id = (select id from tenants where public_id = ?) and key = ?', [tenantId, key]);
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
    const stored = await sqlOn<{ id: string }>(db, 'select id from transactions where tenant_id = (select id from tenants where public_id = ?)', [tenantId]);
    const ids = new Set(stored.rows.map((r) => r.id));
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
    const verify = await cli(['--db', db, 'audit', 'verify', '--tenant', tenantId]);
    expect(verify.code, verify.stderr).toBe(0);
  });
});
