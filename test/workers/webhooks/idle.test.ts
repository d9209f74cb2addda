// The webhook sender reads tenants only when something was committed (or a retry comes due): an idle server does not
// ask every tenant on every tick, and a commit by either the writer thread or the server's own connection is still
// delivered at once.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { until } from '../../helpers/poll.js';
import { collect } from '../../helpers/rows.js';
import { makeTenant } from './support.js';

describe('webhook sender at rest', () => {
  let t: TestServer | undefined;
  let r: Receiver | undefined;
  afterEach(async () => {
    await t?.stop();
    await r?.close();
  });

  const deliversAndRests = async (options: Parameters<typeof startTestServer>[0]) => {
    r = await startReceiver();
    t = await startTestServer({ ...options, webhooks: { allowPrivate: true, ca: r.cert } });
    const tenants = [await makeTenant(t, 'Rest A'), await makeTenant(t, 'Rest B')];
    for (const [i, tn] of tenants.entries()) await tn.setWebhook(`${r.url}/rest-${i}`);
    for (const tn of tenants) await tn.pay('1.00');
    await until('two events received', () => r!.received.length >= 2);

    // Both deliveries recorded as DELIVERED: from here on nothing is committed, so the sender should rest.
    const store = t.server.ledger.store;
    const delivered = async (tenantId: string) => (await collect(store.webhookDeliveriesPage(tenantId, null, 10))).map((d) => d.status);
    await until('both deliveries recorded', async () => (await Promise.all(tenants.map((tn) => delivered(tn.id)))).every((s) => s.join() === 'DELIVERED'));

    // Counts how often the sender lists the tenants' webhooks while nothing is committed.
    const list = store.webhooks.bind(store);
    let reads = 0;
    store.webhooks = () => {
      reads++;
      return list();
    };
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Polling every 100 ms would read about 15 times; at rest the sender reads at most once: after the last DELIVERED
    // record's commit, or its 5 s safety pass.
    expect(reads).toBeLessThanOrEqual(1);

    await tenants[1]!.pay('2.00');
    await until('the third event received', () => r!.received.length >= 3);
    expect(r.received.at(-1)!.path).toBe('/rest-1');
  };

  it('commits by the writer thread', () => deliversAndRests({}));

  it('commits on the server\'s own connection (the local writer)', () => deliversAndRests({ clock: { now: () => new Date() } }));
});
