// `ledger webhooks deliveries|redeliver|run` — black-box through the built binary, per contract and the issue 4 decisions.
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli, startTestServer, useServerWithAccounts, type TestServer } from '../../helpers/server.js';
import { startReceiver, type Received, type Receiver } from '../../helpers/receiver.js';
import { ISO_MS, UUID } from '../../helpers/expect.js';
import { until } from '../../helpers/poll.js';
import { killAll, spawnLedger, type Spawned } from '../../helpers/spawn.js';
import { makeTenant, routed, sign, type Handler } from './support.js';

const DELIVERY_KEYS = ['attempts', 'eventId', 'lastError', 'lastStatusCode', 'nextAttemptAt', 'status', 'type', 'updatedAt'];

const eventIdOf = (x: Received) => String(x.headers['x-ledger-event-id']);
const atPath = (r: Receiver, path: string) => r.received.filter((x) => x.path === path);

async function deliveries(dbPath: string, tenantId: string): Promise<{ items: any[]; nextCursor: string | null }> {
  const res = await cli(['--db', dbPath, 'webhooks', 'deliveries', '--tenant', tenantId, '--json']);
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}

/** Polls the CLI listing (each poll is a process, so every 200 ms) until the condition holds; returns that listing. */
async function deliveriesUntil(dbPath: string, tenantId: string, what: string, condition: (items: any[]) => boolean, timeoutMs = 10_000) {
  let last: { items: any[]; nextCursor: string | null } | undefined;
  try {
    return await until(
      what,
      async () => {
        last = await deliveries(dbPath, tenantId);
        return condition(last.items) ? last : undefined;
      },
      timeoutMs,
      200,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; last listing: ${JSON.stringify(last)}`);
  }
}

describe('webhooks deliveries and redeliver, beside a running server', () => {
  let r: Receiver;
  let routes: Map<string, Handler>;

  beforeAll(async () => {
    r = await startReceiver();
    routes = routed(r);
  });
  afterAll(async () => {
    await r?.close();
  });
  // a short window, so that an always-failing receiver makes a DEAD event quickly
  const t = useServerWithAccounts(() => ({ webhooks: { allowPrivate: true, ca: r.cert, retry: { delaysMs: [200, 400], windowMs: 1_500 } } }));

  it('deliveries --json lists delivered events newest first with status DELIVERED and exactly the documented fields', async () => {
    const tn = await makeTenant(t, 'Listed');
    await tn.setWebhook(`${r.url}/listed`);
    const first = await tn.pay('1.00');
    await until('the first event at /listed', () => atPath(r, '/listed').length >= 1);
    const second = await tn.pay('2.00');
    await until('the second event at /listed', () => atPath(r, '/listed').length >= 2);
    const received = atPath(r, '/listed').map((x) => ({ eventId: eventIdOf(x), tx: JSON.parse(x.raw.toString()).data.transactionId }));
    expect(received.map((x) => x.tx)).toEqual([first, second]);
    const page = await deliveriesUntil(t.dbPath, tn.id, 'both events DELIVERED', (items) => items.length === 2 && items.every((d) => d.status === 'DELIVERED'));
    expect(Object.keys(page).sort()).toEqual(['items', 'nextCursor']);
    expect(page.nextCursor).toBeNull();
    expect(page.items).toHaveLength(2);
    // newest first
    expect(page.items.map((d) => d.eventId)).toEqual([received[1]!.eventId, received[0]!.eventId]);
    for (const d of page.items) {
      expect(Object.keys(d).sort()).toEqual(DELIVERY_KEYS);
      expect(d.eventId).toMatch(UUID);
      expect(d.type).toBe('transaction.committed');
      expect(d.status).toBe('DELIVERED');
      expect(d.attempts).toBe(1);
      expect(d.lastStatusCode).toBe(200);
      expect(d.lastError).toBeNull();
      expect(d.nextAttemptAt).toBeNull();
      expect(d.updatedAt).toMatch(ISO_MS);
    }
    // the table form names the events too
    const table = await cli(['--db', t.dbPath, 'webhooks', 'deliveries', '--tenant', tn.id]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(received[0]!.eventId);
    expect(table.stdout).toContain('DELIVERED');
  });

  it('deliveries shows attempts and the last status code of an event that needed retries', async () => {
    const tn = await makeTenant(t, 'Retried');
    let n = 0;
    routes.set('/retried', (_req, res) => (n++ < 1 ? res.writeHead(503).end('busy') : res.writeHead(200).end('ok')));
    await tn.setWebhook(`${r.url}/retried`);
    await tn.pay();
    await until('two attempts at /retried', () => atPath(r, '/retried').length >= 2);
    const page = await deliveriesUntil(t.dbPath, tn.id, 'the retried event DELIVERED', (items) => items[0]?.status === 'DELIVERED');
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ eventId: eventIdOf(atPath(r, '/retried')[0]!), status: 'DELIVERED', attempts: 2, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
  });

  it('redeliver <eventId> makes the running server send a delivered event once more (same event id, valid signature)', async () => {
    const tn = await makeTenant(t, 'Redeliver');
    const secret = await tn.setWebhook(`${r.url}/redeliver`);
    const txId = await tn.pay('3.00');
    await until('the event at /redeliver', () => atPath(r, '/redeliver').length >= 1);
    const eventId = eventIdOf(atPath(r, '/redeliver')[0]!);
    await deliveriesUntil(t.dbPath, tn.id, 'the event DELIVERED', (items) => items[0]?.status === 'DELIVERED');
    const res = await cli(['--db', t.dbPath, 'webhooks', 'redeliver', eventId, '--tenant', tn.id]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(eventId);
    await until('the redelivery at /redeliver', () => atPath(r, '/redeliver').length >= 2);
    const again = atPath(r, '/redeliver')[1]!;
    expect(eventIdOf(again)).toBe(eventId);
    const body = JSON.parse(again.raw.toString());
    expect(body.id).toBe(eventId);
    expect(body.data.transactionId).toBe(txId);
    expect(again.headers['x-ledger-signature']).toBe(sign(secret, again.raw));
    // once more, not over and over; and the listing settles back on DELIVERED
    const page = await deliveriesUntil(t.dbPath, tn.id, 'the redelivered event DELIVERED with nothing scheduled', (items) => items[0]?.status === 'DELIVERED' && items[0]?.nextAttemptAt === null);
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ eventId, status: 'DELIVERED' });
    const next = await tn.pay('3.50');
    await until('the next posting at /redeliver', () => atPath(r, '/redeliver').some((x) => JSON.parse(x.raw.toString()).data.transactionId === next));
    expect(atPath(r, '/redeliver').filter((x) => eventIdOf(x) === eventId)).toHaveLength(2);
  });

  it('an event that keeps failing past the window is DEAD, the next event goes, and redeliver sends the DEAD one again', async () => {
    const tn = await makeTenant(t, 'Dead');
    let failing = true;
    routes.set('/dead', (_req, res) => (failing ? res.writeHead(500).end('down') : res.writeHead(200).end('ok')));
    await tn.setWebhook(`${r.url}/dead`);
    await tn.pay('4.00');
    const page = await deliveriesUntil(t.dbPath, tn.id, 'the event DEAD', (items) => items[0]?.status === 'DEAD', 15_000);
    expect(page.items[0]).toMatchObject({ status: 'DEAD', lastStatusCode: 500, nextAttemptAt: null });
    expect(page.items[0].attempts).toBeGreaterThanOrEqual(2);
    const deadId = page.items[0].eventId as string;
    expect(atPath(r, '/dead').every((x) => eventIdOf(x) === deadId)).toBe(true);
    failing = false;
    const later = await tn.pay('4.50');
    await until('the later posting at /dead', () => atPath(r, '/dead').some((x) => JSON.parse(x.raw.toString()).data.transactionId === later));
    const before = atPath(r, '/dead').filter((x) => eventIdOf(x) === deadId).length;
    const res = await cli(['--db', t.dbPath, 'webhooks', 'redeliver', deadId, '--tenant', tn.id]);
    expect(res.code, res.stderr).toBe(0);
    await until('the DEAD event sent once more', () => atPath(r, '/dead').filter((x) => eventIdOf(x) === deadId).length === before + 1);
    const after = await deliveriesUntil(t.dbPath, tn.id, 'the redelivered DEAD event DELIVERED', (items) => items.find((d) => d.eventId === deadId)?.status === 'DELIVERED');
    expect(after.items.find((d) => d.eventId === deadId)).toMatchObject({ status: 'DELIVERED', lastStatusCode: 200 });
  });

  it('bad input is refused with the documented exit: 2 for an argument that is not a UUID, 1 for an unknown event or another tenant’s event', async () => {
    const tn = await makeTenant(t, 'Mine');
    const other = await makeTenant(t, 'Theirs');
    await tn.setWebhook(`${r.url}/mine`);
    await other.setWebhook(`${r.url}/theirs`);
    await tn.pay();
    await until('the event at /mine', () => atPath(r, '/mine').length >= 1);
    const mine = eventIdOf(atPath(r, '/mine')[0]!);
    const refused = async (args: string[], code: number) => {
      const run = await cli(['--db', t.dbPath, 'webhooks', ...args]);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(code);
      expect(run.stderr.trim().length, args.join(' ')).toBeGreaterThan(0);
      expect(run.stdout, args.join(' ')).toBe('');
    };
    await refused(['deliveries', '--tenant', 'not-a-uuid', '--json'], 2);
    await refused(['redeliver', 'not-a-uuid', '--tenant', tn.id], 2);
    await refused(['redeliver', randomUUID(), '--tenant', tn.id], 1);
    await refused(['redeliver', mine, '--tenant', other.id], 1);
    // the other tenant's listing does not show my event
    expect((await deliveries(t.dbPath, other.id)).items.map((d) => d.eventId)).not.toContain(mine);
    // nothing was sent again
    expect(atPath(r, '/mine').filter((x) => eventIdOf(x) === mine)).toHaveLength(1);
    expect(atPath(r, '/theirs')).toHaveLength(0);
  });
});

describe('at least once across a crash of `ledger webhooks run`', () => {
  let r: Receiver;
  let setup: TestServer;
  let caFile: string;
  let setupOpen = false;

  /** Starts the sender alone as a child process and waits for its banner (whether it keeps running is checked apart). */
  async function startSender(): Promise<Spawned> {
    const sender = spawnLedger(['--db', setup.dbPath, 'webhooks', 'run', '--webhook-allow-private'], { env: { NODE_EXTRA_CA_CERTS: caFile } });
    await sender.waitForOutput(/webhook sender running/, 15_000);
    return sender;
  }

  /** Stops the setup server (its own sender too), keeping the database: setup.stop() would delete it. */
  async function closeSetup() {
    if (!setupOpen) return;
    setupOpen = false;
    await setup.server.close();
  }

  const timeout = (ms: number) => new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms));

  beforeAll(async () => {
    r = await startReceiver();
    // Setup only: this server makes the tenant, the webhook and the posting. It is given no CA, so its own sender cannot
    // complete a TLS handshake with the receiver and never delivers; it is stopped before the child starts.
    setup = await startTestServer({ webhooks: { allowPrivate: true, retry: { delaysMs: [200, 400], windowMs: 3_600_000 } } });
    setupOpen = true;
    caFile = join(setup.dir, 'receiver-ca.pem');
    writeFileSync(caFile, r.cert);
  });
  afterEach(() => killAll());
  afterAll(async () => {
    await killAll();
    await closeSetup().catch(() => {});
    await r?.close();
    if (setup) rmSync(setup.dir, { recursive: true, force: true });
  });

  it('SIGKILL while the receiver holds the request: after a restart the same event arrives again', async () => {
    const tn = await makeTenant(setup, 'Crash');
    const secret = await tn.setWebhook(`${r.url}/crash`);
    const txId = await tn.pay('6.00');
    await closeSetup();
    expect(r.received).toHaveLength(0);

    const held: ServerResponse[] = [];
    let answer = false;
    r.respond = (_req, res) => {
      if (answer) res.writeHead(200).end('ok');
      else held.push(res); // hold the request without answering
    };

    const first = await startSender();
    await until('the first attempt at the receiver', () => r.received.length >= 1, 20_000);
    const got1 = r.received[0]!;
    const eventId = eventIdOf(got1);
    expect(eventId).toMatch(UUID);
    expect(JSON.parse(got1.raw.toString()).data.transactionId).toBe(txId);
    expect(got1.headers['x-ledger-signature']).toBe(sign(secret, got1.raw));
    first.kill();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(held.length).toBeGreaterThanOrEqual(1);

    answer = true;
    const second = await startSender();
    await until('the event sent again after the restart', () => r.received.length >= 2, 30_000);
    const got2 = r.received[1]!;
    expect(eventIdOf(got2)).toBe(eventId);
    const body2 = JSON.parse(got2.raw.toString());
    expect(body2.id).toBe(eventId);
    expect(body2.data.transactionId).toBe(txId);
    expect(got2.headers['x-ledger-signature']).toBe(sign(secret, got2.raw));

    // the delivery is recorded
    const page = await deliveriesUntil(setup.dbPath, tn.id, 'the event recorded DELIVERED', (items) => items.some((d) => d.eventId === eventId && d.status === 'DELIVERED'));
    expect(page.items.find((d) => d.eventId === eventId)).toMatchObject({ status: 'DELIVERED', lastStatusCode: 200 });
    expect(r.received.every((x) => eventIdOf(x) === eventId)).toBe(true);
    second.child.kill('SIGTERM');
    expect(await Promise.race([second.exited, timeout(10_000)]), second.stderr()).toEqual({ code: 0, signal: null });
  });

  it('`webhooks run` with nothing to send keeps running until SIGTERM, then exits 0', async () => {
    await closeSetup(); // one sender per database
    const sender = await startSender();
    // still running a moment later (it must wait for a signal, not for work)
    const early = await Promise.race([sender.exited, timeout(2_000)]);
    expect(early, `exited early: ${sender.stdout()} ${sender.stderr()}`).toBe('timeout');
    sender.child.kill('SIGTERM');
    expect(await Promise.race([sender.exited, timeout(10_000)]), sender.stderr()).toEqual({ code: 0, signal: null });
  });
});
