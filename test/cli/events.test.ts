// `ledger events` (issue 18): a tenant's events as NDJSON straight from the database, the same as the feed gives them;
// --after, --type, and --follow until SIGINT.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli, fiat, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { killAll, spawnLedger } from '../helpers/spawn.js';

describe('ledger events', () => {
  let c: Client;
  let a: string;
  let b: string;
  const postOne = async () => {
    const res = await post(c, [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')]);
    expect(res.status, res.text).toBe(201);
    return res.body.transactionId as string;
  };
  const lines = (stdout: string) => stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));

  const t = useServerWithAccounts({ accounts: { a: 'ASSET', b: 'LIABILITY' } });
  beforeAll(async () => {
    ({ client: c, accounts: { a, b } } = t);
    for (let i = 0; i < 3; i++) await postOne();
  });
  afterEach(() => killAll());

  it('prints every event as the feed gives it, one per line; --after and --type narrow it', async () => {
    const feed = (await c.get('/api/v1/events?limit=200')).body.items as any[];
    const all = await cli(['--db', t.dbPath, 'events', '--tenant', t.tenant.tenantId]);
    expect(all.code, all.stderr).toBe(0);
    expect(lines(all.stdout)).toEqual(feed);
    const after = await cli(['--db', t.dbPath, 'events', '--tenant', t.tenant.tenantId, '--after', feed[0].id]);
    expect(lines(after.stdout)).toEqual(feed.slice(1));
    const none = await cli(['--db', t.dbPath, 'events', '--tenant', t.tenant.tenantId, '--type', 'settlement.matched', '--type', 'settlement.unmatched']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe('');
  });

  it('refuses an unknown event, a bad kind or tenant with exit code 2', async () => {
    for (const args of [['--after', '01a21676-696d-7585-9b84-fd1898aedd3e'], ['--type', 'nope'], ['--after', 'nope']]) {
      const res = await cli(['--db', t.dbPath, 'events', '--tenant', t.tenant.tenantId, ...args]);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(2);
      expect(res.stderr).toMatch(/error:/);
    }
    expect((await cli(['--db', t.dbPath, 'events', '--tenant', 'nope'])).code).toBe(2);
  });

  it('--follow prints new events as they commit, and stops on SIGINT with exit code 0', async () => {
    const feed = (await c.get('/api/v1/events?limit=200')).body.items as any[];
    const follower = spawnLedger(['--db', t.dbPath, 'events', '--tenant', t.tenant.tenantId, '--after', feed.at(-1).id, '--follow']);
    const next = [await postOne(), await postOne()];
    await follower.waitForOutput(new RegExp(`${next[1]}`));
    follower.child.kill('SIGINT');
    expect((await follower.exited).code).toBe(0);
    expect(lines(follower.stdout()).map((e) => e.data.transactionId)).toEqual(next);
  });
});
