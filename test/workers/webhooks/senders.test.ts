// Webhook senders in several processes on one database (issue 14): one sender at a time works a tenant (a lease: a
// session lock on PostgreSQL, a lock file beside the database on SQLite), so a receiver sees the tenant's events in
// commit order while three senders run and one of them is killed; every event arrives, at least once.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from '../../helpers/postgres.js';
import { testDb } from '../../helpers/server.js';
import { makeTenant } from './support.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { killAll, spawnLedger, spawnServe, type Spawned } from '../../helpers/spawn.js';
import { until } from '../../helpers/poll.js';
import { sqlOn } from '../../helpers/sql.js';

describe(`webhook senders in three processes on one ${TEST_ENGINE} database`, () => {
  let dir: string;
  let r: Receiver;
  let db: string;
  let caFile: string;
  let senders: Spawned[];
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-senders-'));
    r = await startReceiver();
    caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, r.cert);
    db = await testDb(dir);
    const env = { NODE_EXTRA_CA_CERTS: caFile };
    const served = await spawnServe(db, ['--webhook-allow-private'], { env });
    url = served.url;
    senders = [served];
    for (let i = 0; i < 2; i++) {
      const sender = spawnLedger(['--db', db, 'webhooks', 'run', '--webhook-allow-private'], { env });
      await sender.waitForOutput(/webhook sender running/, 15_000);
      senders.push(sender);
    }
  });

  afterAll(async () => {
    await killAll();
    await r?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const tenantWithWebhook = async (name: string) => {
    const tenant = await makeTenant({ dbPath: db, url }, name);
    await tenant.setWebhook(`${r.url}/${name}`);
    return tenant;
  };
  const arrivals = (path: string, posted: string[]) => {
    const order = new Map(posted.map((id, i) => [id, i]));
    return r.received.filter((x) => x.path === path).map((x) => order.get(JSON.parse(x.raw.toString()).data.transactionId as string)!);
  };

  it('one sender at a time works a tenant: a slow receiver gets each event once, in commit order, from three senders', async () => {
    const tenant = await tenantWithWebhook('slow');
    const respond = r.respond;
    r.respond = (request, res) => void setTimeout(() => respond(request, res), 40);
    try {
      const posted = await Promise.all(Array.from({ length: 20 }, () => tenant.pay()));
      // Posted at once: their commit order is the order their events were stored in.
      await until('every event at the receiver', () => new Set(arrivals('/slow', posted)).size === posted.length, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 300)); // a second sender's copy would arrive by now
      const seen = arrivals('/slow', posted);
      expect(seen).toHaveLength(posted.length);
      // In the order the events were committed (the outbox's sequence).
      const committed = await sqlOn<{ id: string }>(db, 'select id from outbox where tenant_id = (select id from tenants where public_id = ?) order by seq', [tenant.id]);
      const eventIds = r.received.filter((x) => x.path === '/slow').map((x) => String(x.headers['x-ledger-event-id']));
      expect(eventIds).toEqual(committed.rows.map((row) => row.id));
    } finally {
      r.respond = respond;
    }
  });

  it('delivers each event at least once and in commit order while one of the senders is killed', async () => {
    const tenant = await tenantWithWebhook('ordered');
    const posted: string[] = [];
    for (let i = 0; i < 30; i++) {
      posted.push(await tenant.pay());
      if (i === 12) {
        // A `webhooks run` dies mid-stream; whichever sender held the tenant, the others carry on.
        senders[1]!.kill();
        await senders[1]!.exited;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const seen = () => arrivals('/ordered', posted);
    await until('every event at the receiver', () => new Set(seen()).size === posted.length, 20_000);
    // In commit order: each event arrives first after every event before it (a crash may send one again later: at
    // least once, and the receiver knows it by its id).
    const firsts = [...new Set(seen())];
    expect(firsts, `received in this order: ${seen().join(',')}`).toEqual(posted.map((_, i) => i));
  });
});
