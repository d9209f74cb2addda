// The EVM chain watcher end to end: a real anvil node, ERC-20 tokens compiled with solc and deployed in the setup, the
// real server (with its watcher) on a temporary SQLite file, spoken to over HTTP, and `ledger watch status` at the end.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlOn } from '../../helpers/sql.js';
import { getAddress, parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../src/server/serve.js';
import type { ChainSettings } from '../../../src/workers/index.js';
import { cli, client, testDb, createTenant, makeAccount, onchain, post, type Client } from '../../helpers/server.js';
import { deployToken, startAnvil, type Anvil, type TestToken } from './anvil.js';
import { until } from './support.js';

const CONFIRMATIONS = 3;
const usdc = (amount: string) => parseUnits(amount, 6);
const newWallet = (): Address => privateKeyToAccount(generatePrivateKey()).address;

let anvil: Anvil;
let USDC: TestToken;
let USDT: TestToken;
let dir: string;
let dbPath: string;
let apiKey: string;
let running: RunningServer | null = null;
let c: Client;
let receipts: string; // the settlements' account
let counter: string; // the other side of postings made by the test

const chainSettings = (): ChainSettings => ({
  evmRpc: anvil.url,
  evmConfirmations: CONFIRMATIONS,
  tokens: { EVM: { USDC: { address: USDC.address, decimals: 6 }, USDT: { address: USDT.address, decimals: 6 } }, SOLANA: {}, TRON: {} },
  pollMs: 100,
});

const checkpoint = () => running!.ledger.store.chainCheckpoint('EVM');

/** Starts the server with its EVM watcher on the test's database, and waits for the watcher's first checkpoint. */
async function start(): Promise<void> {
  running = await startServer({ db: dbPath, host: '127.0.0.1', port: 0, log: () => {}, chains: chainSettings() });
  c = client(running.url, apiKey);
  await until('the watcher to write its first checkpoint', async () => (await checkpoint()) !== undefined);
}

async function stop(): Promise<void> {
  const r = running;
  running = null;
  await r?.close();
}

/** Waits until the watcher has scanned `block` (its checkpoint is past it). */
async function scannedThrough(block: number): Promise<void> {
  await until(`the watcher to scan block ${block} (checkpoint ${(await checkpoint())?.nextBlock})`, async () => ((await checkpoint())?.nextBlock ?? 0) > block);
}

/** Waits until every final block of the current head has been scanned. */
async function scannedToHead(): Promise<void> {
  await scannedThrough((await anvil.blockNumber()) - CONFIRMATIONS + 1);
}

let keySeq = 0;
async function register(body: { expectedAmount: string; expectedWalletAddress: string; expectedToken?: string; expectedFromAddress?: string }): Promise<any> {
  const res = await c.post(
    '/api/v1/settlements',
    { accountId: receipts, expectedToken: 'USDC', expectedChainId: 'EVM', ...body },
    { 'idempotency-key': `evm-watch-${process.pid}-${Date.now()}-${keySeq++}` },
  );
  expect(res.status, res.text).toBe(201);
  expect(res.body.status).toBe('PENDING');
  return res.body;
}

async function settlement(id: string): Promise<any> {
  const res = await c.get(`/api/v1/settlements/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function settled(id: string): Promise<any> {
  return until(`settlement ${id} to settle`, async () => {
    const s = await settlement(id);
    return s.status === 'SETTLED' ? s : undefined;
  });
}

async function transactionCount(): Promise<number> {
  let n = 0;
  let cursor: string | null = null;
  for (;;) {
    const res: any = await c.get(`/api/v1/transactions?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, res.text).toBe(200);
    n += res.body.items.length;
    cursor = res.body.nextCursor;
    if (!cursor) return n;
  }
}

