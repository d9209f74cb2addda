// Several sweepers on one PostgreSQL database (issue 14): three `ledger serve`, each with its settlement expiry
// sweeper, race for the same due settlements. Each expiry is written once: one UNMATCHED, one audit record, one event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { cli } from '../helpers/server.js';
import { tenantOver, type HttpTenant } from '../helpers/tenant.js';
import { killAll, spawnServe, type Spawned } from '../helpers/spawn.js';
import { sqlOn } from '../helpers/sql.js';
import { until } from '../helpers/poll.js';
import { EVENT_TYPES } from '../../src/store/sql/storedNames.js';

const SERVERS = 3;
const SETTLEMENTS = 24;

describe('three sweepers on one PostgreSQL database', () => {
  let db: string;
  let servers: Array<Spawned & { url: string }>;
  let acme: HttpTenant;

  beforeAll(async () => {
    db = await freshDatabaseUrl();
    acme = await tenantOver(db);
    servers = await Promise.all(Array.from({ length: SERVERS }, () => spawnServe(db, ['--settlement-ttl', '1'])));
  });

  afterAll(() => killAll());

  it('expires each settlement once: one UNMATCHED, one audit record, one settlement.unmatched event', async () => {
    const accountId = await acme.account(servers[0]!.url, 'receiving');
    const { tenantId, headers } = acme;
    // Registered on every process at once, so that they fall due together and every sweeper finds them due.
    const ids = await Promise.all(
      Array.from({ length: SETTLEMENTS }, async (_, i) => {
        const created = await fetch(`${servers[i % SERVERS]!.url}/api/v1/settlements`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': `sweep-${i}` },
          body: JSON.stringify({
            accountId,
            expectedToken: 'USDC',
            expectedAmount: String(i + 1),
            expectedWalletAddress: '0x0000000000000000000000000000000000000007',
            expectedChainId: 'EVM',
          }),
        });
        expect(created.status).toBe(201);
        return ((await created.json()) as { settlementId: string }).settlementId;
      }),
    );

    await until(
      'every settlement swept',
      async () => {
        const pending = await sqlOn(db, "select 1 from settlements where tenant_id = (select id from tenants where public_id = ?) and status = 'PENDING'", [tenantId]);
        return pending.rows.length === 0;
      },
      20_000,
      100,
    );
    // Time for a late sweeper to write a second expiry, if one could.
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    const unmatched = await sqlOn<{ id: string }>(db, "select id from settlements where tenant_id = (select id from tenants where public_id = ?) and status = 'UNMATCHED'", [tenantId]);
    expect(new Set(unmatched.rows.map((r) => r.id))).toEqual(new Set(ids));
    const audits = await sqlOn<{ payload: string }>(db, "select payload from audit_log where tenant_id = (select id from tenants where public_id = ?) and action = 'SETTLEMENT_UNMATCHED'", [tenantId]);
    expect(audits.rows.map((r) => (JSON.parse(r.payload) as { settlementId: string }).settlementId).sort()).toEqual([...ids].sort());
    const events = await sqlOn<{ payload: string }>(db, "select payload from outbox where tenant_id = (select id from tenants where public_id = ?) and type = ?", [tenantId, EVENT_TYPES.stored('settlement.unmatched')]);
    expect(events.rows.map((r) => (JSON.parse(r.payload) as { settlementId: string }).settlementId).sort()).toEqual([...ids].sort());

    const verify = await cli(['--db', db, 'audit', 'verify', '--tenant', tenantId]);
    expect(verify.code, verify.stderr).toBe(0);
  });
});
