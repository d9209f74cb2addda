// Two `ledger watch` processes on one chain and one database (issue 14): one watches (it holds the chain's lease: a
// session lock on PostgreSQL, a lock file on SQLite), the other stands by and takes over when the first is killed;
// each transfer is recorded once and each settlement settled once. The chain is the test TRON full node
// (test/workers/chains/tron-node.ts), the cheapest to run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServerWithAccounts, type Client } from '../../helpers/server.js';
import { killAll, spawnLedger, type Spawned } from '../../helpers/spawn.js';
import { until } from '../../helpers/poll.js';
import { sqlOn } from '../../helpers/sql.js';
import { TEST_ENGINE } from '../../helpers/postgres.js';
import { startFakeTron, tronAddress, type FakeTron } from './tron-node.js';

const USDT = tronAddress('a614f803b6fd780986a42c78ec9c7f77e6ded13c');
const SENDER = tronAddress('11'.repeat(20));
const WALLET = tronAddress('abc456');

describe(`two chain watchers on one ${TEST_ENGINE} database`, () => {
  let c: Client;
  let node: FakeTron;
  let dir: string;
  let tokensFile: string;
  let account: string;

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const t = useServerWithAccounts({ accounts: { account: { name: 'tron receipts' } } });
  beforeAll(async () => {
    ({ client: c, accounts: { account } } = t);
    node = await startFakeTron({ decimals: { [USDT]: 6 } });
    dir = mkdtempSync(join(tmpdir(), 'ledger-watchers-'));
    tokensFile = join(dir, 'tokens.json');
    writeFileSync(tokensFile, JSON.stringify({ TRON: { USDT: { address: USDT, decimals: 6 } } }));
  });
  afterAll(async () => {
    await killAll();
    await node?.close();
  });

  const register = async (amount: string) => {
    const res = await c.post(
      '/api/v1/settlements',
      { accountId: account, expectedToken: 'USDT', expectedAmount: amount, expectedWalletAddress: WALLET, expectedChainId: 'TRON' },
      { 'idempotency-key': `elected-${amount}` },
    );
    expect(res.status, res.text).toBe(201);
    return res.body.settlementId as string;
  };
  const settled = (id: string) =>
    until(`settlement ${id} settled`, async () => ((await c.get(`/api/v1/settlements/${id}`)).body.status === 'SETTLED' ? true : undefined), 20_000);
  const watcher = async (): Promise<Spawned> => {
    const watch = spawnLedger(['--db', t.dbPath, 'watch', '--tron-api', node.url, '--tokens', tokensFile]);
    await watch.waitForOutput(/chain watchers running/);
    return watch;
  };

  it('one watches and one stands by; the one standing by takes over from a killed one; each transfer counts once', async () => {
    const first = await register('11');
    const second = await register('22');
    const watchers = [await watcher(), await watcher()];
    const standing = await until('one watcher standing by', () => watchers.find((w) => w.stderr().includes('standing by: another process watches TRON')), 20_000);
    const active = watchers.find((w) => w !== standing)!;
    expect(active.stderr()).not.toContain('standing by');

    node.transfer({ contract: USDT, from: SENDER, to: WALLET, value: 11_000_000n });
    node.mine(node.lag);
    await settled(first);

    active.kill();
    await active.exited;
    node.transfer({ contract: USDT, from: SENDER, to: WALLET, value: 22_000_000n });
    node.mine(node.lag);
    await settled(second);
    await until('the takeover line', () => standing.stderr().includes('this process watches TRON now'));

    const transfers = await sqlOn<{ n: string | number }>(t.dbPath, 'select count(*) as n from chain_transfers');
    expect(Number(transfers.rows[0]!.n)).toBe(2);
    const results = await sqlOn<{ n: string | number }>(t.dbPath, "select count(*) as n from reconciliation_results where outcome = 'SETTLED'");
    expect(Number(results.rows[0]!.n)).toBe(2);
  });
});
