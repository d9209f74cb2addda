// GET /api/v1/events/stream (issue 18): Server-Sent Events from new events, or after Last-Event-ID or after; a
// resumed stream misses nothing; heartbeats; tenant isolation; a stalled client is dropped; shutdown ends streams.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, post, startTestServer, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, UUID } from '../helpers/expect.js';
import { openStream, type SseStream } from '../helpers/sse.js';
import { until } from '../helpers/poll.js';

describe('GET /api/v1/events/stream', () => {
  let c: Client;
  let rawKey: string;
  let cash: string;
  let deposits: string;
  const streams: SseStream[] = [];

  const postOne = async (amount = '1.00') => {
    const res = await post(c, [fiat(cash, 'DEBIT', amount), fiat(deposits, 'CREDIT', amount)]);
    expect(res.status, res.text).toBe(201);
    return res.body.transactionId as string;
  };
  const open = async (query = '', headers: Record<string, string> = {}, key = rawKey) => {
    const stream = await openStream(`${t.url}/api/v1/events/stream${query}`, key, headers);
    streams.push(stream);
    return stream;
  };
  const feed = async () => (await c.get('/api/v1/events?limit=200')).body.items as any[];

  const t = useServerWithAccounts({ eventStream: { heartbeatMs: 300 }, accounts: { cash: 'ASSET', deposits: 'LIABILITY' } });
  beforeAll(() => {
    rawKey = t.tenant.apiKey.rawKey;
    ({ client: c, accounts: { cash, deposits } } = t);
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
  });

  it('sends new events only, each as id, event and data (the event as the feed gives it)', async () => {
    await postOne();
    const stream = await open();
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const id = await postOne('2.00');
    const [frame] = await stream.waitForEvents(1);
    expect(frame!.id).toMatch(UUID);
    expect(frame!.event).toBe('transaction.committed');
    const event = JSON.parse(frame!.data!);
    expect(event.data.transactionId).toBe(id);
    const listed = (await feed()).find((e) => e.id === frame!.id);
    expect(event).toEqual(listed);
    expect(stream.events()).toHaveLength(1);
  });

  it('a comment heartbeat comes while nothing is committed', async () => {
    const stream = await open();
    await until('a heartbeat', () => stream.frames.some((f) => f.comment === 'heartbeat'), 5_000);
  });

  it('after=<id> replays from there; Last-Event-ID wins over after', async () => {
    const all = await feed();
    const fromAfter = await open(`?after=${all[0].id}`);
    const replayed = await fromAfter.waitForEvents(all.length - 1);
    expect(replayed.map((f) => f.id)).toEqual(all.slice(1).map((e) => e.id));
    const fromHeader = await open(`?after=${all[0].id}`, { 'last-event-id': all.at(-1).id });
    const next = await postOne('3.00');
    const [frame] = await fromHeader.waitForEvents(1);
    expect(JSON.parse(frame!.data!).data.transactionId).toBe(next);
  });

  it('resumes after a killed connection with Last-Event-ID: nothing missed, nothing repeated', async () => {
    const first = await open();
    const before = [await postOne('4.00'), await postOne('5.00')];
    const got = await first.waitForEvents(2);
    first.close();
    const missed = [await postOne('6.00'), await postOne('7.00'), await postOne('8.00')];
    const resumed = await open('', { 'last-event-id': got[1]!.id! });
    const frames = await resumed.waitForEvents(3);
    expect(got.map((f) => JSON.parse(f.data!).data.transactionId)).toEqual(before);
    expect(frames.map((f) => JSON.parse(f.data!).data.transactionId)).toEqual(missed);
    const later = await postOne('9.00');
    await resumed.waitForEvents(4);
    expect(JSON.parse(resumed.events()[3]!.data!).data.transactionId).toBe(later);
  });

  it('filters by type', async () => {
    const stream = await open('?type=settlement.matched');
    await postOne();
    await until('a heartbeat after the posting', () => stream.frames.some((f) => f.comment === 'heartbeat'), 5_000);
    expect(stream.events()).toEqual([]);
  });

  it("a tenant's stream carries only its own events", async () => {
    const other = await createTenant(t.dbPath, 'Other');
    const otherClient = client(t.url, other.apiKey.rawKey);
    const a = await makeAccount(otherClient, { name: 'a' });
    const b = await makeAccount(otherClient, { name: 'b', type: 'LIABILITY' });
    const theirs = await open('', {}, other.apiKey.rawKey);
    const ours = await open();
    await postOne('10.00');
    const res = await post(otherClient, [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')]);
    const [frame] = await theirs.waitForEvents(1);
    expect(JSON.parse(frame!.data!).data.transactionId).toBe(res.body.transactionId);
    await ours.waitForEvents(1);
    expect(theirs.events()).toHaveLength(1);
    expect(ours.events()).toHaveLength(1);
    // Another tenant's event is no place to resume from.
    const refused = await open('', { 'last-event-id': frame!.id! });
    expectValidation({ status: refused.status, body: JSON.parse(refused.text!), text: refused.text! }, { detail: { path: 'Last-Event-ID' } });
    const malformed = await open('', { 'last-event-id': 'x'.repeat(300) });
    expectValidation({ status: malformed.status, body: JSON.parse(malformed.text!), text: malformed.text! }, { detail: { path: 'Last-Event-ID' } });
  });

  it('refuses what it cannot follow: 400 for a bad after or type, 401 without a key, 403 without the scope', async () => {
    const bad = await open('?after=nope');
    expectValidation({ status: bad.status, body: JSON.parse(bad.text!), text: bad.text! }, { detail: { path: 'after' } });
    const badType = await open('?type=nope');
    expectValidation({ status: badType.status, body: JSON.parse(badType.text!), text: badType.text! }, { detail: { path: 'type' } });
    const res = await fetch(`${t.url}/api/v1/events/stream`);
    expectError({ status: res.status, body: await res.json(), text: '' }, 401, 'UNAUTHENTICATED');
    const made = await c.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    const forbidden = await open('', {}, made.body.rawKey);
    expect(forbidden.status).toBe(403);
  });
});

describe('event streams: a stalled client, and shutdown', () => {
  it('a client that takes nothing is dropped after the stall time; the server goes on', async () => {
    const t = await startTestServer({ eventStream: { stallMs: 300 } });
    try {
      const c = client(t.url, t.tenant.apiKey.rawKey);
      const a = await makeAccount(c, { name: 'a' });
      const b = await makeAccount(c, { name: 'b', type: 'LIABILITY' });
      // A raw client that sends its request and then reads nothing.
      const { port } = new URL(t.url);
      const socket = connect(Number(port), '127.0.0.1');
      let closed = false;
      socket.on('close', () => (closed = true));
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.pause();
      socket.write(`GET /api/v1/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.tenant.apiKey.rawKey}\r\n\r\n`);
      // Large events: far more than the socket buffers and the answer's buffer hold.
      const text = 'x'.repeat(1000);
      const lines = Array.from({ length: 500 }, (_, i) => ({ ...fiat(i % 2 ? b : a, i % 2 ? 'CREDIT' : 'DEBIT', '1.00'), description: text }));
      let produced = 0;
      for (let i = 0; i < 40; i++) {
        const res = await post(c, lines, { metadata: { n: String(i) } });
        expect(res.status, res.text).toBe(201);
        produced += (await c.get(`/api/v1/transactions/${res.body.transactionId}`)).text.length;
      }
      // Past the stall time, the client reads again: what the server had sent before it dropped the client, then the end.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      let received = 0;
      socket.on('data', (chunk: Buffer) => (received += chunk.length));
      socket.resume();
      await until('the stalled client dropped', () => closed, 15_000);
      expect(received).toBeGreaterThan(0);
      expect(received).toBeLessThan(produced / 2);
      expect((await c.get('/api/v1/events?limit=1')).status).toBe(200);
    } finally {
      await t.stop();
    }
  });

  it('shutdown ends a connected stream cleanly, within the drain time', async () => {
    const t = await startTestServer();
    const stream = await openStream(`${t.url}/api/v1/events/stream`, t.tenant.apiKey.rawKey);
    await until('the stream open', () => stream.frames.length > 0);
    const started = Date.now();
    await t.stop();
    await stream.ended;
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
