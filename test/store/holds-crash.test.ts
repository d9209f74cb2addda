// Holds across a crash (issue 19): a server killed (SIGKILL) while captures are between their request and their
// answer leaves each hold captured whole or not at all, and a retry under the same Idempotency-Key settles it: the
// first answer again for a capture that committed, the capture itself for one that did not. The kill lands while
// captures are in flight, by construction: the test holds the ledger's writes while they arrive.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, client, createTenant, fiat, makeAccount, post, testDb, type HttpResult } from '../helpers/server.js';
import { until } from '../helpers/poll.js';
import { holdWrites } from '../helpers/writeLock.js';
import { killAll, spawnServe } from '../helpers/spawn.js';

const HOLDS = 30;
/** Captured and answered before the test holds the writes; the other captures are in flight at the kill. */
const COMMITTED = 10;

describe('captures under a killed server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-holds-crash-'));
  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('each hold is captured whole or not at all, and a retry with the same key settles it', async () => {
    const db = await testDb(dir);
    const tenant = await createTenant(db);
    let server = await spawnServe(db);
    let c = client(server.url, tenant.apiKey.rawKey);
    const wallet = await makeAccount(c, { name: 'wallet' });
    const merchant = await makeAccount(c, { name: 'merchant' });
    const funding = await makeAccount(c, { name: 'funding', type: 'EQUITY' });
    expect((await post(c, [fiat(wallet, 'DEBIT', '1000.00'), fiat(funding, 'CREDIT', '1000.00')])).status).toBe(201);
    const holds: Array<{ id: string; key: string }> = [];
    for (let i = 0; i < HOLDS; i++) {
      const res = await c.post('/api/v1/holds', { lines: [fiat(merchant, 'DEBIT', '10.00'), fiat(wallet, 'CREDIT', '10.00')] }, { 'idempotency-key': randomUUID() });
      expect(res.status, res.text).toBe(201);
      holds.push({ id: res.body.holdId, key: randomUUID() });
    }
    // The first captures commit and are answered. Then the test holds the ledger's writes, and the rest are sent: they
    // cannot commit, so the server is killed while they are in flight, however busy the machine. On PostgreSQL the
    // writer is seen waiting inside its transaction, so the kill lands in the middle of one.
    const before = holds.slice(0, COMMITTED);
    const during = holds.slice(COMMITTED);
    const answered = await Promise.all(before.map((h) => c.post(`/api/v1/holds/${h.id}/capture`, {}, { 'idempotency-key': h.key })));
    for (const res of answered) expect(res.status, res.text).toBe(200);
    const lock = await holdWrites(db);
    let inFlight: Array<HttpResult | null>;
    try {
      const captures = during.map((h) => c.post(`/api/v1/holds/${h.id}/capture`, {}, { 'idempotency-key': h.key }).catch(() => null));
      // The server has read them: a request sent after them is answered (and on PostgreSQL, its writer waits on the lock).
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      if ((await lock.waiting()) !== undefined) await until('the writer waiting on the held lock', async () => (await lock.waiting())! > 0);
      else await new Promise((r) => setTimeout(r, 100));
      server.child.kill('SIGKILL');
      await server.exited;
      inFlight = await Promise.all(captures);
    } finally {
      await lock.release();
    }
    expect(inFlight.filter((res) => res !== null), 'captures answered after the kill').toEqual([]);
    const first = [...answered, ...inFlight];

    server = await spawnServe(db);
    c = client(server.url, tenant.apiKey.rawKey);
    const transactions = (await c.get('/api/v1/transactions?limit=200')).body.items as any[];
    const captureOf = new Map(transactions.filter((tx) => tx.metadata.captureOfHoldId).map((tx) => [tx.metadata.captureOfHoldId as string, tx.transactionId as string]));
    let committed = 0;
    for (const [i, h] of holds.entries()) {
      const now = (await c.get(`/api/v1/holds/${h.id}`)).body;
      // Whole or nothing: CAPTURED with its transaction, or PENDING with none.
      if (now.status === 'CAPTURED') {
        committed++;
        expect(captureOf.get(h.id)).toBe(now.transactionId);
      } else {
        expect(now.status).toBe('PENDING');
        expect(captureOf.has(h.id)).toBe(false);
      }
      // An answer that reached the client was committed.
      if (first[i]?.status === 200) expect(now).toEqual(first[i]!.body);
    }
    // The kill landed between the two: the captures answered before it committed, those in flight did not.
    expect({ committed, pending: HOLDS - committed }).toEqual({ committed: COMMITTED, pending: HOLDS - COMMITTED });
    const balance = (await c.get(`/api/v1/accounts/${wallet}/balance`)).body;
    expect({ amount: balance.amount, pending: balance.pending }).toEqual({ amount: 1000 - 10 * committed, pending: 10 * (HOLDS - committed) });

    // The retries settle every hold; one that had committed answers its first answer again.
    for (const h of holds) {
      const before = (await c.get(`/api/v1/holds/${h.id}`)).body;
      const retry = await c.post(`/api/v1/holds/${h.id}/capture`, {}, { 'idempotency-key': h.key });
      expect(retry.status, retry.text).toBe(200);
      if (before.status === 'CAPTURED') expect(retry.body).toEqual(before);
    }
    const settled = (await c.get(`/api/v1/accounts/${wallet}/balance`)).body;
    expect({ amount: settled.amount, pending: settled.pending, available: settled.available }).toEqual({ amount: 700, pending: 0, available: 700 });
    server.child.kill('SIGTERM');
    await server.exited;
    const check = await cli(['--db', db, 'db', 'check']);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  }, 120_000);
});
