// `ledger serve --workers <list>` and `--no-workers` (issue 14): API processes and worker processes run apart. A
// server with no worker sends no webhook; a `webhooks run` beside it does.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, client, createTenant, fiat, makeAccount, post, testDb } from '../helpers/server.js';
import { killAll, spawnLedger, spawnServe } from '../helpers/spawn.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { until } from '../helpers/poll.js';

describe('serve --workers', () => {
  let dir: string;
  let db: string;
  let r: Receiver;
  let caFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-workers-'));
    db = await testDb(dir);
    r = await startReceiver();
    caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, r.cert);
  });
  afterAll(async () => {
    await killAll();
    await r?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a worker it does not know, naming the flag (exit 2)', async () => {
    for (const value of ['mailer', 'webhooks,,sweeper', '']) {
      const res = await cli(['--db', db, 'serve', '--port', '0', '--workers', value]);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain('--workers must be all, none, or a comma-separated list of sweeper, webhooks, watchers');
    }
  });

  it('says which workers run: a list, or LEDGER_WORKERS', async () => {
    const listed = await spawnServe(db, ['--workers', 'webhooks,sweeper']);
    await until('the workers line', () => /workers: sweeper, webhooks\n/.test(listed.stderr()));
    listed.kill();
    await listed.exited;
    const fromEnv = await spawnServe(db, [], { env: { LEDGER_WORKERS: 'watchers' } });
    await until('the workers line', () => /workers: watchers\n/.test(fromEnv.stderr()));
    fromEnv.kill();
    await fromEnv.exited;
  });

  it('with --no-workers the server sends no webhook; a `webhooks run` beside it sends them', async () => {
    const env = { NODE_EXTRA_CA_CERTS: caFile };
    const api = await spawnServe(db, ['--no-workers', '--webhook-allow-private'], { env });
    await until('the workers line', () => api.stderr().includes('workers: none (API only)'));
    const tenant = await createTenant(db, 'Apart');
    const c = client(api.url, tenant.apiKey.rawKey);
    const a = await makeAccount(c, { name: 'cash', type: 'ASSET' });
    const b = await makeAccount(c, { name: 'deposits', type: 'LIABILITY' });
    expect((await c.request('PUT', '/api/v1/tenant/webhook', { body: { webhookUrl: `${r.url}/apart` } })).status).toBe(200);
    const res = await post(c, [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')]);
    expect(res.status, res.text).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(r.received.filter((x) => x.path === '/apart')).toHaveLength(0);

    const sender = spawnLedger(['--db', db, 'webhooks', 'run', '--webhook-allow-private'], { env });
    await sender.waitForOutput(/webhook sender running/, 15_000);
    await until('the event at the receiver', () => r.received.some((x) => x.path === '/apart'), 15_000);
    const delivered = r.received.find((x) => x.path === '/apart')!;
    expect(JSON.parse(delivered.raw.toString()).data.transactionId).toBe(res.body.transactionId);
  });
});
