// Holds across a crash (issue 19): a server killed (SIGKILL) while captures are between their request and their
// answer leaves each hold captured whole or not at all, and a retry under the same Idempotency-Key settles it: the
// first answer again for a capture that committed, the capture itself for one that did not.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, client, createTenant, fiat, makeAccount, post, testDb } from './helpers/server.js';
import { killAll, spawnServe } from './helpers/spawn.js';

const HOLDS = 30;

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
    // Every capture sent at once; the server is killed as soon as the first answer is in.
    const captures = holds.map((h) => c.post(`/api/v1/holds/${h.id}/capture`, {}, { 'idempotency-key': h.key }).catch(() => null));
    await Promise.race(captures);
    server.child.kill('SIGKILL');
    await server.exited;
    const first = await Promise.all(captures);

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
