// A settlement that expired while the server was down is swept as soon as the server starts again.
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/serve.js';
import { client, makeAccount, startTestServer, type TestServer } from '../helpers/server.js';

describe('settlement expiry across a restart', () => {
  let t: TestServer | undefined;
  let restarted: RunningServer | undefined;
  afterAll(async () => {
    await restarted?.close();
    await t?.stop();
  });

  it('a PENDING settlement whose expiresAt passed while the server was stopped becomes UNMATCHED right after start', async () => {
    t = await startTestServer({ settlementTtlSeconds: 1 });
    const c = client(t.url, t.tenant.apiKey.rawKey);
    const accountId = await makeAccount(c, { name: 'receiving' });
    const res = await c.post(
      '/api/v1/settlements',
      { accountId, expectedToken: 'USDC', expectedAmount: '3', expectedWalletAddress: '0x0000000000000000000000000000000000000007', expectedChainId: 'EVM' },
      { 'idempotency-key': 'restart-1' },
    );
    expect(res.status, res.text).toBe(201);
    await t.server.close();
    // Down for longer than the TTL: nobody sweeps.
    await new Promise((resolve) => setTimeout(resolve, Date.parse(res.body.expiresAt) - Date.now() + 300));

    restarted = await startServer({ dbPath: t.dbPath, host: '127.0.0.1', port: 0, log: () => {}, settlementTtlSeconds: 3600 });
    const again = client(restarted.url, t.tenant.apiKey.rawKey);
    let status = 'PENDING';
    for (const deadline = Date.now() + 8000; status === 'PENDING' && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await again.get(`/api/v1/settlements/${res.body.settlementId}`)).body.status;
    }
    expect(status).toBe('UNMATCHED');
    const exported = await again.get('/api/v1/compliance/audit-export?from=2000-01-01&to=2200-01-01');
    const actions = exported.text.trim().split('\n').map((line) => JSON.parse(line).action);
    expect(actions).toContain('SETTLEMENT_UNMATCHED');
  });
});
