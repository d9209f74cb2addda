// README, Chain watching (EVM): "in ranges of at most 2,000 blocks, up to the last final block only, from a checkpoint
// stored in the database", "A first start begins at the next block (history before the ledger watched is not
// replayed)", "RPC failures back off up to 30 s and keep the checkpoint", and the `--evm-confirmations` row: default
// "the `finalized` tag". One real anvil; the watcher speaks to it through a small JSON-RPC proxy on 127.0.0.1 that
// records every request (and can fail one), so what the watcher asks for is seen.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../src/server/serve.js';
import type { ChainSettings } from '../../../src/workers/index.js';
import { nextScanDelayMs } from '../../../src/workers/chains/poller.js';
import { CHAIN_BACKOFF_MAX_MS } from '../../../src/core/limits.js';
import { EVM_BLOCK_RANGE_MAX } from '../../../src/core/limits.js';
import { testDb, client, createTenant, makeAccount, type Client } from '../../helpers/server.js';
import { deployToken, startAnvil, type Anvil, type TestToken } from './anvil.js';
import { storedCheckpoint, until } from './support.js';

describe('chain watcher back-off (nextScanDelayMs, shared by the EVM, TRON and Solana watchers)', () => {
  it('after a good scan: the poll interval; after failures in a row: 2 s, 4 s, 8 s, 16 s, then 30 s at most, for ever', () => {
    expect(nextScanDelayMs(0, 100)).toBe(100);
    expect(nextScanDelayMs(0, 1_000)).toBe(1_000);
    expect([1, 2, 3, 4].map((f) => nextScanDelayMs(f, 100))).toEqual([2_000, 4_000, 8_000, 16_000]);
    expect(CHAIN_BACKOFF_MAX_MS).toBe(30_000);
    for (const failures of [5, 6, 10, 100, 1_100, 1e9]) expect(nextScanDelayMs(failures, 100), `${failures} failures`).toBe(30_000);
    // each further failure doubles the wait until the cap, and the poll interval plays no part while failing
    for (let f = 2; f <= 64; f++) {
      expect(nextScanDelayMs(f, 100), `${f} failures`).toBe(Math.min(30_000, 2 * nextScanDelayMs(f - 1, 100)));
      expect(nextScanDelayMs(f, 5_000)).toBe(nextScanDelayMs(f, 100));
    }
  });
});

interface Recorded {
  at: number;
  method: string;
  params: any[];
}

