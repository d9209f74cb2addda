// Webhook delivery — black-box against a real local HTTPS receiver, per spec, contract and the issue 4 decisions (Delivery).
import { createHmac } from 'node:crypto';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, onchain, post, useServerWithAccounts } from '../../helpers/server.js';
import { startReceiver, type Received, type Receiver } from '../../helpers/receiver.js';
import { ISO_MS, UUID } from '../../helpers/expect.js';
import { until } from '../../helpers/poll.js';
import { makeTenant, routed, sign, type Handler, type Tenant } from './support.js';

const RETRY = { delaysMs: [200, 400], windowMs: 60_000 };
const WALLET = '0x0000000000000000000000000000000000000001';


interface Delivery {
  request: Received;
  method: string | undefined;
  body: any;
  eventId: string;
  type: string;
  attempt: number;
}

function deliveriesAt(r: Receiver, path: string): Delivery[] {
  return r.received
    .filter((x) => x.path.split('?')[0] === path)
    .map((request) => {
      let body: any;
      try {
        body = JSON.parse(request.raw.toString('utf8'));
      } catch {
        body = undefined;
      }
      return {
        request,
        method: (request as Received & { method?: string }).method,
        body,
        eventId: String(request.headers['x-ledger-event-id']),
        type: String(request.headers['x-ledger-event-type']),
        attempt: Number(request.headers['x-ledger-delivery-attempt']),
      };
    });
}

let seq = 0;
const newKey = () => `wh-test-${process.pid}-${Date.now()}-${seq++}`;
let hashSeq = 0;
const newTxHash = () => `0x${(++hashSeq + 0x5000).toString(16).padStart(64, '0')}`;

