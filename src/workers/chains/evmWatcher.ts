// The EVM watcher: ERC-20 Transfer logs to the wallets of PENDING settlements, on the registered token contracts, in
// bounded block ranges up to the last final block (the `finalized` tag, or n confirmations), from a stored checkpoint.
import type { PublicClient } from 'viem';
import type { Ledger } from '../../core/ledger.js';
import type { Logger } from '../../core/ports.js';
import { ChainPoller } from './poller.js';
import type { ObservedTransfer } from '../../core/chainWatch.js';
import type { EvmToken } from '../../core/tokenRegistry.js';
import { chainAmountToMinor } from '../../core/tokenRegistry.js';
import type { Token } from '../../core/money.js';
import { EVM_BLOCK_RANGE_MAX, EVM_WALLETS_PER_QUERY_MAX } from '../../core/limits.js';

// viem loads only when an EVM endpoint is configured, so CLI commands that never watch do not pay for it.
const viem = () => import('viem');
type Viem = Awaited<ReturnType<typeof viem>>;

const transferEvent = {
  type: 'event',
  name: 'Transfer',
  inputs: [
    { type: 'address', indexed: true, name: 'from' },
    { type: 'address', indexed: true, name: 'to' },
    { type: 'uint256', indexed: false, name: 'value' },
  ],
} as const;
const decimalsAbi = [{ type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ type: 'uint8' }] }] as const;

export interface EvmWatcherOptions {
  rpcUrl: string;
  tokens: Partial<Record<Token, EvmToken>>;
  /** Final once this many blocks are on top of it (the block itself counts as one); without it, the `finalized` tag. */
  confirmations?: number;
  pollMs?: number;
}

/** The latest block number, read with no cache. */
export async function evmHead(rpcUrl: string): Promise<number> {
  const v = await viem();
  return Number(await v.createPublicClient({ transport: v.http(rpcUrl), cacheTime: 0 }).getBlockNumber({ cacheTime: 0 }));
}

export class EvmWatcher extends ChainPoller {
  readonly chain = 'EVM' as const;
  private readonly client: PublicClient;
  private readonly tokenByAddress: Map<string, { token: Token; address: string; decimals: number }>;
  /** The last head and final block read, for `ledger watch status`. */
  head: bigint | null = null;
  final: bigint | null = null;

  static async create(ledger: Ledger, log: Logger, options: EvmWatcherOptions): Promise<EvmWatcher> {
    return new EvmWatcher(await viem(), ledger, log, options);
  }

  private constructor(
    private readonly v: Viem,
    private readonly ledger: Ledger,
    log: Logger,
    private readonly options: EvmWatcherOptions,
  ) {
    super('EVM', log, options.pollMs);
    // No cached block numbers: every read of the head asks the node.
    this.client = v.createPublicClient({ transport: v.http(options.rpcUrl, { retryCount: 0 }), cacheTime: 0 }) as PublicClient;
    this.tokenByAddress = new Map(
      Object.entries(options.tokens).map(([token, entry]) => [entry.address.toLowerCase(), { token: token as Token, address: entry.address, decimals: entry.decimals }]),
    );
  }

  /** Refuses to start when a registered token's decimals on chain differ from the registry's. */
  async checkTokens(): Promise<void> {
    for (const { token, address, decimals } of this.tokenByAddress.values()) {
      let onChain: number;
      try {
        onChain = await this.client.readContract({ address: this.v.getAddress(address), abi: decimalsAbi, functionName: 'decimals' });
      } catch (error) {
        const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new Error(`EVM: cannot read the decimals of ${token} at ${address} from ${this.options.rpcUrl} (${reason}); not starting.`);
      }
      if (Number(onChain) !== decimals) {
        throw new Error(`EVM token ${token} at ${address} has ${onChain} decimals on chain, but the registry says ${decimals}.`);
      }
    }
  }

  private async finalBlock(): Promise<bigint> {
    this.head = await this.client.getBlockNumber({ cacheTime: 0 });
    if (this.options.confirmations !== undefined) return this.head - BigInt(this.options.confirmations) + 1n;
    const finalized = await this.client.getBlock({ blockTag: 'finalized' });
    return finalized.number ?? -1n;
  }

  /** Scans from the checkpoint to the last final block, a bounded range at a time. */
  protected async scan(): Promise<void> {
    const final = await this.finalBlock();
    this.final = final;
    const checkpoint = await this.ledger.store.chainCheckpoint('EVM');
    // A first start watches from the next block on: what happened before the ledger watched is not replayed.
    let from = checkpoint ? BigInt(checkpoint.nextBlock) : final + 1n;
    if (!checkpoint) await this.ledger.writer.run('recordTransfers', { chain: 'EVM', transfers: [], nextBlock: Number(from) });
    while (!this.stopped && from <= final) {
      const to = from + BigInt(EVM_BLOCK_RANGE_MAX) - 1n < final ? from + BigInt(EVM_BLOCK_RANGE_MAX) - 1n : final;
      const wallets = [...new Set((await this.ledger.store.watchedWallets('EVM')).map((w) => w.walletCanonical))].filter((w) => /^0x[0-9a-f]{40}$/.test(w));
      const transfers = wallets.length === 0 ? [] : await this.transfersTo(wallets, from, to);
      await this.ledger.writer.run('recordTransfers', { chain: 'EVM', transfers, nextBlock: Number(to + 1n) });
      from = to + 1n;
    }
  }

  private async transfersTo(wallets: string[], fromBlock: bigint, toBlock: bigint): Promise<ObservedTransfer[]> {
    const found: ObservedTransfer[] = [];
    const addresses = [...this.tokenByAddress.values()].map((t) => this.v.getAddress(t.address));
    if (addresses.length === 0) return found;
    for (let i = 0; i < wallets.length; i += EVM_WALLETS_PER_QUERY_MAX) {
      const to = wallets.slice(i, i + EVM_WALLETS_PER_QUERY_MAX).map((w) => this.v.getAddress(w));
      const logs = await this.client.getLogs({ address: addresses, event: transferEvent, args: { to }, fromBlock, toBlock });
      for (const log of logs) {
        const token = this.tokenByAddress.get(log.address.toLowerCase());
        if (!token || log.removed || log.transactionHash === null || log.logIndex === null || log.blockNumber === null || log.blockHash === null) continue;
        const { from, to: receiver, value } = log.args;
        if (!from || !receiver || value === undefined) continue;
        found.push({
          chain: 'EVM',
          txHash: log.transactionHash.toLowerCase(),
          logIndex: log.logIndex,
          token: token.token,
          tokenContract: token.address,
          from: from.toLowerCase(),
          to: receiver.toLowerCase(),
          amountMinor: chainAmountToMinor(value, token.token, token.decimals),
          blockNumber: Number(log.blockNumber),
          blockHash: log.blockHash,
        });
      }
    }
    return found;
  }
}
