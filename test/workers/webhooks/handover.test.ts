// A tenant handed from one sender to another (PostgreSQL's per-tenant leases, workers/webhooks/sender.ts): the sender
// that takes the lease reads the next event from what the last holder recorded, not from a list of webhooks it read
// before that record committed. Seen in CI once as an event delivered twice by three senders on one PostgreSQL; here
// the stale list is forced, so the hand-over is shown every time, in one process (the real store, writer and receiver).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.js';
import { Ledger } from '../../../src/core/ledger.js';
import { WebhookSender } from '../../../src/workers/webhooks/sender.js';
import type { UrlPolicy } from '../../../src/workers/webhooks/urlPolicy.js';
import type { Leases } from '../../../src/core/ports.js';
import type { Webhook } from '../../../src/core/webhook.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { until } from '../../helpers/poll.js';
import { localLedger } from './support.js';

/** Leases per tenant between the senders of one test, as PostgreSQL's advisory locks are between processes. */
function sharedLeases() {
  const holders = new Map<string, object>();
  const held = (name: string) => holders.has(name);
  const leases = (): Leases => {
    const me = {};
    return {
      tryHold: async (name) => (holders.get(name) ?? holders.set(name, me).get(name)) === me,
      holds: (name) => holders.get(name) === me,
      release: async (name) => void (holders.get(name) === me && holders.delete(name)),
      close: async () => {
        for (const [name, holder] of holders) if (holder === me) holders.delete(name);
      },
    };
  };
  return { leases, held };
}

// The sender is the same on both engines; its store here is SQLite's, so the suite runs once.
describe('a tenant handed over between webhook senders', () => {
  let r: Receiver;
  let store: SqliteStore;
  let ledger: Ledger;
  let close: () => Promise<void>;
  const policy: UrlPolicy = { allowPrivate: true, denyDomains: [], resolve: async () => ['127.0.0.1'] };

  beforeAll(async () => {
    r = await startReceiver();
    ({ store, ledger, close } = await localLedger('ledger-wh-handover-'));
  });
  afterAll(async () => {
    await close?.();
    await r?.close();
  });

  it('the sender taking the lease does not send again what the last holder delivered, though its list of webhooks predates that', async () => {
    const created = await ledger.tenants.create('Handover', { type: 'HUMAN', keyId: 'cli' });
    const tenantId = created.tenantId;
    const actor = { type: 'HUMAN' as const, keyId: created.apiKey.id };
    const account = async (name: string, type: 'ASSET' | 'LIABILITY') => (await ledger.accounts.create(tenantId, { name, currency: 'USD', type }, actor)).id;
    const [a, b] = [await account('cash', 'ASSET'), await account('deposits', 'LIABILITY')];
    await ledger.webhooks.set(tenantId, actor, `${r.url}/handover`);
    const listedBefore: Webhook[] = (await store.webhooks()).filter((w) => w.tenantId === tenantId);
    const { leases, held } = sharedLeases();
    const options = { policy, ca: r.cert, pollIntervalMs: 20 };

    const first = new WebhookSender(ledger, () => {}, { ...options, leases: leases() });
    try {
      await ledger.transactions.post(tenantId, actor, 'handover-1', {
        lines: [
          { accountId: a, entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'ACH' } },
          { accountId: b, entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'ACH' } },
        ],
      });
      // delivered, recorded, and the tenant handed over (nothing left to send)
      await until('the event delivered and recorded', async () => (await store.webhook(tenantId))!.deliveredSeq > listedBefore[0]!.deliveredSeq, 10_000);
      await until('the lease let go', () => !held(`webhooks:${tenantId}`), 10_000);
    } finally {
      await first.close();
    }
    expect(r.received.filter((x) => x.path === '/handover')).toHaveLength(1);

    // The second sender's list of webhooks was read before the first sender's record committed.
    const staleStore = new Proxy(store, {
      get: (target, key) => (key === 'webhooks' ? async () => listedBefore : (Reflect.get(target, key) as unknown)),
    });
    const staleLedger = Object.assign(Object.create(ledger) as Ledger, { store: staleStore });
    const second = new WebhookSender(staleLedger, () => {}, { ...options, leases: leases() });
    try {
      await new Promise((resolve) => setTimeout(resolve, 500)); // 25 polls
    } finally {
      await second.close();
    }
    expect(r.received.filter((x) => x.path === '/handover'), 'the event once, not again from the second sender').toHaveLength(1);
  });
});
