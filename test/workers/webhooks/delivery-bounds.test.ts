// README, Deliveries: "Each attempt resolves the name, checks every address, and connects to a checked address (the
// certificate is checked against the name); redirects are not followed; at most 64 KiB of the answer is read; 10 s
// time-out." and "Any non-2xx, network error or time-out is retried". Shown with real local HTTPS receivers.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { collect } from '../../helpers/rows.js';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useServerWithAccounts } from '../../helpers/server.js';
import { startReceiver, type Received, type Receiver } from '../../helpers/receiver.js';
import { until } from '../../helpers/poll.js';
import { localLedger, makeTenant, routed, type Handler } from './support.js';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.js';
import { Ledger } from '../../../src/core/ledger.js';
import { FileLeases } from '../../../src/store/sqlite/fileLeases.js';
import { WebhookSender } from '../../../src/workers/webhooks/sender.js';
import { postOnce, type AttemptOutcome } from '../../../src/workers/webhooks/delivery.js';
import { WEBHOOK_RESPONSE_READ_BYTES_MAX } from '../../../src/core/limits.js';
import { WEBHOOK_DELIVERY_TIMEOUT_MS } from '../../../src/core/limits.js';
import type { UrlPolicy } from '../../../src/workers/webhooks/urlPolicy.js';
import type { DeliveryState } from '../../../src/core/webhook.js';

const RETRY = { delaysMs: [200, 400], windowMs: 60_000 };
const KiB = 1024;
/** Taken before any test fakes timers: real waiting. */
const realSetTimeout = globalThis.setTimeout;
const realSleep = (ms: number) => new Promise<void>((resolve) => realSetTimeout(resolve, ms));

const deliveries = (store: Pick<SqliteStore, 'webhookDeliveriesPage'>, tenantId: string): Promise<DeliveryState[]> => collect(store.webhookDeliveriesPage(tenantId, null, 20));
const attemptsAt = (r: Receiver, path: string) => r.received.filter((x) => x.path.split('?')[0] === path);

