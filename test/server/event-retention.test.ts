// --event-retention (issue 18): events older than the retention time are pruned, never one the webhook sender has not
// finished with; reading after a pruned event is 410 EVENT_PRUNED, on the feed and on the stream.
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation } from '../helpers/expect.js';
import { openStream } from '../helpers/sse.js';
import { until } from '../helpers/poll.js';

const DAY_MS = 24 * 3_600_000;

describe('--event-retention', () => {
  let c: Client;
  let held: Client;
  let now = Date.parse('2030-01-01T00:00:00.000Z');
  const clock = { now: () => new Date(now) };
  const accounts = new Map<Client, [string, string]>();

  const postOne = async (who: Client) => {
    const [a, b] = accounts.get(who)!;
    const res = await post(who, [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')]);
    expect(res.status, res.text).toBe(201);
    return res.body.transactionId as string;
  };
  const feed = async (who: Client) => (await who.get('/api/v1/events?limit=200')).body.items as any[];

  const t = useServerWithAccounts({ clock, eventRetentionDays: 1, eventPruneIntervalMs: 50, webhooks: { allowPrivate: true } });
  beforeAll(async () => {
    c = t.client;
    held = client(t.url, (await createTenant(t.dbPath, 'Held')).apiKey.rawKey);
    for (const who of [c, held]) accounts.set(who, [await makeAccount(who, { name: 'a' }), await makeAccount(who, { name: 'b', type: 'LIABILITY' })]);
    // The held tenant's webhook points where nothing answers: its events stay undelivered, being retried.
    const put = await held.request('PUT', '/api/v1/tenant/webhook', { body: { webhookUrl: 'https://127.0.0.1:9/hook' } });
    expect(put.status, put.text).toBe(200);
  });

  it('prunes what is past the retention time; 410 after a pruned event or cursor, 400 for an id never seen', async () => {
    const old = [await postOne(c), await postOne(c), await postOne(c)];
    const heldOld = [await postOne(held), await postOne(held)];
    const before = await feed(c);
    expect(before.map((e) => e.data.transactionId)).toEqual(old);
    // A cursor taken just before the retention time passes (cursors last a day): its place is pruned after.
    now += DAY_MS - 3_600_000;
    const cursor = (await c.get('/api/v1/events?limit=1')).body.nextCursor as string;
    now += 2 * 3_600_000;
    const recent = [await postOne(c), await postOne(c)];
    await until('the old events pruned', async () => (await feed(c)).length === 2, 10_000);
    expect((await feed(c)).map((e) => e.data.transactionId)).toEqual(recent);

    for (const gone of before) expectError(await c.get(`/api/v1/events?after=${gone.id}`), 410, 'EVENT_PRUNED');
    expectError(await c.get(`/api/v1/events?cursor=${encodeURIComponent(cursor)}`), 410, 'EVENT_PRUNED');
    const stream = await openStream(`${t.url}/api/v1/events/stream`, t.tenant.apiKey.rawKey, { 'last-event-id': before[0].id });
    expect(stream.status).toBe(410);
    expect(JSON.parse(stream.text!).code).toBe('EVENT_PRUNED');
    // An id made later than anything pruned was never an event here.
    expectValidation(await c.get('/api/v1/events?after=7fffffff-ffff-7fff-bfff-ffffffffffff'), { detail: { path: 'after' } });

    // The held tenant's events wait for its webhook: none is pruned, however old.
    expect((await feed(held)).map((e) => e.data.transactionId)).toEqual(heldOld);
  });
});
