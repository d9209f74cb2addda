// Reversals across processes (issue 30): two `ledger serve` processes on one PostgreSQL database. Twenty reversals of
// one transaction, each under its own Idempotency-Key and sent to both processes at once, reverse it once: one 201,
// every other answer 409 ALREADY_REVERSED naming the winner, never a 5xx. The processes share no memory, so what
// refuses the losers is the database (the reversal record's key is the original), not an in-process guard.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { tenantOver, type HttpTenant } from '../helpers/tenant.js';
import { killAll, spawnServe, type Spawned } from '../helpers/spawn.js';
import { sqlOn } from '../helpers/sql.js';

const TRANSACTIONS = 3;
const RACERS = 20;

describe('reversals raced across two servers on one PostgreSQL database', () => {
  let db: string;
  let servers: Array<Spawned & { url: string }>;
  let acme: HttpTenant;
  let cash: string;
  let deposits: string;

  const reverse = (server: number, transactionId: string) =>
    fetch(`${servers[server]!.url}/api/v1/transactions/${transactionId}/reverse`, {
      method: 'POST',
      headers: { ...acme.headers, 'idempotency-key': randomUUID() },
      body: '{}',
    });
  const get = async (server: number, path: string) => {
    const res = await fetch(`${servers[server]!.url}${path}`, { headers: acme.headers });
    expect(res.status, path).toBe(200);
    return (await res.json()) as Record<string, any>;
  };
  /** Both accounts' amounts, as each process reports them (they must agree). */
  const amounts = async () => {
    const seen = await Promise.all(servers.map(async (_, s) => [(await get(s, `/api/v1/accounts/${cash}/balance`)).amount, (await get(s, `/api/v1/accounts/${deposits}/balance`)).amount]));
    expect(seen[1], 'both processes report the same balances').toEqual(seen[0]);
    return seen[0]!;
  };

  beforeAll(async () => {
    db = await freshDatabaseUrl();
    acme = await tenantOver(db);
    servers = await Promise.all([0, 1].map(() => spawnServe(db)));
    cash = await acme.account(servers[0]!.url, 'cash');
    deposits = await acme.account(servers[1]!.url, 'deposits', 'REVENUE');
    // Something already on the books, so that "back to before" is not merely "back to zero".
    expect((await acme.transfer(servers[0]!.url, cash, deposits, { amount: '50.00' })).status).toBe(201);
  });
  afterAll(() => killAll());

  it(`${RACERS} reversals of one transaction, each under its own key, through both processes at once: one 201, the rest 409 naming it`, async () => {
    for (let n = 0; n < TRANSACTIONS; n++) {
      const before = await amounts();
      const posted = await acme.transfer(servers[n % 2]!.url, cash, deposits, { amount: `${n + 1}.25` });
      expect(posted.status).toBe(201);
      const original = ((await posted.json()) as { transactionId: string }).transactionId;

      const answers = await Promise.all(Array.from({ length: RACERS }, (_, i) => reverse(i % 2, original)));
      const results = await Promise.all(answers.map(async (a) => ({ status: a.status, body: (await a.json()) as Record<string, any> })));
      const summary = JSON.stringify(results.map((r) => `${r.status} ${r.body.code ?? ''}`));
      expect(results.filter((r) => r.status >= 500), summary).toEqual([]);
      const won = results.filter((r) => r.status === 201);
      expect(won, summary).toHaveLength(1);
      const winner = won[0]!.body;
      expect(winner.reversesTransactionId).toBe(original);
      for (const lost of results.filter((r) => r.status !== 201)) {
        expect(lost.status, summary).toBe(409);
        expect(lost.body).toMatchObject({ code: 'ALREADY_REVERSED', reversalTransactionId: winner.transactionId });
      }

      // Linked both ways, as both processes read it; the books are where they were before the original.
      for (const s of [0, 1]) {
        expect((await get(s, `/api/v1/transactions/${original}`)).reversedByTransactionId).toBe(winner.transactionId);
        expect((await get(s, `/api/v1/transactions/${winner.transactionId}`)).reversesTransactionId).toBe(original);
      }
      expect(await amounts()).toEqual(before);
    }

    // Under the ledger: one original and one reversal per round, beside the first posting; one link each.
    const stored = await sqlOn(db, 'select 1 from transactions where tenant_id = (select id from tenants where public_id = ?)', [acme.tenantId]);
    expect(stored.rows).toHaveLength(1 + 2 * TRANSACTIONS);
    const links = await sqlOn(db, 'select 1 from transaction_reversals where tenant_id = (select id from tenants where public_id = ?)', [acme.tenantId]);
    expect(links.rows).toHaveLength(TRANSACTIONS);
  });
});
