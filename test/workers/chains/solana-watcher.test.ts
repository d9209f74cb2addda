// The Solana watcher against a test JSON-RPC node whose transfers really execute in litesvm (SPL Token and
// Token-2022): finalized transactions only, failed ones skipped, credits from the token balances, every transfer
// recorded once, paging, an outage, a restart and a re-scan settling nothing twice, and `ledger watch status`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlOn } from '../../helpers/sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, KeyPairSigner } from '@solana/kit';
import { startServer, type RunningServer } from '../../../src/server/serve.js';
import { testDb, cli, client, createTenant, makeAccount, onchain, post, type Client } from '../../helpers/server.js';
import { startSolanaNode, type SolanaNode } from './solana-node.js';
import { afterRequests, storedCheckpoint, until } from './support.js';
import { EVENT_TYPES } from '../../../src/store/sql/storedNames.js';


/** Small pages, so that the suite sees the watcher page back through getSignaturesForAddress. */
const PAGE = 2;

describe('Solana watcher', () => {
  let dir: string;
  let dbPath: string;
  let node: SolanaNode;
  let server: RunningServer;
  let c: Client;
  let rawKey = '';
  let receiving: string;
  let USDC: Address;
  let PYUSD: Address;
  let OTHER: Address;
  let sender: KeyPairSigner;
  let tokens: { EVM: object; TRON: object; SOLANA: Record<string, { mint: string; decimals: number; program: 'spl-token' | 'spl-token-2022' }> };

  const start = () =>
    startServer({ db: dbPath, host: '127.0.0.1', port: 0, log: () => {}, chains: { solanaRpc: node.url, tokens, pollMs: 50, solanaSignaturesPerPage: PAGE } });
  const checkpoint = () => server.ledger.store.chainCheckpoint('SOLANA');
  /** Waits until the watcher has read every finalized slot so far. */
  const caughtUp = () => until('the watcher to reach the finalized slot', async () => ((await checkpoint())?.nextBlock ?? 0) > node.finalizedSlot);
  const newWallet = async () => (await node.wallet()).address;
  const register = async (wallet: string, amount: string, extra: Record<string, unknown> = {}) => {
    const res = await c.post(
      '/api/v1/settlements',
      { accountId: receiving, expectedToken: 'USDC', expectedAmount: amount, expectedWalletAddress: wallet, expectedChainId: 'SOLANA', ...extra },
      { 'idempotency-key': `sol-${wallet}-${amount}-${Math.random()}` },
    );
    expect(res.status, res.text).toBe(201);
    return res.body.settlementId as string;
  };
  const settlement = async (id: string) => (await c.get(`/api/v1/settlements/${id}`)).body;
  const settled = (id: string) => until(`${id} to settle`, async () => ((await settlement(id)).status === 'SETTLED' ? settlement(id) : false));
  const transactionCount = async () => (await c.get('/api/v1/transactions?limit=200')).body.items.length as number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-solana-'));
    dbPath = await testDb(dir);
    node = await startSolanaNode();
    USDC = await node.createMint('spl-token', 6);
    PYUSD = await node.createMint('spl-token-2022', 6);
    OTHER = await node.createMint('spl-token', 6);
    sender = await node.wallet();
    for (const mint of [USDC, PYUSD, OTHER]) await node.mintTo(mint, sender.address, 1_000_000_000n);
    node.finalize();
    tokens = {
      EVM: {},
      TRON: {},
      SOLANA: { USDC: { mint: USDC, decimals: 6, program: 'spl-token' }, PYUSD: { mint: PYUSD, decimals: 6, program: 'spl-token-2022' } },
    };
    const tenant = await createTenant(dbPath);
    rawKey = tenant.apiKey.rawKey;
    server = await start();
    c = client(server.url, rawKey);
    receiving = await makeAccount(c, { name: 'solana receipts' });
    await caughtUp();
  });
  afterAll(async () => {
    await server?.close();
    await node?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('settles on an SPL Token transfer only once its slot is finalized, by a posting of its own', async () => {
    const wallet = await newWallet();
    const id = await register(wallet, '12.5');
    const { signature, slot, failed } = await node.transfer(USDC, sender, [{ to: wallet, amount: 12_500_000n }]);
    expect(failed).toBe(false);
    node.mine(3);
    // Whole polls after the transfer's slot was made: they saw it, not yet finalized, and left it alone.
    await afterRequests(node, 3);
    expect((await settlement(id)).status).toBe('PENDING');
    node.finalize();
    await caughtUp();
    const done = await settled(id);
    expect(done).toMatchObject({ status: 'SETTLED', txHash: signature, blockNumber: slot });
    const posted = (await c.get(`/api/v1/transactions/${done.matchedTransactionId}`)).body;
    expect(posted.lines.map((l: any) => [l.type, String(l.monetary.amount), l.monetary.type, l.monetary.txHash, l.monetary.walletAddress, l.monetary.tokenContract])).toEqual([
      ['DEBIT', '12.5', 'ONCHAIN', signature, wallet, USDC],
      ['CREDIT', '12.5', 'ONCHAIN', signature, wallet, USDC],
    ]);
    // The same write recorded the audit trail, by the system actor, and the settlement.matched event.
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const exported = await c.get(`/api/v1/compliance/audit-export?from=${from}&to=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(exported.status, exported.text).toBe(200);
    const records = exported.text.trim().split('\n').map((line) => JSON.parse(line));
    expect(records).toContainEqual(expect.objectContaining({ action: 'SETTLEMENT_MATCHED', actorKeyId: 'system', payload: expect.objectContaining({ settlementId: id, txHash: signature, source: 'CHAIN' }) }));
    expect(records).toContainEqual(expect.objectContaining({ action: 'POST_TRANSACTION', actorKeyId: 'system', payload: expect.objectContaining({ transactionId: done.matchedTransactionId }) }));
    const events = (await sqlOn<{ payload: string }>(dbPath, 'SELECT payload FROM outbox WHERE type = ?', [EVENT_TYPES.stored('settlement.matched')])).rows;
    expect(events.map((e) => JSON.parse(e.payload))).toContainEqual(expect.objectContaining({ settlementId: id, status: 'SETTLED', txHash: signature }));
  });

  it('settles PYUSD sent through Token-2022', async () => {
    const wallet = await newWallet();
    const id = await register(wallet, '40', { expectedToken: 'PYUSD' });
    const { signature } = await node.transfer(PYUSD, sender, [{ to: wallet, amount: 40_000_000n }]);
    node.finalize();
    expect(await settled(id)).toMatchObject({ txHash: signature, expectedToken: 'PYUSD' });
  });

  it('skips failed transactions, other mints, wrong amounts, other wallets and other senders', async () => {
    const wallet = await newWallet();
    const plain = await register(wallet, '3');
    const pyusd = await register(wallet, '3', { expectedToken: 'PYUSD' });
    const expectingOther = await newWallet();
    const bySomeoneElse = await register(expectingOther, '4', { expectedFromAddress: (await node.wallet()).address });
    const poor = await node.wallet();
    await node.mintTo(USDC, poor.address, 1_000_000n);
    const overdraft = await node.transfer(USDC, poor, [{ to: wallet, amount: 3_000_000n }]);
    expect(overdraft.failed).toBe(true);
    await node.transfer(OTHER, sender, [{ to: wallet, amount: 3_000_000n }]);
    await node.transfer(USDC, sender, [{ to: wallet, amount: 3_000_001n }]);
    await node.transfer(USDC, sender, [{ to: await newWallet(), amount: 3_000_000n }]);
    // Exactly what that settlement expects, to its wallet, but from another sender.
    await node.transfer(USDC, sender, [{ to: expectingOther, amount: 4_000_000n }]);
    const seenBefore = (await checkpoint())!.transfersSeen;
    node.finalize();
    await caughtUp();
    expect((await settlement(plain)).status).toBe('PENDING');
    expect((await settlement(pyusd)).status).toBe('PENDING');
    expect((await settlement(bySomeoneElse)).status).toBe('PENDING');
    // The wrong amount and the wrong sender were credits of a watched token to a watched wallet.
    expect((await checkpoint())!.transfersSeen - seenBefore).toBe(2);
    // The expected sender is the owner of the account the tokens left.
    const fromSender = await register(await newWallet(), '4.5', { expectedFromAddress: sender.address });
    const { expectedWalletAddress } = await settlement(fromSender);
    await node.transfer(USDC, sender, [{ to: expectedWalletAddress, amount: 4_500_000n }]);
    node.finalize();
    expect((await settled(fromSender)).status).toBe('SETTLED');
  });

  it('one transaction paying two watched wallets settles both, each credit recorded once', async () => {
    const [a, b] = [await newWallet(), await newWallet()];
    const first = await register(a, '1.25');
    const second = await register(b, '2.5');
    const seenBefore = (await checkpoint())!.transfersSeen;
    const { signature } = await node.transfer(USDC, sender, [
      { to: a, amount: 1_250_000n },
      { to: b, amount: 2_500_000n },
    ]);
    node.finalize();
    expect((await settled(first)).txHash).toBe(signature);
    expect((await settled(second)).txHash).toBe(signature);
    await caughtUp();
    expect((await checkpoint())!.transfersSeen - seenBefore).toBe(2);
  });

  it('links the posted transaction that records the transfer (its base58 signature kept as written) instead of posting again', async () => {
    const wallet = await newWallet();
    const { signature, slot } = await node.transfer(USDC, sender, [{ to: wallet, amount: 3_250_000n }]);
    const counter = await makeAccount(c, { name: 'solana counterparty' });
    const extra = { chainId: 'SOLANA', txHash: signature, blockNumber: slot, walletAddress: wallet, tokenContract: USDC };
    const posted = await post(c, [onchain(receiving, 'DEBIT', '3.25', 'USDC', extra), onchain(counter, 'CREDIT', '3.25', 'USDC', extra)]);
    expect(posted.status, posted.text).toBe(201);
    // The posting cannot prove the sender; the transfer the watcher sees can.
    const id = await register(wallet, '3.25', { expectedFromAddress: sender.address });
    expect((await settlement(id)).status).toBe('PENDING');
    const count = await transactionCount();
    node.finalize();
    const done = await settled(id);
    expect(done).toMatchObject({ matchedTransactionId: posted.body.transactionId, txHash: signature, blockNumber: slot });
    expect(await transactionCount()).toBe(count);
  });

  it('settles nothing with a matching transfer that arrives after the settlement was cancelled', async () => {
    const wallet = await newWallet();
    const id = await register(wallet, '5');
    const keepsWatching = await register(wallet, '6');
    expect((await c.del(`/api/v1/settlements/${id}`)).status).toBe(200);
    const count = await transactionCount();
    await node.transfer(USDC, sender, [{ to: wallet, amount: 5_000_000n }]);
    node.finalize();
    await caughtUp();
    expect((await settlement(id)).status).toBe('CANCELLED');
    expect((await settlement(keepsWatching)).status).toBe('PENDING');
    expect(await transactionCount()).toBe(count);
  });

  it('an outage of the node keeps the checkpoint, and the transfer settles when the node is back', async () => {
    const wallet = await newWallet();
    const id = await register(wallet, '6.5');
    await caughtUp();
    const before = (await checkpoint())!.nextBlock;
    node.down = true;
    await node.transfer(USDC, sender, [{ to: wallet, amount: 6_500_000n }]);
    node.finalize();
    // Polls failed against the down node (with back-off): nothing settled, the checkpoint did not move.
    await afterRequests(node, 3);
    expect((await settlement(id)).status).toBe('PENDING');
    expect((await checkpoint())!.nextBlock).toBe(before);
    node.down = false;
    await until('SETTLED after the outage', async () => (await settlement(id)).status === 'SETTLED', 40_000);
  }, 60_000);

  it('pages back through many signatures, resumes after a restart, and a re-scan settles nothing twice', async () => {
    const wallet = await newWallet();
    // Five transfers to one account: more than two pages of two.
    const ids = [];
    for (const amount of ['7.01', '7.02', '7.03', '7.04', '7.05']) ids.push(await register(wallet, amount));
    for (const amount of [7_010_000n, 7_020_000n, 7_030_000n]) await node.transfer(USDC, sender, [{ to: wallet, amount }]);
    node.finalize();
    for (const id of ids.slice(0, 3)) await settled(id);
    await caughtUp();
    await server.close();

    const before = await storedCheckpoint(dbPath, 'SOLANA');
    // While the watcher is stopped: two more transfers become final, and the checkpoint is set back before all five.
    for (const amount of [7_040_000n, 7_050_000n]) await node.transfer(USDC, sender, [{ to: wallet, amount }]);
    node.finalize();
    await sqlOn(dbPath, "UPDATE chain_checkpoints SET next_block = next_block - 12 WHERE chain = 'SOLANA'");
    const transactionsBefore = await (async () => {
      server = await start();
      c = client(server.url, rawKey);
      return transactionCount();
    })();
    for (const id of ids.slice(3)) await settled(id);
    await caughtUp();
    // Only the two new transfers were recorded and posted; the three re-read ones changed nothing.
    expect(await transactionCount()).toBe(transactionsBefore + 2);
    await server.close();
    const after = await storedCheckpoint(dbPath, 'SOLANA');
    expect(after.seen - before.seen).toBe(2);
    expect(after.matched - before.matched).toBe(2);
    expect(after.next).toBe(node.finalizedSlot + 1);
    server = await start();
    c = client(server.url, rawKey);
  });

  it('`ledger watch status` shows the Solana endpoint, checkpoint, finalized head, lag and counts', async () => {
    await caughtUp();
    await server.close();
    node.mine(4);
    node.finalize();
    const cp = await storedCheckpoint(dbPath, 'SOLANA');
    const res = await cli(['--db', dbPath, 'watch', 'status', '--json', '--solana-rpc', node.url]);
    expect(res.code, res.stderr).toBe(0);
    const solana = (JSON.parse(res.stdout) as any[]).find((r) => r.chain === 'SOLANA');
    expect(solana).toMatchObject({
      endpoint: node.url,
      checkpoint: cp.next - 1,
      head: node.finalizedSlot,
      lag: 4,
      transfersSeen: cp.seen,
      transfersMatched: cp.matched,
    });
    server = await start();
    c = client(server.url, rawKey);
  });

  it('refuses to start when a mint has other decimals or belongs to another token program, naming the token', async () => {
    const other = join(dir, 'other.db');
    const run = (SOLANA: object) => startServer({ db: other, host: '127.0.0.1', port: 0, log: () => {}, chains: { solanaRpc: node.url, tokens: { EVM: {}, TRON: {}, SOLANA } } });
    await expect(run({ USDT: { mint: USDC, decimals: 2, program: 'spl-token' } })).rejects.toThrow(/USDT.*6 decimals on chain.*2/);
    await expect(run({ PYUSD: { mint: PYUSD, decimals: 6, program: 'spl-token' } })).rejects.toThrow(/PYUSD.*spl-token program/);
    await expect(run({ USDC: { mint: (await node.wallet()).address, decimals: 6, program: 'spl-token' } })).rejects.toThrow(/USDC: there is no mint account/);
  });
});
