// A settlement that expired while the server was down is swept as soon as the server starts again: by the sweep at
// start, not by the periodic one (which the restarted server runs only hourly here, so it cannot be what sweeps).
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/serve.js';
import type { Clock } from '../../src/core/time.js';
import { client, makeAccount, startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/poll.js';

const HOUR_MS = 3_600_000;

describe('settlement expiry across a restart', () => {
  let t: TestServer | undefined;
  let restarted: RunningServer | undefined;
  afterAll(async () => {
    await restarted?.close();
    await t?.stop();
  });

  it('a PENDING settlement whose expiresAt passed while the server was stopped becomes UNMATCHED right after start', async () => {
    let nowMs = Date.now();
    const clock: Clock = { now: () => new Date(nowMs) };
    t = await startTestServer({ settlementTtlSeconds: 60, clock });
    // After the tenant the CLI made on the real clock: commit times never go back.
    nowMs = Date.now() + 1000;
    const c = client(t.url, t.tenant.apiKey.rawKey);
    const accountId = await makeAccount(c, { name: 'receiving' });
    const res = await c.post(
      '/api/v1/settlements',
      { accountId, expectedToken: 'USDC', expectedAmount: '3', expectedWalletAddress: '0x0000000000000000000000000000000000000007', expectedChainId: 'EVM' },
      { 'idempotency-key': 'restart-1' },
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.status).toBe('PENDING');
    await t.server.close();

    // Down for longer than the TTL: nobody swept meanwhile.
    nowMs = Date.parse(res.body.expiresAt) + 1000;
    restarted = await startServer({
      db: t.dbPath,
      host: '127.0.0.1',
      port: 0,
      log: () => {},
      settlementTtlSeconds: 60,
      settlementSweepIntervalMs: HOUR_MS,
      clock,
      writer: 'local',
    });
    const again = client(restarted.url, t.tenant.apiKey.rawKey);
    const swept = await until('the settlement swept at start', async () => {
      const s = await again.get(`/api/v1/settlements/${res.body.settlementId}`);
      return s.body.status === 'UNMATCHED' ? s.body : undefined;
    });
    expect(swept).toMatchObject({ settlementId: res.body.settlementId, status: 'UNMATCHED' });
    expect(swept, 'expiresAt is present only while PENDING').not.toHaveProperty('expiresAt');
    const exported = await again.get('/api/v1/compliance/audit-export?from=2000-01-01&to=2200-01-01');
    expect(exported.status, exported.text).toBe(200);
    const records = exported.text.trim().split('\n').map((line) => JSON.parse(line));
    expect(records.filter((r) => r.action === 'SETTLEMENT_UNMATCHED')).toHaveLength(1);
  });
});