/** A JSON-RPC proxy in front of anvil: records each call (batches too), answers what anvil answers, or fails on demand. */
async function startProxy(target: string) {
  const proxy = {
    url: '',
    calls: [] as Recorded[],
    /** The next this many requests are answered 503 without reaching anvil. */
    failNext: 0,
    failedAt: [] as number[],
    close: (): Promise<void> => Promise.resolve(),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const at = Date.now();
      try {
        const body = JSON.parse(raw) as { method: string; params?: any[] } | Array<{ method: string; params?: any[] }>;
        for (const call of Array.isArray(body) ? body : [body]) proxy.calls.push({ at, method: call.method, params: call.params ?? [] });
      } catch {
        proxy.calls.push({ at, method: '(unparsed)', params: [raw] });
      }
      if (proxy.failNext > 0) {
        proxy.failNext--;
        proxy.failedAt.push(at);
        res.writeHead(503, { 'content-type': 'text/plain' }).end('node unavailable');
        return;
      }
      try {
        const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
      } catch (error) {
        res.writeHead(502).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
type Proxy = Awaited<ReturnType<typeof startProxy>>;

const usdc = (amount: string) => parseUnits(amount, 6);
const newWallet = (): Address => privateKeyToAccount(generatePrivateKey()).address;
const num = (hex: string) => Number(BigInt(hex));

describe('EVM watcher claims against anvil (default finality: the `finalized` tag)', () => {
  let anvil: Anvil;
  let proxy: Proxy;
  let USDC: TestToken;
  let dir: string;
  let dbPath: string;
  let apiKey: string;
  let running: RunningServer | null = null;
  let c: Client;
  const logLines: string[] = [];
  let receipts: string;
  const W1 = newWallet();
  const W2 = newWallet();
  /** Settlements registered before the watcher ever ran. */
  let sOld: string;
  let sNew: string;
  let sFar: string;
  /** The block of the transfer made before the first start. */
  let oldBlock: number;

  // no evmConfirmations: the default
  const chainSettings = (): ChainSettings => ({
    evmRpc: proxy.url,
    tokens: { EVM: { USDC: { address: USDC.address, decimals: 6 } }, SOLANA: {}, TRON: {} },
    pollMs: 100,
  });
  const checkpoint = () => running!.ledger.store.chainCheckpoint('EVM');
  const finalized = async () => num((await anvil.rpc('eth_getBlockByNumber', ['finalized', false])).number);
  const calls = (method: string) => proxy.calls.filter((x) => x.method === method);
  /** Waits until the watcher has asked for the finalized block `n` more times: n - 1 whole polls since now. */
  const polls = async (n: number) => {
    const from = calls('eth_getBlockByNumber').length;
    await until(`${n} more polls`, () => calls('eth_getBlockByNumber').length >= from + n, 20_000, 10);
  };
  const status = async (id: string) => {
    const res = await c.get(`/api/v1/settlements/${id}`);
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const settled = (id: string) => until(`settlement ${id} SETTLED`, async () => ((await status(id)).status === 'SETTLED' ? status(id) : undefined), 20_000);

  async function start(watch: boolean): Promise<void> {
    running = await startServer({ db: dbPath, host: '127.0.0.1', port: 0, log: (line) => void logLines.push(line), ...(watch ? { chains: chainSettings() } : {}) });
    c = client(running.url, apiKey);
  }
  async function stop(): Promise<void> {
    const r = running;
    running = null;
    await r?.close();
  }
  let keySeq = 0;
  async function register(amount: string, wallet: Address): Promise<string> {
    const res = await c.post(
      '/api/v1/settlements',
      { accountId: receipts, expectedToken: 'USDC', expectedChainId: 'EVM', expectedAmount: amount, expectedWalletAddress: wallet },
      { 'idempotency-key': `evm-claims-${process.pid}-${keySeq++}` },
    );
    expect(res.status, res.text).toBe(201);
    return res.body.settlementId as string;
  }

  beforeAll(async () => {
    anvil = await startAnvil();
    proxy = await startProxy(anvil.url);
    USDC = await deployToken(anvil, 'USD Coin', 'USDC', 6);
    await USDC.mint(anvil.deployer.address, usdc('1000000'));
    dir = mkdtempSync(join(tmpdir(), 'ledger-evm-claims-'));
    dbPath = await testDb(dir);
    apiKey = (await createTenant(dbPath)).apiKey.rawKey;
    // The ledger runs without watching first: settlements are registered, and a customer pays one of them.
    await start(false);
    receipts = await makeAccount(c, { name: 'receipts' });
    sOld = await register('7', W1);
    sNew = await register('8', W1);
    sFar = await register('9', W2);
    oldBlock = (await USDC.transfer(W1, usdc('7'))).blockNumber;
    // well past finality (anvil's `finalized` is 64 blocks behind the head)
    await anvil.mine(100);
    expect(await finalized()).toBeGreaterThan(oldBlock);
    await stop();
    expect(proxy.calls).toHaveLength(0);
  });

  afterAll(async () => {
    await stop().catch(() => {});
    await proxy?.close();
    await anvil?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a first start begins after the last finalized block: a transfer made before is never read, counted or matched; one made after is', async () => {
    await start(true);
    await until('the first checkpoint', async () => (await checkpoint()) !== undefined);
    const fin = await finalized();
    const head = await anvil.blockNumber();
    const first = (await checkpoint())!;
    // the finalized tag, not the head and not some count of confirmations
    expect(fin).toBe(head - 64);
    expect(first.nextBlock).toBe(fin + 1);
    expect(first.nextBlock).toBeGreaterThan(oldBlock);
    expect(first).toMatchObject({ transfersSeen: 0, transfersMatched: 0 });
    expect(calls('eth_getBlockByNumber')[0]!.params).toEqual(['finalized', false]);
    // a few polls later nothing from before has been read: no log query at all, the old payment still PENDING
    await polls(5);
    expect(calls('eth_getLogs')).toHaveLength(0);
    expect((await checkpoint())).toMatchObject({ nextBlock: fin + 1, transfersSeen: 0, transfersMatched: 0 });
    expect((await status(sOld)).status).toBe('PENDING');

    // a transfer after the start: read only once its block is finalized (64 blocks later on anvil)
    const now = await USDC.transfer(W1, usdc('8'));
    await anvil.mine(63);
    await polls(5);
    expect(await finalized()).toBe(now.blockNumber - 1);
    expect((await checkpoint())!.nextBlock).toBe(now.blockNumber);
    expect((await status(sNew)).status).toBe('PENDING');
    await anvil.mine(1);
    const s = await settled(sNew);
    expect(s.txHash).toBe(now.hash.toLowerCase());
    expect((await checkpoint())).toMatchObject({ transfersSeen: 1, transfersMatched: 1 });
    expect((await status(sOld)).status).toBe('PENDING');

    // every block reference the watcher asked for is the `finalized` tag; no log query ever reached back to the old block
    expect(calls('eth_getBlockByNumber').length).toBeGreaterThan(10);
    for (const call of calls('eth_getBlockByNumber')) expect(call.params[0]).toBe('finalized');
    for (const call of calls('eth_getLogs')) expect(num(call.params[0].fromBlock)).toBeGreaterThan(oldBlock);
  });

  it('an RPC failure: the next scan waits 2 s (not the 100 ms poll), the checkpoint is kept, then polling goes on', async () => {
    const before = (await checkpoint())!;
    const from = proxy.calls.length;
    proxy.failNext = 1;
    await until('the failed request', () => proxy.failedAt.length === 1, 10_000, 10);
    const failedAt = proxy.failedAt[0]!;
    await until('the next request after the failure', () => proxy.calls.slice(from).some((x) => x.at > failedAt), 10_000, 10);
    const next = proxy.calls.slice(from).find((x) => x.at > failedAt)!;
    expect(next.at - failedAt).toBeGreaterThanOrEqual(nextScanDelayMs(1, 100) - 50);
    expect(next.at - failedAt).toBeLessThan(nextScanDelayMs(2, 100));
    expect(logLines.some((l) => /EVM watcher: .*\(retrying; the checkpoint is kept\)/.test(l))).toBe(true);
    expect((await checkpoint())!.nextBlock).toBe(before.nextBlock);
    // back to the poll interval: several polls within a second
    const t0 = Date.now();
    await polls(4);
    expect(Date.now() - t0).toBeLessThan(nextScanDelayMs(1, 100));
    expect((await checkpoint())!.nextBlock).toBe(before.nextBlock);
  });

  it('a backlog of more than 2,000 blocks is read in ranges of at most 2,000, back to back from the checkpoint to the finalized block', async () => {
    expect(EVM_BLOCK_RANGE_MAX).toBe(2_000);
    await stop();
    const resumeAt = (await storedCheckpoint(dbPath, 'EVM')).next;
    // while stopped: 1,000 blocks, a payment, 1,200 more blocks, all final but the last 64
    await anvil.mine(1_000);
    const far = await USDC.transfer(W2, usdc('9'));
    await anvil.mine(1_200);
    const fin = await finalized();
    expect(fin - resumeAt + 1).toBeGreaterThan(2_000);
    const from = proxy.calls.length;

    await start(true);
    const s = await settled(sFar);
    expect(s.txHash).toBe(far.hash.toLowerCase());
    await until('the checkpoint at the finalized block', async () => (await checkpoint())!.nextBlock === fin + 1, 20_000);
    await polls(3);

    const ranges = proxy.calls
      .slice(from)
      .filter((x) => x.method === 'eth_getLogs')
      .map((x) => ({ from: num(x.params[0].fromBlock), to: num(x.params[0].toBlock) }));
    expect(ranges.length).toBeGreaterThanOrEqual(2);
    for (const r of ranges) {
      expect(r.to).toBeGreaterThanOrEqual(r.from);
      expect(r.to - r.from + 1).toBeLessThanOrEqual(2_000);
    }
    // a full first range, then the rest: no gap, no overlap, from the checkpoint to the finalized block
    expect(ranges[0]).toEqual({ from: resumeAt, to: resumeAt + 1_999 });
    for (let i = 1; i < ranges.length; i++) expect(ranges[i]!.from, `range ${i}`).toBe(ranges[i - 1]!.to + 1);
    expect(ranges.at(-1)!.to).toBe(fin);
    expect(ranges.some((r) => r.from <= far.blockNumber && far.blockNumber <= r.to)).toBe(true);
    expect((await checkpoint())).toMatchObject({ nextBlock: fin + 1, transfersSeen: 2, transfersMatched: 2 });
    expect((await status(sOld)).status).toBe('PENDING');
  });
});