describe('webhook delivery (allowPrivate, receiver CA, fast retries)', () => {
  // One receiver, told apart by path: two receivers from the helper share the subject CN=localhost, and a `ca` holding
  // both certificates makes TLS find only one of them, so a second receiver could not be trusted at the same time.
  let r: Receiver;
  let routes: Map<string, Handler>;

  beforeAll(async () => {
    r = await startReceiver();
    routes = routed(r);
  });
  afterAll(async () => {
    await r?.close();
  });
  const t = useServerWithAccounts(() => ({ settlementTtlSeconds: 3, webhooks: { allowPrivate: true, ca: r.cert, retry: RETRY } }));

  it('a posting arrives as a POST with the contract body and headers; events committed before the first PUT are not delivered', async () => {
    const tn = await makeTenant(t, 'Basic');
    const before = await tn.pay('0.50', { phase: 'before' });
    const path = '/basic';
    const secret = await tn.setWebhook(`${r.url}${path}?src=ledger`);
    const txId = await tn.pay('2.25', { phase: 'after' });
    await until('the first delivery at /basic', () => deliveriesAt(r, path).length >= 1);
    const [d] = deliveriesAt(r, path);
    // body
    expect(Object.keys(d!.body).sort()).toEqual(['createdAt', 'data', 'id', 'sentAt', 'type']);
    expect(d!.body.id).toMatch(UUID);
    expect(d!.body.type).toBe('transaction.committed');
    expect(d!.body.createdAt).toMatch(ISO_MS);
    expect(d!.body.sentAt).toMatch(ISO_MS);
    expect(Date.parse(d!.body.sentAt)).toBeGreaterThanOrEqual(Date.parse(d!.body.createdAt));
    const tx = await tn.c.get(`/api/v1/transactions/${txId}`);
    expect(tx.status, tx.text).toBe(200);
    expect(d!.body.data).toEqual(tx.body);
    expect(d!.body.data.transactionId).toBe(txId);
    expect(d!.body.data.metadata).toEqual({ phase: 'after' });
    // request line and headers
    expect(d!.method).toBe('POST');
    expect(d!.request.path).toBe(`${path}?src=ledger`);
    expect(String(d!.request.headers['content-type'])).toMatch(/^application\/json/);
    expect(d!.request.headers['x-ledger-event-id']).toBe(d!.body.id);
    expect(d!.request.headers['x-ledger-event-type']).toBe('transaction.committed');
    expect(d!.request.headers['x-ledger-delivery-attempt']).toBe('1');
    expect(d!.request.headers['x-ledger-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(d!.request.headers['x-ledger-signature']).toBe(sign(secret, d!.request.raw));
    // the pre-PUT posting never shows up: post one more and wait for it, nothing else arrives
    const third = await tn.pay('3.00', { phase: 'after-2' });
    await until('the third posting at /basic', () => deliveriesAt(r, path).some((x) => x.body?.data?.transactionId === third));
    const seen = deliveriesAt(r, path).map((x) => x.body?.data?.transactionId);
    expect(seen).not.toContain(before);
    expect([...new Set(seen)]).toEqual([txId, third]);
  });

  it('the signature verifies over the raw bytes only: a tampered body, a re-serialized body or a hex-decoded key do not', async () => {
    const tn = await makeTenant(t, 'Tamper');
    const path = '/tamper';
    const secret = await tn.setWebhook(`${r.url}${path}`);
    await tn.pay('7.77', { note: 'héllo ✓' });
    await until('the delivery at /tamper', () => deliveriesAt(r, path).length >= 1);
    const d = deliveriesAt(r, path)[0]!;
    const header = d.request.headers['x-ledger-signature'];
    expect(header).toBe(sign(secret, d.request.raw));
    // the digest is over bytes: the UTF-8 in the body matters
    expect(d.body.data.metadata.note).toBe('héllo ✓');
    // one byte changed
    const tampered = Buffer.from(d.request.raw);
    const at = tampered.indexOf('7.77');
    expect(at).toBeGreaterThan(0);
    tampered[at] = '8'.charCodeAt(0);
    expect(sign(secret, tampered)).not.toBe(header);
    // a different serialization of the same JSON
    const pretty = JSON.stringify(d.body, null, 2);
    expect(sign(secret, pretty)).not.toBe(header);
    // the secret hex-decoded is not the key
    expect(`sha256=${createHmac('sha256', Buffer.from(secret, 'hex')).update(d.request.raw).digest('hex')}`).not.toBe(header);
    // a wrong secret
    expect(sign('0'.repeat(64), d.request.raw)).not.toBe(header);
  });

  it('a receiver answering 500 twice gets the event on the third attempt: attempts 1, 2, 3, same event id, fresh sentAt', async () => {
    const tn = await makeTenant(t, 'Retry');
    const path = '/retry';
    let calls = 0;
    routes.set(path, (_req, res) => {
      calls++;
      if (calls <= 2) res.writeHead(500).end('boom');
      else res.writeHead(200).end('ok');
    });
    const secret = await tn.setWebhook(`${r.url}${path}`);
    const started = Date.now();
    const txId = await tn.pay('5.00');
    await until('three attempts at /retry', () => deliveriesAt(r, path).length >= 3, 10_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    const ds = deliveriesAt(r, path).slice(0, 3);
    expect(ds.map((d) => d.attempt)).toEqual([1, 2, 3]);
    expect(new Set(ds.map((d) => d.eventId)).size).toBe(1);
    expect(new Set(ds.map((d) => d.body.id))).toEqual(new Set([ds[0]!.eventId]));
    for (const d of ds) {
      expect(d.body.data.transactionId).toBe(txId);
      expect(d.body.createdAt).toBe(ds[0]!.body.createdAt);
      expect(d.request.headers['x-ledger-signature']).toBe(sign(secret, d.request.raw));
    }
    expect(new Set(ds.map((d) => d.body.sentAt)).size).toBe(3);
    for (let i = 1; i < 3; i++) expect(Date.parse(ds[i]!.body.sentAt)).toBeGreaterThan(Date.parse(ds[i - 1]!.body.sentAt));
    // delivered: no further attempt for that event
    const more = await tn.pay('5.01');
    await until('the next posting at /retry', () => deliveriesAt(r, path).some((d) => d.body?.data?.transactionId === more));
    expect(deliveriesAt(r, path).filter((d) => d.eventId === ds[0]!.eventId)).toHaveLength(3);
  });

  it('per tenant commit order holds across retries: event 2 is not sent before event 1 succeeded', async () => {
    const tn = await makeTenant(t, 'Order');
    const path = '/order';
    let firstFailures = 0;
    routes.set(path, (req, res) => {
      const body = JSON.parse(req.raw.toString());
      if (body.data?.metadata?.seq === '1' && firstFailures < 2) {
        firstFailures++;
        res.writeHead(500).end('not yet');
      } else res.writeHead(200).end('ok');
    });
    await tn.setWebhook(`${r.url}${path}`);
    const ids = [await tn.pay('1.00', { seq: '1' }), await tn.pay('2.00', { seq: '2' }), await tn.pay('3.00', { seq: '3' })];
    await until('the three events at /order', () => new Set(deliveriesAt(r, path).map((d) => d.body?.data?.transactionId)).size >= 3, 15_000);
    const ds = deliveriesAt(r, path);
    const seqs = ds.map((d) => d.body.data.metadata.seq);
    // event 1 is tried three times before anything else arrives
    expect(seqs.slice(0, 3)).toEqual(['1', '1', '1']);
    expect(ds.slice(0, 3).map((d) => d.attempt)).toEqual([1, 2, 3]);
    // first successful deliveries in commit order
    const firstSuccess: string[] = [];
    for (const d of ds) if (!firstSuccess.includes(d.body.data.transactionId)) firstSuccess.push(d.body.data.transactionId);
    expect(firstSuccess).toEqual(ids);
    const firstOf2 = ds.findIndex((d) => d.body.data.metadata.seq === '2');
    const successOf1 = ds.findIndex((d) => d.body.data.metadata.seq === '1' && d.attempt === 3);
    expect(successOf1).toBeGreaterThanOrEqual(0);
    expect(firstOf2).toBeGreaterThan(successOf1);
    expect(ds[firstOf2]!.request.at).toBeGreaterThanOrEqual(ds[successOf1]!.request.at);
    // the events' createdAt follow commit order too
    const created = ids.map((id) => ds.find((d) => d.body.data.transactionId === id)!.body.createdAt);
    expect([...created].sort()).toEqual(created);
  });

  it('tenants are independent: a tenant whose receiver keeps failing does not hold up another tenant', async () => {
    const blocked = await makeTenant(t, 'Blocked');
    const free = await makeTenant(t, 'Free');
    let blocking = true;
    let drained = false;
    routes.set('/blocked', (_req, res) => {
      if (blocking) res.writeHead(503).end('down');
      else {
        drained = true;
        res.writeHead(200).end('ok');
      }
    });
    await blocked.setWebhook(`${r.url}/blocked`);
    await free.setWebhook(`${r.url}/free`);
    await blocked.pay('1.00');
    await until('two failed attempts at /blocked', () => deliveriesAt(r, '/blocked').length >= 2);
    const txId = await free.pay('1.00');
    await until('the free tenant\'s posting at /free', () => deliveriesAt(r, '/free').some((d) => d.body?.data?.transactionId === txId));
    blocking = false; // let the blocked tenant drain
    await until('the blocked tenant to drain', () => drained);
  });

  it('a PUT while a delivery is being retried: the pending retry goes to the new URL, signed only with the new secret', async () => {
    const tn = await makeTenant(t, 'Rotate');
    routes.set('/rot-old', (_req, res) => res.writeHead(500).end('old is failing'));
    const oldSecret = await tn.setWebhook(`${r.url}/rot-old`);
    const txId = await tn.pay('9.00');
    await until('the first attempt at /rot-old', () => deliveriesAt(r, '/rot-old').length >= 1);
    const old = deliveriesAt(r, '/rot-old')[0]!;
    expect(old.request.headers['x-ledger-signature']).toBe(sign(oldSecret, old.request.raw));
    const newSecret = await tn.setWebhook(`${r.url}/rot-new`);
    expect(newSecret).not.toBe(oldSecret);
    await until('the pending retry at /rot-new', () => deliveriesAt(r, '/rot-new').length >= 1, 5_000);
    const moved = deliveriesAt(r, '/rot-new')[0]!;
    expect(moved.eventId).toBe(old.eventId);
    expect(moved.body.data.transactionId).toBe(txId);
    expect(moved.request.headers['x-ledger-signature']).toBe(sign(newSecret, moved.request.raw));
    expect(moved.request.headers['x-ledger-signature']).not.toBe(sign(oldSecret, moved.request.raw));
    // later events: new URL, new secret only; the old URL gets nothing more
    const oldCount = deliveriesAt(r, '/rot-old').length;
    const next = await tn.pay('9.50');
    await until('the next posting at /rot-new', () => deliveriesAt(r, '/rot-new').some((d) => d.body?.data?.transactionId === next));
    const d = deliveriesAt(r, '/rot-new').find((x) => x.body.data.transactionId === next)!;
    expect(d.request.headers['x-ledger-signature']).toBe(sign(newSecret, d.request.raw));
    expect(d.request.headers['x-ledger-signature']).not.toBe(sign(oldSecret, d.request.raw));
    expect(deliveriesAt(r, '/rot-old').length).toBe(oldCount);
  });

  it('a second PUT with no event pending: the next delivery verifies with the newest secret only', async () => {
    const tn = await makeTenant(t, 'Rotate2');
    const s1 = await tn.setWebhook(`${r.url}/rot2`);
    const first = await tn.pay('1.00');
    await until('the first posting at /rot2', () => deliveriesAt(r, '/rot2').some((d) => d.body?.data?.transactionId === first));
    const s2 = await tn.setWebhook(`${r.url}/rot2`);
    const second = await tn.pay('2.00');
    await until('the second posting at /rot2', () => deliveriesAt(r, '/rot2').some((d) => d.body?.data?.transactionId === second));
    const d1 = deliveriesAt(r, '/rot2').find((x) => x.body.data.transactionId === first)!;
    const d2 = deliveriesAt(r, '/rot2').find((x) => x.body.data.transactionId === second)!;
    expect(d1.request.headers['x-ledger-signature']).toBe(sign(s1, d1.request.raw));
    expect(d2.request.headers['x-ledger-signature']).toBe(sign(s2, d2.request.raw));
    expect(d2.request.headers['x-ledger-signature']).not.toBe(sign(s1, d2.request.raw));
  });

  it('settlement.matched carries the settlement object as data', async () => {
    const tn = await makeTenant(t, 'Matched');
    const path = '/matched';
    const secret = await tn.setWebhook(`${r.url}${path}`);
    const reg = await tn.c.post(
      '/api/v1/settlements',
      { accountId: tn.a, expectedToken: 'USDC', expectedAmount: '10', expectedWalletAddress: WALLET, expectedChainId: 'EVM' },
      { 'idempotency-key': newKey() },
    );
    expect(reg.status, reg.text).toBe(201);
    const extra = { chainId: 'EVM', walletAddress: WALLET, txHash: newTxHash(), blockNumber: 77 };
    const res = await post(tn.c, [onchain(tn.a, 'DEBIT', '10', 'USDC', extra), onchain(tn.b, 'CREDIT', '10', 'USDC', extra)]);
    expect(res.status, res.text).toBe(201);
    const s = await tn.c.get(`/api/v1/settlements/${reg.body.settlementId}`);
    expect(s.body.status).toBe('SETTLED');
    await until('settlement.matched at /matched', () => deliveriesAt(r, path).some((d) => d.type === 'settlement.matched'));
    const d = deliveriesAt(r, path).find((x) => x.type === 'settlement.matched')!;
    expect(d.body.type).toBe('settlement.matched');
    expect(Object.keys(d.body).sort()).toEqual(['createdAt', 'data', 'id', 'sentAt', 'type']);
    expect(d.body.data).toEqual(s.body);
    expect(d.body.data.matchedTransactionId).toBe(res.body.transactionId);
    expect(d.request.headers['x-ledger-signature']).toBe(sign(secret, d.request.raw));
    // the posting's own event comes too, and each event once
    await until('the matching posting\'s transaction.committed at /matched', () => deliveriesAt(r, path).some((x) => x.type === 'transaction.committed' && x.body?.data?.transactionId === res.body.transactionId));
    expect(deliveriesAt(r, path).filter((x) => x.type === 'settlement.matched')).toHaveLength(1);
  });

  it('a reversal arrives as its transaction.committed (with reversesTransactionId), then transaction.reversed, in commit order, signed', async () => {
    const tn = await makeTenant(t, 'Reversed');
    const path = '/reversed';
    const secret = await tn.setWebhook(`${r.url}${path}`);
    const original = await tn.pay('6.00');
    const res = await tn.c.request('POST', `/api/v1/transactions/${original}/reverse`, { body: { description: 'charged twice' }, headers: { 'idempotency-key': newKey() } });
    expect(res.status, res.text).toBe(201);
    const reversalId = res.body.transactionId as string;
    // A posting after the reversal: its event must come after both of the reversal's.
    const after = await tn.pay('1.00');
    await until('the posting after the reversal at /reversed', () => deliveriesAt(r, path).some((d) => d.body?.data?.transactionId === after));

    const ds = deliveriesAt(r, path);
    // Each event once (this receiver answers 200), the original's, the reversal's two, then the later posting's.
    expect(ds.map((d) => [d.type, d.body.data.transactionId])).toEqual([
      ['transaction.committed', original],
      ['transaction.committed', reversalId],
      ['transaction.reversed', original],
      ['transaction.committed', after],
    ]);
    const [, committed, reversed] = ds;
    // The reversal's committed event carries the transaction as GET shows it: the link to the original, and not reversed itself.
    expect(committed!.body.data).toEqual((await tn.c.get(`/api/v1/transactions/${reversalId}`)).body);
    expect(committed!.body.data.reversesTransactionId).toBe(original);
    expect(committed!.body.data.reversedByTransactionId).toBeNull();
    expect(committed!.body.data.lines.map((l: any) => [l.accountId, l.type, l.description])).toEqual([
      [tn.a, 'CREDIT', 'charged twice'],
      [tn.b, 'DEBIT', 'charged twice'],
    ]);
    expect(Object.keys(reversed!.body).sort()).toEqual(['createdAt', 'data', 'id', 'sentAt', 'type']);
    expect(reversed!.body.data).toEqual({ transactionId: original, reversalTransactionId: reversalId });
    for (const d of ds) {
      expect(d.method).toBe('POST');
      expect(d.attempt).toBe(1);
      expect(d.request.headers['x-ledger-event-id']).toBe(d.body.id);
      expect(d.request.headers['x-ledger-event-type']).toBe(d.body.type);
      expect(d.request.headers['x-ledger-signature']).toBe(sign(secret, d.request.raw));
    }
    // Written in one commit: the two events of the reversal are dated alike or in order, never backwards.
    const created = ds.map((d) => d.body.createdAt as string);
    expect([...created].sort()).toEqual(created);
    expect(new Set(ds.map((d) => d.eventId)).size).toBe(ds.length);
  });

  it('settlement.unmatched carries the settlement object as data (server TTL 3 s)', async () => {
    const tn = await makeTenant(t, 'Unmatched');
    const path = '/unmatched';
    const secret = await tn.setWebhook(`${r.url}${path}`);
    const reg = await tn.c.post(
      '/api/v1/settlements',
      { accountId: tn.a, expectedToken: 'USDT', expectedAmount: '42', expectedWalletAddress: WALLET, expectedChainId: 'EVM' },
      { 'idempotency-key': newKey() },
    );
    expect(reg.status, reg.text).toBe(201);
    await until('settlement.unmatched at /unmatched', () => deliveriesAt(r, path).some((d) => d.type === 'settlement.unmatched'), 20_000);
    const d = deliveriesAt(r, path).find((x) => x.type === 'settlement.unmatched')!;
    const s = await tn.c.get(`/api/v1/settlements/${reg.body.settlementId}`);
    expect(s.body.status).toBe('UNMATCHED');
    expect(d.body.type).toBe('settlement.unmatched');
    expect(d.body.data).toEqual(s.body);
    expect(d.body.data.settlementId).toBe(reg.body.settlementId);
    expect(d.request.headers['x-ledger-signature']).toBe(sign(secret, d.request.raw));
  });

  it('redirects are not followed: each 3xx is a failed attempt, retried, and the target never gets a request', async () => {
    const tn = await makeTenant(t, 'Redirect');
    const path = '/redir';
    const codes = [302, 307, 301, 308];
    let n = 0;
    routes.set(path, (_req, res) => {
      const code = codes[n++];
      if (code) res.writeHead(code, { location: `${r.url}/redirect-target` }).end();
      else res.writeHead(200).end('ok');
    });
    routes.set('/redirect-target', (_req, res) => res.writeHead(200).end('should not be here'));
    await tn.setWebhook(`${r.url}${path}`);
    await tn.pay('4.00');
    await until('five attempts at /redir', () => deliveriesAt(r, path).length >= 5, 15_000);
    const ds = deliveriesAt(r, path);
    expect(ds.slice(0, 5).map((d) => d.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(ds.map((d) => d.eventId)).size).toBe(1);
    expect(r.received.filter((x) => x.path.startsWith('/redirect-target'))).toHaveLength(0);
  });
});

describe('webhook delivery: the address is checked at connect time (no allowPrivate, receiver CA)', () => {
  let r: Receiver;
  let trap: TcpServer;
  const connections: Socket[] = [];
  let rebound = false;
  const lookups: Array<{ host: string; rebound: boolean }> = [];

  beforeAll(async () => {
    r = await startReceiver();
    // a bare TCP listener beside the receiver: any connection at all to it is counted
    trap = createTcpServer((socket) => {
      connections.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await r?.close();
    await new Promise<void>((resolve) => trap?.close(() => resolve()));
  });
  const t = useServerWithAccounts(() => ({
    webhooks: {
      ca: r.cert,
      retry: RETRY,
      resolve: async (host) => {
        lookups.push({ host, rebound });
        if (host.replace(/\.$/, '').toLowerCase() === 'rebind.test' && rebound) return ['127.0.0.1'];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    },
  }));

  it('a name that resolves to 127.0.0.1 only after the PUT is refused at delivery without any connection, and retried', async () => {
    const tn = await makeTenant(t, 'Rebind');
    const trapPort = (trap.address() as AddressInfo).port;
    // the name does not resolve at PUT time: accepted
    await tn.setWebhook(`https://rebind.test:${r.port}/rebind`);
    const tn2 = await makeTenant(t, 'Rebind2');
    await tn2.setWebhook(`https://rebind.test:${trapPort}/rebind`);
    rebound = true;
    await tn.pay('1.00');
    await tn2.pay('1.00');
    // two attempts each looked the name up again and got 127.0.0.1
    await until('four rebound lookups of rebind.test', () => lookups.filter((l) => l.rebound && l.host.startsWith('rebind.test')).length >= 4, 15_000);
    expect(r.received).toHaveLength(0);
    expect(connections).toHaveLength(0);
    // the event is still pending and has been attempted
    const list = await cli(['--db', t.dbPath, 'webhooks', 'deliveries', '--tenant', tn.id, '--json']);
    expect(list.code, list.stderr).toBe(0);
    const items = JSON.parse(list.stdout).items;
    expect(items).toHaveLength(1);
    expect(items[0].status).toBe('PENDING');
    expect(items[0].attempts).toBeGreaterThanOrEqual(1);
    expect(items[0].lastStatusCode).toBeNull();
    expect(r.received).toHaveLength(0);
    expect(connections).toHaveLength(0);
  });
});
