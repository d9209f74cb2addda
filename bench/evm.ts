// The EVM watcher under load: a real local anvil node, a test ERC-20, 1,000 watched wallets. Measures how fast final
// transfers are recorded and settled, and posting throughput while the watcher reads a stream of them. Skipped (said
// on stderr) where anvil does not start.
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { BetterSqlite3 } from '../src/store/sqlite/driver.js';
import { encodeFunctionData, type Address } from 'viem';
import { startAnvil, deployToken, compileToken } from '../test/workers/chains/anvil.js';
import { until } from '../test/workers/chains/support.js';
import { SECONDS } from './load.js';
import type { Scenario, Table } from './scenario.js';
import { actor, makeTenant, seed } from './seed.js';
import { startServer, stopChild } from './server.js';

const WALLETS = 1_000;
const walletOf = (i: number): Address => `0x${(0xb0000 + i).toString(16).padStart(40, '0')}` as Address;
const amountOf = (i: number) => `${i + 1}.5`;

async function seedWatched(dbPath: string) {
  return seed(dbPath, async ({ ledger }) => {
    const tenant = await makeTenant(ledger, 'evm-bench', ['receiving', 'cash', { name: 'deposits', type: 'LIABILITY' }]);
    const [receiving, cash, deposits] = tenant.accounts as [string, string, string];
    // Two per wallet: one the benchmark's transfer settles, and one that stays PENDING, so the wallet stays watched and
    // the stream of transfers during the posting load is read (recorded, not matched).
    const expect = (i: number, amount: string, key: string) =>
      ledger.settlements.register(tenant.tenantId, actor, key, {
        accountId: receiving,
        expectedToken: 'USDC',
        expectedAmount: amount,
        expectedWalletAddress: walletOf(i),
        expectedChainId: 'EVM',
      });
    await Promise.all(Array.from({ length: WALLETS }, (_, i) => expect(i, amountOf(i), `evm-${i}`)));
    await Promise.all(Array.from({ length: WALLETS }, (_, i) => expect(i, '999999', `evm-open-${i}`)));
    return { rawKey: tenant.rawKey, cash, deposits };
  });
}