beforeAll(async () => {
  anvil = await startAnvil();
  USDC = await deployToken(anvil, 'USD Coin', 'USDC', 6);
  USDT = await deployToken(anvil, 'Tether USD', 'USDT', 6);
  await USDC.mint(anvil.deployer.address, usdc('1000000'));
  await USDT.mint(anvil.deployer.address, usdc('1000000'));
  // The second account sends too (it has ether from anvil's genesis).
  await USDC.transfer(anvil.second.address, usdc('1000'));
  dir = mkdtempSync(join(tmpdir(), 'ledger-evm-'));
  dbPath = await testDb(dir);
  apiKey = (await createTenant(dbPath)).apiKey.rawKey;
  await start();
  receipts = await makeAccount(c, { name: 'receipts' });
  counter = await makeAccount(c, { name: 'counterparty' });
});

afterAll(async () => {
  await stop().catch(() => {});
  await anvil?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('EVM watcher against anvil', () => {
  it('settles a transfer of the exact amount only once its block has 3 confirmations, by a posting of its own', async () => {
    const wallet = newWallet();
    const s = await register({ expectedAmount: '12.5', expectedWalletAddress: wallet });
    const before = (await checkpoint())!;

    const { hash, blockNumber } = await USDC.transfer(wallet, usdc('12.5'));
    // One confirmation (the block itself), then two: still PENDING, and the watcher has not read the block.
    await scannedThrough(blockNumber - 2);
    expect((await settlement(s.settlementId)).status).toBe('PENDING');
    await anvil.mine(1);
    await scannedThrough(blockNumber - 1);
    expect((await checkpoint())!.nextBlock).toBe(blockNumber);
    expect((await settlement(s.settlementId)).status).toBe('PENDING');

    // The third confirmation makes it final.
    await anvil.mine(1);
    const done = await settled(s.settlementId);
    expect(done.txHash).toBe(hash.toLowerCase());
    expect(done.blockNumber).toBe(blockNumber);
    expect(done.confirmedAt).toEqual(expect.any(String));
    expect(done.matchedTransactionId).toEqual(expect.any(String));
    expect((await checkpoint())!.transfersSeen - before.transfersSeen).toBe(1);
    expect((await checkpoint())!.transfersMatched - before.transfersMatched).toBe(1);

    // The ledger posted it: an ONCHAIN DEBIT of the settlement's account, a CREDIT of the clearing account.
    const tx = await c.get(`/api/v1/transactions/${done.matchedTransactionId}`);
    expect(tx.status, tx.text).toBe(200);
    expect(tx.body.lines).toHaveLength(2);
    const debit = tx.body.lines.find((l: any) => l.type === 'DEBIT');
    const credit = tx.body.lines.find((l: any) => l.type === 'CREDIT');
    expect(debit.accountId).toBe(receipts);
    expect(debit.monetary).toMatchObject({ type: 'ONCHAIN', token: 'USDC', chainId: 'EVM', txHash: hash.toLowerCase(), blockNumber });
    expect(String(debit.monetary.amount)).toBe('12.5');
    expect(debit.monetary.walletAddress.toLowerCase()).toBe(wallet.toLowerCase());
    expect(credit.accountId).not.toBe(receipts);
    expect(credit.monetary).toMatchObject({ type: 'ONCHAIN', token: 'USDC', chainId: 'EVM', txHash: hash.toLowerCase() });
    expect(String(credit.monetary.amount)).toBe('12.5');
    const clearing = await c.get(`/api/v1/accounts/${credit.accountId}`);
    expect(clearing.status, clearing.text).toBe(200);
    expect(clearing.body.name).toBe('On-chain receipts clearing');

    const results = await c.get('/api/v1/reconciliation/results?limit=200');
    expect(results.status, results.text).toBe(200);
    expect(results.body.items).toContainEqual(
      expect.objectContaining({ transactionId: done.matchedTransactionId, outcome: 'SETTLED', settlementId: s.settlementId, source: 'CHAIN' }),
    );
  });

  it('leaves a settlement PENDING on a wrong amount, another token, another wallet or another sender; the right sender settles it', async () => {
    const wallet = newWallet();
    const otherWallet = newWallet();
    const s = await register({ expectedAmount: '20', expectedWalletAddress: wallet });
    // The other wallet is watched too (by an expectation of another amount), so the transfer to it is read and refused.
    const decoy = await register({ expectedAmount: '999', expectedWalletAddress: otherWallet });
    const fromWallet = newWallet();
    const fromSecond = await register({ expectedAmount: '30', expectedWalletAddress: fromWallet, expectedFromAddress: anvil.second.address });
    const before = (await checkpoint())!;

    await USDC.transfer(wallet, usdc('20.000001')); // wrong amount
    await USDC.transfer(wallet, usdc('19.999999')); // wrong amount
    await USDT.transfer(wallet, usdc('20')); // another token contract (registered as USDT; USDC expected)
    await USDC.transfer(otherWallet, usdc('20')); // another wallet
    const wrongSender = await USDC.transfer(fromWallet, usdc('30')); // from the deployer, not the expected sender
    await anvil.mine(CONFIRMATIONS);
    await scannedThrough(wrongSender.blockNumber);
    expect((await checkpoint())!.transfersSeen - before.transfersSeen).toBe(5);
    expect((await checkpoint())!.transfersMatched - before.transfersMatched).toBe(0);
    for (const id of [s.settlementId, decoy.settlementId, fromSecond.settlementId]) {
      const now = await settlement(id);
      expect(now.status, id).toBe('PENDING');
      expect(now.matchedTransactionId).toBeNull();
    }

    // The expected sender, and then the exact transfer for the first one.
    const right = await USDC.transfer(fromWallet, usdc('30'), anvil.second);
    const exact = await USDC.transfer(getAddress(wallet.toLowerCase()), usdc('20'));
    await anvil.mine(CONFIRMATIONS - 1);
    const bySender = await settled(fromSecond.settlementId);
    expect(bySender.txHash).toBe(right.hash.toLowerCase());
    expect(bySender.blockNumber).toBe(right.blockNumber);
    expect(bySender.expectedFromAddress.toLowerCase()).toBe(anvil.second.address.toLowerCase());
    const byAmount = await settled(s.settlementId);
    expect(byAmount.txHash).toBe(exact.hash.toLowerCase());
    expect((await settlement(decoy.settlementId)).status).toBe('PENDING');
  });

  it('settles nothing when the transfer is reorganised away before it is final', async () => {
    const wallet = newWallet();
    const s = await register({ expectedAmount: '7', expectedWalletAddress: wallet });
    const before = (await checkpoint())!;
    const snap = await anvil.snapshot();
    const { hash, blockNumber } = await USDC.transfer(wallet, usdc('7'));
    await anvil.mine(CONFIRMATIONS - 2); // two confirmations: not final
    await scannedThrough(blockNumber - 1);
    expect((await settlement(s.settlementId)).status).toBe('PENDING');

    await anvil.revert(snap);
    expect(await anvil.blockNumber()).toBe(blockNumber - 1);
    await anvil.mine(CONFIRMATIONS + 3);
    // The transfer is gone from the chain that became final.
    expect(await USDC.balanceOf(wallet)).toBe(0n);
    await expect(anvil.publicClient.getTransactionReceipt({ hash })).rejects.toThrow();
    await scannedThrough(blockNumber + 3);
    const now = await settlement(s.settlementId);
    expect(now.status).toBe('PENDING');
    expect(now.matchedTransactionId).toBeNull();
    expect((await checkpoint())!.transfersSeen - before.transfersSeen).toBe(0);
    expect((await checkpoint())!.transfersMatched - before.transfersMatched).toBe(0);
  });

  it('links the posted transaction that records the transfer when the settlement expects a sender, instead of posting again', async () => {
    const wallet = newWallet();
    const { hash, blockNumber } = await USDC.transfer(wallet, usdc('3.25'));
    // Posted before the settlement exists: nothing to match at posting.
    const extra = { txHash: hash, blockNumber, walletAddress: wallet.toLowerCase(), tokenContract: USDC.address.toLowerCase() };
    const posted = await post(c, [onchain(receipts, 'DEBIT', '3.25', 'USDC', extra), onchain(counter, 'CREDIT', '3.25', 'USDC', extra)]);
    expect(posted.status, posted.text).toBe(201);
    const postedId = posted.body.transactionId as string;

    // The posting cannot prove the sender: the settlement stays PENDING until the watcher sees the transfer.
    const s = await register({ expectedAmount: '3.25', expectedWalletAddress: wallet, expectedFromAddress: anvil.deployer.address });
    expect((await settlement(s.settlementId)).status).toBe('PENDING');
    const countBefore = await transactionCount();

    await anvil.mine(CONFIRMATIONS - 1);
    const done = await settled(s.settlementId);
    expect(done.matchedTransactionId).toBe(postedId);
    expect(done.txHash).toBe(hash.toLowerCase());
    expect(done.blockNumber).toBe(blockNumber);
    expect(await transactionCount()).toBe(countBefore);
    const results = await c.get('/api/v1/reconciliation/results?limit=200');
    expect(results.body.items).toContainEqual(expect.objectContaining({ transactionId: postedId, outcome: 'SETTLED', settlementId: s.settlementId, source: 'CHAIN' }));
  });

  it('settles nothing with a matching transfer that arrives after the settlement was cancelled', async () => {
    const wallet = newWallet();
    const s = await register({ expectedAmount: '4', expectedWalletAddress: wallet });
    const watcher = await register({ expectedAmount: '5', expectedWalletAddress: wallet }); // keeps the wallet watched
    const del = await c.del(`/api/v1/settlements/${s.settlementId}`);
    expect(del.status, del.text).toBeLessThan(300);
    expect((await settlement(s.settlementId)).status).toBe('CANCELLED');
    const before = (await checkpoint())!;
    const countBefore = await transactionCount();

    const { blockNumber } = await USDC.transfer(wallet, usdc('4'));
    await anvil.mine(CONFIRMATIONS + 1);
    await scannedThrough(blockNumber + 1);
    expect((await checkpoint())!.transfersSeen - before.transfersSeen).toBe(1);
    expect((await checkpoint())!.transfersMatched - before.transfersMatched).toBe(0);
    const now = await settlement(s.settlementId);
    expect(now.status).toBe('CANCELLED');
    expect(now.matchedTransactionId).toBeNull();
    expect(now.txHash).toBeNull();
    expect((await settlement(watcher.settlementId)).status).toBe('PENDING');
    expect(await transactionCount()).toBe(countBefore);
  });

  it('resumes after a restart without settling twice; the same transfer seen twice settles only the oldest of two identical settlements', async () => {
    const wallet = newWallet();
    const older = await register({ expectedAmount: '5', expectedWalletAddress: wallet });
    const newer = await register({ expectedAmount: '5', expectedWalletAddress: wallet });
    const whileStoppedWallet = newWallet();
    const later = await register({ expectedAmount: '7', expectedWalletAddress: whileStoppedWallet });
    const before = (await checkpoint())!;

    // The transfer becomes final and the server is closed at once, possibly in the middle of the scan that reads it.
    const first = await USDC.transfer(wallet, usdc('5'));
    await anvil.mine(CONFIRMATIONS - 1);
    await stop();

    // While stopped: another transfer, made final.
    const second = await USDC.transfer(whileStoppedWallet, usdc('7'));
    await anvil.mine(CONFIRMATIONS);

    await start();
    const a = await settled(older.settlementId);
    expect(a.txHash).toBe(first.hash.toLowerCase());
    const l = await settled(later.settlementId);
    expect(l.txHash).toBe(second.hash.toLowerCase());
    expect(l.blockNumber).toBe(second.blockNumber);
    await scannedToHead();
    expect((await settlement(newer.settlementId)).status).toBe('PENDING');
    const afterRestart = (await checkpoint())!;
    expect(afterRestart.transfersSeen - before.transfersSeen).toBe(2);
    expect(afterRestart.transfersMatched - before.transfersMatched).toBe(2);
    const countAfterRestart = await transactionCount();

    // The same blocks read again (the checkpoint moved back while stopped): both transfers are seen a second time.
    await stop();
    const rewound = await sqlOn(dbPath, 'UPDATE chain_checkpoints SET next_block = ? WHERE chain = ?', [first.blockNumber, 'EVM']);
    expect(rewound.changes).toBe(1);
    await start();
    await scannedToHead();
    expect((await checkpoint())!.nextBlock).toBeGreaterThan(second.blockNumber);
    const n = await settlement(newer.settlementId);
    expect(n.status).toBe('PENDING');
    expect(n.matchedTransactionId).toBeNull();
    expect((await settlement(older.settlementId)).matchedTransactionId).toBe(a.matchedTransactionId);
    expect((await settlement(later.settlementId)).matchedTransactionId).toBe(l.matchedTransactionId);
    expect((await checkpoint())!.transfersSeen).toBe(afterRestart.transfersSeen);
    expect((await checkpoint())!.transfersMatched).toBe(afterRestart.transfersMatched);
    expect(await transactionCount()).toBe(countAfterRestart);
  });

  it('`ledger watch status --json` lists EVM with checkpoint, head, lag, transfers seen and matched', async () => {
    await scannedToHead();
    const cp = (await checkpoint())!;
    await stop();
    const head = await anvil.blockNumber();
    const res = await cli(['--db', dbPath, 'watch', 'status', '--json', '--evm-rpc', anvil.url]);
    expect(res.code, res.stderr).toBe(0);
    const rows = JSON.parse(res.stdout) as any[];
    const evm = rows.find((r) => r.chain === 'EVM');
    expect(evm).toMatchObject({
      chain: 'EVM',
      endpoint: anvil.url,
      checkpoint: cp.nextBlock - 1,
      head,
      lag: head - (cp.nextBlock - 1),
      transfersSeen: cp.transfersSeen,
      transfersMatched: cp.transfersMatched,
    });
    expect(evm.lag).toBe(CONFIRMATIONS - 1);
    // Everything the suite made final was seen: 1 + 5 + 2 + 1 + 1 + 2, of which 1 + 2 + 1 + 2 matched.
    expect(evm.transfersSeen).toBe(12);
    expect(evm.transfersMatched).toBe(6);
    expect(rows.map((r) => r.chain).sort()).toEqual(['EVM', 'SOLANA', 'TRON']);
  });

  it('refuses to start when the registry decimals differ from the token contract, naming the token', async () => {
    const eighteen = await deployToken(anvil, 'Eighteen', 'E18', 18);
    expect(await eighteen.decimals()).toBe(18);
    const otherDb = join(dir, 'mismatch.db');
    await expect(
      startServer({
        db: otherDb,
        host: '127.0.0.1',
        port: 0,
        log: () => {},
        chains: { evmRpc: anvil.url, evmConfirmations: CONFIRMATIONS, tokens: { EVM: { USDC: { address: eighteen.address, decimals: 6 } }, SOLANA: {}, TRON: {} }, pollMs: 100 },
      }),
    ).rejects.toThrow(/\bUSDC\b.*\b18\b/);
    // The same contract registered with its real decimals (as BRZ, kept at 18 places) starts.
    const ok = await startServer({
      db: otherDb,
      host: '127.0.0.1',
      port: 0,
      log: () => {},
      chains: { evmRpc: anvil.url, evmConfirmations: CONFIRMATIONS, tokens: { EVM: { BRZ: { address: eighteen.address, decimals: 18 } }, SOLANA: {}, TRON: {} }, pollMs: 100 },
    });
    await ok.close();
  });
});
