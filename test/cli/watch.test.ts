// `ledger watch` through the built binary, beside a server on the same database: README, CLI reference: "the chain
// watchers alone, beside a server on the same database ... until SIGINT or SIGTERM; without any endpoint it exits 2",
// and `ledger watch status`: "per chain: endpoint, checkpoint, head and lag ..., transfers seen and matched". The
// chain is the test TRON full node (test/workers/chains/tron-node.ts), the cheapest to run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeAccount, useServerWithAccounts, type Client } from '../helpers/server.js';
import { killAll, spawnLedger } from '../helpers/spawn.js';
import { until } from '../helpers/poll.js';
import { startFakeTron, tronAddress, type FakeTron } from '../workers/chains/tron-node.js';

const USDT = tronAddress('a614f803b6fd780986a42c78ec9c7f77e6ded13c');
const SENDER = tronAddress('11'.repeat(20));
const WALLET = tronAddress('abc123');

describe('ledger watch', () => {
  let c: Client;
  let node: FakeTron;
  let dir: string;
  let tokensFile: string;

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const t = useServerWithAccounts();
  beforeAll(async () => {
    c = t.client;
    node = await startFakeTron({ decimals: { [USDT]: 6 } });
    dir = mkdtempSync(join(tmpdir(), 'ledger-watch-'));
    tokensFile = join(dir, 'tokens.json');
    writeFileSync(tokensFile, JSON.stringify({ TRON: { USDT: { address: USDT, decimals: 6 } } }));
  });
  afterAll(async () => {
    await killAll();
    await node?.close();
  });

  it('watches the configured chain beside the server: a transfer settles the settlement the server registered; SIGTERM exits 0', async () => {
    const account = await makeAccount(c, { name: 'tron receipts' });
    const registered = await c.post(
      '/api/v1/settlements',
      { accountId: account, expectedToken: 'USDT', expectedAmount: '25', expectedWalletAddress: WALLET, expectedChainId: 'TRON' },
      { 'idempotency-key': 'watch-1' },
    );
    expect(registered.status, registered.text).toBe(201);

    const watch = spawnLedger(['--db', t.dbPath, 'watch', '--tron-api', node.url, '--tokens', tokensFile]);
    await watch.waitForOutput(/chain watchers running/);
    await until('the watching line', () => watch.stderr().includes(`watching TRON at ${node.url} (solidified blocks)`));
    expect(watch.stderr()).toContain('EVM is not watched');
    expect(watch.stderr()).toContain('Solana is not watched');
    const polled = node.requests;
    await until('the watcher polling the node', () => node.requests > polled + 2);

    node.transfer({ contract: USDT, from: SENDER, to: WALLET, value: 25_000_000n });
    node.mine(node.lag);
    const settled = await until('the settlement settled by the watch process', async () => {
      const s = await c.get(`/api/v1/settlements/${registered.body.settlementId}`);
      return s.body.status === 'SETTLED' ? s.body : undefined;
    }, 20_000);
    expect(settled).toMatchObject({ status: 'SETTLED', expectedAmount: '25' });

    const status = await cli(['--db', t.dbPath, 'watch', 'status', '--tron-api', node.url, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const tron = (JSON.parse(status.stdout) as Array<Record<string, unknown>>).find((row) => row.chain === 'TRON');
    expect(tron).toMatchObject({ chain: 'TRON', endpoint: node.url, transfersSeen: 1, transfersMatched: 1 });
    expect(tron!.checkpoint).toBeGreaterThanOrEqual(node.head - node.lag - 1);
    expect(tron!.head).toBe(node.head - node.lag);

    watch.child.kill('SIGTERM');
    expect(await watch.exited).toEqual({ code: 0, signal: null });
    expect(watch.stderr()).toMatch(/stopped\n$/);
  });

  it('the chain variables configure it as the flags do (LEDGER_TRON_API_URL, LEDGER_TOKENS_FILE)', async () => {
    const watch = spawnLedger(['--db', t.dbPath, 'watch'], { env: { LEDGER_TRON_API_URL: node.url, LEDGER_TOKENS_FILE: tokensFile } });
    await watch.waitForOutput(/chain watchers running/);
    await until('the watching line', () => watch.stderr().includes(`watching TRON at ${node.url}`));
    watch.child.kill('SIGINT');
    expect(await watch.exited).toEqual({ code: 0, signal: null });
  });

  it('a token whose decimals the chain contradicts stops it from starting, naming the token (exit 1)', async () => {
    const wrong = join(dir, 'wrong.json');
    writeFileSync(wrong, JSON.stringify({ TRON: { USDT: { address: USDT, decimals: 2 } } }));
    const run = await cli(['--db', t.dbPath, 'watch', '--tron-api', node.url, '--tokens', wrong]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/USDT/);
    expect(run.stdout).toBe('');
  });
});