describe('at most 64 KiB of the answer is read (real server and sender, receiver answering an endless body)', () => {
  let r: Receiver;
  let routes: Map<string, Handler>;

  beforeAll(async () => {
    r = await startReceiver();
    routes = routed(r);
  });
  afterAll(async () => {
    await r?.close();
  });
  const t = useServerWithAccounts(() => ({ webhooks: { allowPrivate: true, ca: r.cert, retry: RETRY } }));

  interface Answer {
    written: number;
    closed: boolean;
    finished: boolean;
  }
  const CHUNK = 8 * KiB;
  /**
   * Answers `status` and then a body that never ends, a chunk every 20 ms, so that what was written when the sender
   * closes the connection is what the sender read, give or take the chunks in flight.
   */
  const endless = (status: number, answers: Answer[]): Handler => (_req, res: ServerResponse) => {
    const answer: Answer = { written: 0, closed: false, finished: false };
    answers.push(answer);
    res.writeHead(status, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(CHUNK, 0x61);
    const timer = setInterval(() => {
      if (res.destroyed) return;
      res.write(chunk);
      answer.written += chunk.length;
    }, 20);
    res.on('close', () => {
      clearInterval(timer);
      answer.closed = true;
      answer.finished = res.writableFinished;
    });
  };

  const readThenClosed = (a: Answer) => {
    // the sender closed the connection while the body was still coming ...
    expect(a.closed).toBe(true);
    expect(a.finished).toBe(false);
    // ... once it had read more than 64 KiB (it closes only then), and not much more: the chunks in flight
    expect(a.written).toBeGreaterThan(WEBHOOK_RESPONSE_READ_BYTES_MAX);
    expect(a.written).toBeLessThanOrEqual(WEBHOOK_RESPONSE_READ_BYTES_MAX + 4 * CHUNK);
  };

  it('a 200 with an endless body: the sender stops reading past 64 KiB, closes the connection, and the event counts as DELIVERED (one attempt, no time-out)', async () => {
    const answers: Answer[] = [];
    routes.set('/endless-200', endless(200, answers));
    const tn = await makeTenant(t, 'Endless200');
    await tn.setWebhook(`${r.url}/endless-200`);
    const started = Date.now();
    await tn.pay('1.00');
    const [state] = await until('the event DELIVERED', async () => {
      const ds = (await deliveries(t.server.ledger.store, tn.id));
      return ds[0]?.status === 'DELIVERED' && ds;
    });
    // well within the 10 s time-out: the sender did not wait for the body to end
    expect(Date.now() - started).toBeLessThan(WEBHOOK_DELIVERY_TIMEOUT_MS / 2);
    expect(state).toMatchObject({ status: 'DELIVERED', attempts: 1, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    await until('the receiver to see its connection closed', () => answers[0]?.closed);
    expect(answers).toHaveLength(1);
    readThenClosed(answers[0]!);
    // nothing more for that event
    await realSleep(RETRY.delaysMs[0]! * 2);
    expect(attemptsAt(r, '/endless-200')).toHaveLength(1);
  });

  it('a 500 with an endless body: read up to 64 KiB the same way, and counted as a failed attempt (answered 500), retried', async () => {
    const answers: Answer[] = [];
    routes.set('/endless-500', endless(500, answers));
    const tn = await makeTenant(t, 'Endless500');
    await tn.setWebhook(`${r.url}/endless-500`);
    await tn.pay('1.00');
    await until('a second attempt at /endless-500', () => attemptsAt(r, '/endless-500').length >= 2);
    expect(attemptsAt(r, '/endless-500').slice(0, 2).map((x) => x.headers['x-ledger-delivery-attempt'])).toEqual(['1', '2']);
    await until('two answers closed', () => answers.filter((a) => a.closed).length >= 2);
    for (const a of answers.filter((x) => x.closed)) readThenClosed(a);
    const [state] = await until('two attempts recorded', async () => {
      const ds = (await deliveries(t.server.ledger.store, tn.id));
      return (ds[0]?.attempts ?? 0) >= 2 && ds;
    });
    expect(state).toMatchObject({ status: 'PENDING', lastStatusCode: 500, lastError: 'answered 500' });
  });
});

describe('the time-out of an attempt', () => {
  let r: Receiver;
  let dbPath: string;
  let store: SqliteStore;
  let ledger: Ledger;
  let close: () => Promise<void>;
  /** Per request to /hang: when it arrived and when its connection closed. */
  const hung: Array<{ at: number; closedAt?: number; attempt: string }> = [];
  let answerHang = false;
  const policy: UrlPolicy = { allowPrivate: true, denyDomains: [], resolve: async () => ['127.0.0.1'] };

  beforeAll(async () => {
    r = await startReceiver();
    r.respond = (request: Received, res: ServerResponse) => {
      if (!request.path.startsWith('/hang')) return void res.writeHead(200).end('ok');
      const entry: { at: number; closedAt?: number; attempt: string } = { at: request.at, attempt: String(request.headers['x-ledger-delivery-attempt']) };
      hung.push(entry);
      if (answerHang) return void res.writeHead(200).end('ok');
      // never answers; notes when the sender gives up on the connection
      res.on('close', () => (entry.closedAt = Date.now()));
    };
    ({ dbPath, store, ledger, close } = await localLedger('ledger-wh-timeout-'));
  });
  afterAll(async () => {
    await close?.();
    await r?.close();
  });

  it('by default an attempt waits 10 s for an answer, and gives up at 10 s (a fake clock, so the test does not wait)', async () => {
    expect(WEBHOOK_DELIVERY_TIMEOUT_MS).toBe(10_000);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let outcome: AttemptOutcome | undefined;
      const from = hung.length;
      // as the production sender calls it: no timeoutMs of its own
      const attempt = postOnce(new URL(`${r.url}/hang-default`), '{}', { 'content-type': 'application/json' }, { policy, ca: r.cert }).then((o) => (outcome = o));
      for (let i = 0; i < 400 && hung.length === from; i++) await realSleep(25);
      expect(hung.length, 'the request reached the receiver').toBe(from + 1);
      await vi.advanceTimersByTimeAsync(WEBHOOK_DELIVERY_TIMEOUT_MS - 1);
      await realSleep(50);
      expect(outcome, 'still waiting at 9,999 ms').toBeUndefined();
      expect(hung[from]!.closedAt).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      await attempt;
      expect(outcome).toEqual({ ok: false, statusCode: null, error: 'no answer within 10000 ms' });
      for (let i = 0; i < 200 && hung[from]!.closedAt === undefined; i++) await realSleep(10);
      expect(hung[from]!.closedAt, 'the sender closed the connection').toBeDefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('with a time-out of 300 ms the sender abandons a receiver that never answers after 300 ms, records the time-out and retries', async () => {
    const TIMEOUT = 300;
    const DELAY = 500;
    const created = await ledger.tenants.create('Timeout', { type: 'HUMAN', keyId: 'cli' });
    const actor = { type: 'HUMAN' as const, keyId: created.apiKey.id };
    const tenantId = created.tenantId;
    const acct = async (name: string, type: 'ASSET' | 'LIABILITY') => (await ledger.accounts.create(tenantId, { name, currency: 'USD', type }, actor)).id;
    const a = await acct('cash', 'ASSET');
    const b = await acct('deposits', 'LIABILITY');
    await ledger.webhooks.set(tenantId, actor, `${r.url}/hang`);
    const sender = new WebhookSender(ledger, () => {}, { leases: new FileLeases(dbPath), policy, ca: r.cert, timeoutMs: TIMEOUT, retry: { delaysMs: [DELAY], windowMs: 60_000 }, pollIntervalMs: 20 });
    try {
      const from = hung.length;
      await ledger.transactions.post(tenantId, actor, 'timeout-1', {
        lines: [
          { accountId: a, entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'ACH' } },
          { accountId: b, entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'ACH' } },
        ],
      });
      // the first attempt fails by the time-out, and is recorded so
      const first = await until('the first attempt recorded', async () => {
        const [s] = (await deliveries(store, tenantId));
        return s?.attempts === 1 && s;
      });
      expect(first).toMatchObject({ status: 'PENDING', lastStatusCode: null, lastError: `no answer within ${TIMEOUT} ms` });
      const took = Date.parse(first.updatedAt) - Date.parse(first.firstAttemptAt!);
      expect(took).toBeGreaterThanOrEqual(TIMEOUT);
      expect(took).toBeLessThan(TIMEOUT + 1_500);
      const wait = Date.parse(first.nextAttemptAt!) - Date.parse(first.updatedAt);
      expect(wait).toBeGreaterThanOrEqual(DELAY * 0.8);
      expect(wait).toBeLessThanOrEqual(DELAY * 1.2);
      const h1 = hung[from]!;
      expect(h1.attempt).toBe('1');
      await until('the connection of attempt 1 closed', async () => h1.closedAt !== undefined);
      expect(h1.closedAt! - h1.at).toBeLessThanOrEqual(TIMEOUT + 1_000);
      // retried: attempt 2 comes and is abandoned the same way
      await until('attempt 2 recorded', async () => (await deliveries(store, tenantId))[0]?.attempts === 2, 10_000);
      expect(hung.slice(from).map((h) => h.attempt)).toEqual(['1', '2']);
      expect(hung[from + 1]!.at - h1.at).toBeGreaterThanOrEqual(DELAY * 0.8);
      expect((await deliveries(store, tenantId))[0]).toMatchObject({ status: 'PENDING', attempts: 2, lastError: `no answer within ${TIMEOUT} ms` });
      // a receiver that answers again gets it on attempt 3
      answerHang = true;
      const done = await until('the event DELIVERED', async () => {
        const [s] = (await deliveries(store, tenantId));
        return s?.status === 'DELIVERED' && s;
      });
      expect(done).toMatchObject({ attempts: 3, lastStatusCode: 200, lastError: null });
    } finally {
      await sender.close();
    }
  });
});

describe('the certificate is checked against the name (receiver certificate from a test CA, for hooks.right.test only)', () => {
  const RIGHT = 'hooks.right.test';
  const WRONG = 'hooks.wrong.test';
  let ca: { cert: string; private: string };
  let leaf: { cert: string; private: string };
  let https: Server;
  let port: number;
  const received: Array<{ path: string; servername: string | false | null }> = [];
  /** The name each TLS connection asked for (SNI), as the receiver saw it at the hello. */
  const hellos: string[] = [];

  beforeAll(async () => {
    ca = await generate([{ name: 'commonName', value: 'Ledger Test CA' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      ],
    });
    leaf = await generate([{ name: 'commonName', value: RIGHT }], {
      keyType: 'ec',
      algorithm: 'sha256',
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [{ type: 2, value: RIGHT }] },
      ],
    });
    https = createServer(
      {
        key: leaf.private,
        cert: leaf.cert,
        SNICallback: (servername, cb) => {
          hellos.push(servername);
          cb(null, undefined);
        },
      },
      (req, res) => {
        req.resume();
        req.on('end', () => {
          received.push({ path: req.url ?? '', servername: (req.socket as import('node:tls').TLSSocket).servername });
          res.writeHead(200).end('ok');
        });
      },
    );
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    port = (https.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      https?.closeAllConnections();
      https ? https.close(() => resolve()) : resolve();
    });
  });
  const t = useServerWithAccounts(() => ({
    webhooks: {
      allowPrivate: true,
      // only the CA is trusted, not the receiver's certificate itself
      ca: ca.cert,
      retry: RETRY,
      resolve: async (host) => {
        const name = host.replace(/\.$/, '').toLowerCase();
        if (name === RIGHT || name === WRONG) return ['127.0.0.1'];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    },
  }));

  it('the receiver certificate is valid: issued by the test CA, for hooks.right.test and not hooks.wrong.test', () => {
    const c = new X509Certificate(leaf.cert);
    const issuer = new X509Certificate(ca.cert);
    expect(c.checkIssued(issuer)).toBe(true);
    expect(c.verify(issuer.publicKey)).toBe(true);
    expect(issuer.ca).toBe(true);
    expect(c.checkHost(RIGHT)).toBe(RIGHT);
    expect(c.checkHost(WRONG)).toBeUndefined();
  });

  it('the right name is DELIVERED; another name on the same address and port is refused (no request, retried, not DELIVERED)', async () => {
    const right = await makeTenant(t, 'RightName');
    const wrong = await makeTenant(t, 'WrongName');
    await right.setWebhook(`https://${RIGHT}:${port}/right`);
    await wrong.setWebhook(`https://${WRONG}:${port}/wrong`);
    // the right name first: a kept-alive connection to 127.0.0.1:port exists when the other name is tried
    await right.pay('1.00');
    const [ok] = await until('the right name DELIVERED', async () => {
      const ds = (await deliveries(t.server.ledger.store, right.id));
      return ds[0]?.status === 'DELIVERED' && ds;
    });
    expect(ok).toMatchObject({ attempts: 1, lastStatusCode: 200 });
    expect(received).toEqual([{ path: '/right', servername: RIGHT }]);

    await wrong.pay('1.00');
    const [refused] = await until('two attempts to the wrong name recorded', async () => {
      const ds = (await deliveries(t.server.ledger.store, wrong.id));
      return (ds[0]?.attempts ?? 0) >= 2 && ds;
    });
    expect(refused).toMatchObject({ status: 'PENDING', lastStatusCode: null });
    expect(refused!.lastError).toMatch(/does not match certificate's altnames/);
    expect(refused!.lastError).toContain(WRONG);
    // the sender did connect and ask for the name (so it is the certificate that stopped it), but sent no request
    expect(hellos.filter((h) => h === WRONG).length).toBeGreaterThanOrEqual(2);
    expect(received.filter((x) => x.path.startsWith('/wrong'))).toHaveLength(0);

    // the right name still goes through beside it
    await right.pay('2.00');
    await until('the second event of the right name DELIVERED', async () => (await deliveries(t.server.ledger.store, right.id)).filter((d) => d.status === 'DELIVERED').length === 2);
    expect((await deliveries(t.server.ledger.store, wrong.id)).every((d) => d.status !== 'DELIVERED')).toBe(true);
  });
});