async function benchEvmWatcher(dir: string, seconds: number) {
  const dbPath = join(dir, 'evm.db');
  const seeded = await seedWatched(dbPath);
  const anvil = await startAnvil();
  let child: ChildProcess | undefined;
  try {
    const token = await deployToken(anvil, 'Bench USD', 'USDC', 6);
    await token.mint(anvil.deployer.address, 10n ** 15n);
    const tokensFile = join(dir, 'tokens.json');
    writeFileSync(tokensFile, JSON.stringify({ EVM: { USDC: { address: token.address, decimals: 6 } }, SOLANA: {}, TRON: {} }));
    const server = await startServer(dbPath, { args: ['--evm-rpc', anvil.url, '--evm-confirmations', '1', '--tokens', tokensFile], stderr: 'ignore' });
    child = server.child;
    const db = new BetterSqlite3(dbPath, { readonly: true });
    const checkpoint = () => db.prepare("SELECT next_block, transfers_seen, transfers_matched FROM chain_checkpoints WHERE chain = 'EVM'").get() as
      | { next_block: number; transfers_seen: number; transfers_matched: number }
      | undefined;
    await until('the EVM watcher to store its first checkpoint', () => checkpoint() !== undefined, 20_000);

    const { abi } = compileToken();
    // Nonces are handed out here, so that many transfers can be sent at once.
    let nonce = Number(BigInt(await anvil.rpc('eth_getTransactionCount', [anvil.deployer.address, 'pending'])));
    const send = (to: Address, value: bigint) =>
      anvil.rpc('eth_sendTransaction', [
        { from: anvil.deployer.address, to: token.address, nonce: `0x${(nonce++).toString(16)}`, data: encodeFunctionData({ abi, functionName: 'transfer', args: [to, value] }) },
      ]);

    // 1,000 transfers, one to each watched wallet, gathered into a few blocks.
    await anvil.rpc('evm_setAutomine', [false]);
    for (let i = 0; i < WALLETS; i += 100) await Promise.all(Array.from({ length: 100 }, (_, k) => send(walletOf(i + k), BigInt(i + k + 1) * 1_000_000n + 500_000n)));
    for (let pending = 1, guard = 0; pending > 0 && guard < 50; guard++) {
      await anvil.mine(1);
      pending = Number(BigInt(((await anvil.rpc('txpool_status')) as { pending: string }).pending));
    }
    const final = await anvil.blockNumber();
    const began = performance.now();
    await until('every transfer to be recorded and settled', () => (checkpoint()?.transfers_matched ?? 0) >= WALLETS && checkpoint()!.next_block > final, 120_000, 20);
    const settleSeconds = (performance.now() - began) / 1000;

    // Posting while the watcher keeps reading transfers (to watched wallets; their settlements are settled, so they are
    // recorded, not matched): the same load with and without them.
    const auth = { authorization: `Bearer ${seeded.rawKey}`, 'content-type': 'application/json' };
    const postRequest = {
      method: 'POST' as const,
      path: '/api/v1/transactions',
      setupRequest: (req: any) => {
        req.headers = { ...auth, 'idempotency-key': randomUUID() };
        req.body = JSON.stringify({
          lines: [
            { accountId: seeded.cash, entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'PIX' } },
            { accountId: seeded.deposits, entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'PIX' } },
          ],
        });
        return req;
      },
    };
    const quiet = await autocannon({ url: server.url, requests: [postRequest], connections: 64, duration: seconds });
    // The stream: transfers waiting in the node's pool, mined a block a second during the load (the load generator
    // shares this process, so nothing here competes with it while it runs).
    for (let i = 0; i < 3 * WALLETS; i += 100) await Promise.all(Array.from({ length: 100 }, (_, k) => send(walletOf((i + k) % WALLETS), 1n)));
    const seenBefore = checkpoint()!.transfers_seen;
    await anvil.rpc('evm_setIntervalMining', [1]);
    const busy = await autocannon({ url: server.url, requests: [postRequest], connections: 64, duration: seconds });
    await anvil.rpc('evm_setIntervalMining', [0]);
    const seenDuring = checkpoint()!.transfers_seen - seenBefore;
    db.close();
    return {
      transfers: WALLETS,
      settleSeconds,
      quietRps: Math.round(quiet.requests.average),
      busyRps: Math.round(busy.requests.average),
      busyP99: busy.latency.p99,
      transfersDuringLoad: seenDuring,
      errors: quiet.errors + quiet.non2xx + busy.errors + busy.non2xx,
    };
  } finally {
    await stopChild(child);
    await anvil.stop();
  }
}

type EvmFigures = Awaited<ReturnType<typeof benchEvmWatcher>>;

const EVM: Table = { title: 'EVM watcher (local anvil node, 1,000 watched wallets)', columns: ['scenario', 'figure'], align: 'lr' };

export const evmWatcher: Scenario<EvmFigures | null> = {
  name: 'evm',
  family: 'evm',
  async run() {
    console.error('EVM watcher: 1,000 watched wallets on a local anvil node');
    const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-evm-'));
    try {
      return await benchEvmWatcher(dir, SECONDS);
    } catch (error) {
      console.error(`  EVM watcher bench skipped: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  print: (evm) =>
    evm
      ? [
          {
            table: EVM,
            cells: ['1,000 transfers recorded and settled after their blocks were final', `${evm.settleSeconds.toFixed(2)} s = ${Math.round(evm.transfers / evm.settleSeconds)} transfers/s (poll interval 1 s included)`],
          },
          { table: EVM, cells: ['posting, 64 connections, watcher idle', `${evm.quietRps} req/s`] },
          {
            table: EVM,
            cells: [
              'posting while the watcher reads a stream of transfers',
              `${evm.busyRps} req/s (${Math.round((evm.busyRps / evm.quietRps) * 100)}%), p99 ${evm.busyP99} ms; ${evm.transfersDuringLoad} transfers recorded meanwhile`,
            ],
          },
        ]
      : [],
};
