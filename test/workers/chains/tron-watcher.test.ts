// The TRON watcher against a test full node speaking the real HTTP API shapes: solidified blocks only, reverted
// transfers skipped, every transfer recorded once, a restart or re-scan settling nothing twice.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlOn } from '../../helpers/sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../src/server/serve.js';
import { testDb, client, createTenant, makeAccount, type Client } from '../../helpers/server.js';
import { startFakeTron, tronAddress, type FakeTron } from './tron-node.js';
import { afterRequests, storedCheckpoint, until } from './support.js';

const USDT = tronAddress('a614f803b6fd780986a42c78ec9c7f77e6ded13c');
const OTHER_TOKEN = tronAddress('3487b63d30b5b2c87fb7ffa8bcfade38eaac1abe');
const SENDER = tronAddress('11'.repeat(20));
const tokens = { EVM: {}, SOLANA: {}, TRON: { USDT: { address: USDT, decimals: 6 } } };


describe('TRON watcher', () => {
  let dir: string;
  let dbPath: string;
  let node: FakeTron;
  let server: RunningServer;
  let c: Client;
  let receiving: string;
  let walletCounter = 0;
  let rawKey = '';
  const newWallet = () => tronAddress((0xabc000 + walletCounter++).toString(16));

  const start = () => startServer({ db: dbPath, host: '127.0.0.1', port: 0, log: () => {}, chains: { tronApi: node.url, tokens, pollMs: 50 } });
  /** Waits until the watcher has read every solidified block so far. */
  const caughtUp = () => until('the watcher to reach the solidified head', async () => ((await server.ledger.store.chainCheckpoint('TRON'))?.nextBlock ?? 0) > node.head - node.lag);
  const register = async (wallet: string, amount: string, extra: Record<string, unknown> = {}) => {
    const res = await c.post(
      '/api/v1/settlements',
      { accountId: receiving, expectedToken: 'USDT', expectedAmount: amount, expectedWalletAddress: wallet, expectedChainId: 'TRON', ...extra },
      { 'idempotency-key': `tron-${walletCounter}-${amount}-${Math.random()}` },
    );
    expect(res.status, res.text).toBe(201);
    return res.body.settlementId as string;
  };
  const settlement = async (id: string) => (await c.get(`/api/v1/settlements/${id}`)).body;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-tron-'));
    dbPath = await testDb(dir);
    const tenant = await createTenant(dbPath);
    node = await startFakeTron({ decimals: { [USDT]: 6, [OTHER_TOKEN]: 6 } });
    server = await start();
    rawKey = tenant.apiKey.rawKey;
    c = client(server.url, rawKey);
    receiving = await makeAccount(c, { name: 'tron receipts' });
    await caughtUp();
  });
  afterAll(async () => {
    await server?.close();
    await node?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('settles on a matching transfer only once its block is solidified, by a posting of its own', async () => {
    const wallet = newWallet();
    const id = await register(wallet, '12.5');
    const { txId, block } = node.transfer({ contract: USDT, from: SENDER, to: wallet, value: 12_500_000n });
    node.mine(node.lag - 1);
    await caughtUp();
    expect((await settlement(id)).status).toBe('PENDING');
    node.mine(1);
    await caughtUp();
    const settled = await until('SETTLED', async () => ((await settlement(id)).status === 'SETTLED' ? settlement(id) : false));
    expect(settled).toMatchObject({ status: 'SETTLED', txHash: txId, blockNumber: block });
    const posted = (await c.get(`/api/v1/transactions/${settled.matchedTransactionId}`)).body;
    expect(posted.lines.map((l: any) => [l.type, l.monetary.type, l.monetary.txHash])).toEqual([
      ['DEBIT', 'ONCHAIN', txId],
      ['CREDIT', 'ONCHAIN', txId],
    ]);
  });

  it('skips reverted transfers, other tokens, wrong amounts and wrong senders', async () => {
    const wallet = newWallet();
    const plain = await register(wallet, '3');
    const expectingOther = newWallet();
    const fromSomeoneElse = await register(expectingOther, '4', { expectedFromAddress: tronAddress('22'.repeat(20)) });
    node.transfer({ contract: USDT, from: SENDER, to: wallet, value: 3_000_000n, reverted: true });
    node.transfer({ contract: OTHER_TOKEN, from: SENDER, to: wallet, value: 3_000_000n });
    node.transfer({ contract: USDT, from: SENDER, to: wallet, value: 3_000_001n });
    // Exactly what that settlement expects, to its wallet, but from another sender.
    node.transfer({ contract: USDT, from: SENDER, to: expectingOther, value: 4_000_000n });
    node.mine(node.lag);
    await caughtUp();
    expect((await settlement(plain)).status).toBe('PENDING');
    expect((await settlement(fromSomeoneElse)).status).toBe('PENDING');
  });

  it('a transfer after the settlement was cancelled settles nothing', async () => {
    const wallet = newWallet();
    const id = await register(wallet, '5');
    expect((await c.del(`/api/v1/settlements/${id}`)).status).toBe(200);
    node.transfer({ contract: USDT, from: SENDER, to: wallet, value: 5_000_000n });
    node.mine(node.lag);
    await caughtUp();
    expect((await settlement(id)).status).toBe('CANCELLED');
  });

  it('an outage of the node keeps the checkpoint, and the transfer is settled when the node is back', async () => {
    const wallet = newWallet();
    const id = await register(wallet, '6');
    node.down = true;
    node.transfer({ contract: USDT, from: SENDER, to: wallet, value: 6_000_000n });
    node.mine(node.lag);
    // Polls failed against the down node (with back-off): nothing settled.
    await afterRequests(node, 3);
    expect((await settlement(id)).status).toBe('PENDING');
    node.down = false;
    await until('SETTLED after the outage', async () => (await settlement(id)).status === 'SETTLED', 40_000);
  }, 60_000);

  it('a restart resumes from the checkpoint, and a re-scan of the same blocks settles nothing twice', async () => {
    const wallet = newWallet();
    const older = await register(wallet, '7');
    const newer = await register(wallet, '7');
    node.transfer({ contract: USDT, from: SENDER, to: wallet, value: 7_000_000n });
    node.mine(node.lag);
    await caughtUp();
    await until('the older settlement to settle', async () => (await settlement(older)).status === 'SETTLED');
    const transactionsBefore = (await c.get('/api/v1/transactions?limit=200')).body.items.length;
    await server.close();
    const before = await storedCheckpoint(dbPath, 'TRON');

    // Back to before the transfer: the same blocks are read again after the restart.
    await sqlOn(dbPath, "UPDATE chain_checkpoints SET next_block = next_block - ? WHERE chain = 'TRON'", [node.lag + 3]);
    // A transfer made while the watcher was stopped is read after the restart.
    const whileDown = await (async () => {
      const w = newWallet();
      return { wallet: w, value: 8_000_000n };
    })();
    server = await start();
    c = client(server.url, rawKey);
    const third = await register(whileDown.wallet, '8');
    node.transfer({ contract: USDT, from: SENDER, to: whileDown.wallet, value: whileDown.value });
    node.mine(node.lag);
    await caughtUp();
    await until('the transfer made after the restart to settle', async () => (await settlement(third)).status === 'SETTLED');
    expect((await settlement(older)).status).toBe('SETTLED');
    expect((await settlement(newer)).status).toBe('PENDING');
    expect((await c.get('/api/v1/transactions?limit=200')).body.items.length).toBe(transactionsBefore + 1);
    await server.close();
    const after = await storedCheckpoint(dbPath, 'TRON');
    expect([after.seen, after.matched]).toEqual([before.seen + 1, before.matched + 1]);
    server = await start();
    c = client(server.url, rawKey);
  });

  it('refuses to start when a token\'s decimals on chain differ from the registry', async () => {
    const wrong = { EVM: {}, SOLANA: {}, TRON: { USDT: { address: OTHER_TOKEN, decimals: 2 } } };
    await expect(startServer({ db: join(dir, 'other.db'), host: '127.0.0.1', port: 0, log: () => {}, chains: { tronApi: node.url, tokens: wrong } })).rejects.toThrow(/USDT/);
  });
});
