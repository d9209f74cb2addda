import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, fiat, makeAccount, post, useServerWithAccounts } from '../../helpers/server.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { until } from '../../helpers/poll.js';

describe('webhook delivery (smoke)', () => {
  let r: Receiver;
  beforeAll(async () => {
    r = await startReceiver();
  });
  afterAll(async () => {
    await r?.close();
  });
  const t = useServerWithAccounts(() => ({ webhooks: { allowPrivate: true, ca: r.cert, retry: { delaysMs: [200, 400], windowMs: 60_000 } } }));

  it('a posting arrives signed over the raw body', async () => {
    const c = client(t.url, t.tenant.apiKey.rawKey);
    const put = await c.request('PUT', '/api/v1/tenant/webhook', { body: { webhookUrl: `${r.url}/hook` } });
    expect(put.status, put.text).toBe(200);
    const a = await makeAccount(c);
    const b = await makeAccount(c, { type: 'LIABILITY' });
    const res = await post(c, [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')]);
    expect(res.status).toBe(201);
    await until('the delivery at the receiver', () => r.received.length > 0);
    const got = r.received[0]!;
    const expected = `sha256=${createHmac('sha256', Buffer.from(put.body.webhookSecret, 'ascii')).update(got.raw).digest('hex')}`;
    expect(got.headers['x-ledger-signature']).toBe(expected);
    const body = JSON.parse(got.raw.toString());
    expect(body.type).toBe('transaction.committed');
    expect(body.data.transactionId).toBe(res.body.transactionId);
  });
});
