// The TRON watcher: solidified blocks only, their TRC-20 Transfer logs to the wallets of PENDING settlements, on the
// registered token contracts, block by block from a stored checkpoint. tronweb speaks to the full node's HTTP API.
import type { Ledger } from '../../core/ledger.js';
import type { Logger } from '../../core/ports.js';
import { ChainPoller } from './poller.js';
import type { ObservedTransfer } from '../../core/chainWatch.js';
import { chainAmountToMinor, type TronToken } from '../../core/tokenRegistry.js';
import type { Token } from '../../core/money.js';

// tronweb loads only when a TRON endpoint is configured.
const tronweb = () => import('tronweb');
type TronWebModule = Awaited<ReturnType<typeof tronweb>>;
type TronWebClient = InstanceType<TronWebModule['TronWeb']>;

/** keccak256("Transfer(address,address,uint256)") */
export const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
/** Solidified blocks read per scan at most (one request each). */
export const TRON_BLOCKS_PER_SCAN = 100;

export interface TronWatcherOptions {
  apiUrl: string;
  tokens: Partial<Record<Token, TronToken>>;
  pollMs?: number;
}

interface TransactionInfo {
  id: string;
  blockNumber?: number;
  receipt?: { result?: string };
  result?: string;
  log?: Array<{ address: string; topics?: string[]; data?: string }>;
}

async function solidifiedHead(client: TronWebClient): Promise<number> {
  const block = (await client.solidityNode.request('walletsolidity/getnowblock', {}, 'post')) as { block_header?: { raw_data?: { number?: number } } };
  const number = block.block_header?.raw_data?.number;
  if (typeof number !== 'number') throw new Error('walletsolidity/getnowblock answered without a block number');
  return number;
}

/** The last solidified block: how far the TRON watcher may read. */
export async function tronSolidifiedHead(apiUrl: string): Promise<number> {
  const { TronWeb } = await tronweb();
  return solidifiedHead(new TronWeb({ fullHost: apiUrl }));
}

export class TronWatcher extends ChainPoller {
  readonly chain = 'TRON' as const;
  private readonly client: TronWebClient;
  /** By contract address in hex (41 + 20 bytes, lower case). */
  private readonly tokenByHex: Map<string, { token: Token; address: string; decimals: number }>;

  static async create(ledger: Ledger, log: Logger, options: TronWatcherOptions): Promise<TronWatcher> {
    return new TronWatcher(await tronweb(), ledger, log, options);
  }

  private constructor(
    private readonly t: TronWebModule,
    private readonly ledger: Ledger,
    log: Logger,
    private readonly options: TronWatcherOptions,
  ) {
    super('TRON', log, options.pollMs);
    this.client = new t.TronWeb({ fullHost: options.apiUrl });
    this.tokenByHex = new Map(
      Object.entries(options.tokens).map(([token, entry]) => [
        t.TronWeb.address.toHex(entry.address).toLowerCase(),
        { token: token as Token, address: entry.address, decimals: entry.decimals },
      ]),
    );
  }

  private base58(hex20or21: string): string {
    const hex = hex20or21.length === 40 ? `41${hex20or21}` : hex20or21;
    return this.t.TronWeb.address.fromHex(hex);
  }

  /** Refuses to start when a registered token's decimals() differ from the registry's. */
  async checkTokens(): Promise<void> {
    for (const { token, address, decimals } of this.tokenByHex.values()) {
      let onChain: number;
      try {
        const answer = (await this.client.transactionBuilder.triggerConstantContract(address, 'decimals()', {}, [], address)) as unknown as {
          constant_result?: string[];
        };
        onChain = Number(BigInt(`0x${answer.constant_result?.[0] ?? ''}`));
      } catch (error) {
        const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new Error(`TRON: cannot read the decimals of ${token} at ${address} from ${this.options.apiUrl} (${reason}); not starting.`);
      }
      if (onChain !== decimals) throw new Error(`TRON token ${token} at ${address} has ${onChain} decimals on chain, but the registry says ${decimals}.`);
    }
  }

  /** Scans solidified blocks from the checkpoint, recording each block's transfers with the checkpoint in one write. */
  protected async scan(): Promise<void> {
    const solid = await solidifiedHead(this.client);
    const checkpoint = await this.ledger.store.chainCheckpoint('TRON');
    let next = checkpoint ? checkpoint.nextBlock : solid + 1;
    if (!checkpoint) await this.ledger.writer.run('recordTransfers', { chain: 'TRON', transfers: [], nextBlock: next });
    const last = Math.min(solid, next + TRON_BLOCKS_PER_SCAN - 1);
    while (!this.stopped && next <= last) {
      const wallets = new Set((await this.ledger.store.watchedWallets('TRON')).map((w) => w.walletCanonical));
      if (wallets.size === 0) {
        // Nothing is watched: the blocks up to the head are passed over in one step.
        await this.ledger.writer.run('recordTransfers', { chain: 'TRON', transfers: [], nextBlock: last + 1 });
        return;
      }
      const transfers = await this.transfersIn(next, wallets);
      await this.ledger.writer.run('recordTransfers', { chain: 'TRON', transfers, nextBlock: next + 1 });
      next++;
    }
  }

  private async transfersIn(blockNumber: number, wallets: Set<string>): Promise<ObservedTransfer[]> {
    const answer = (await this.client.solidityNode.request('walletsolidity/gettransactioninfobyblocknum', { num: blockNumber }, 'post')) as
      | TransactionInfo[]
      | Record<string, never>;
    const infos = Array.isArray(answer) ? answer : [];
    const found: Array<Omit<ObservedTransfer, 'blockHash'>> = [];
    for (const info of infos) {
      // A reverted or failed transaction moved nothing, whatever its logs say.
      if ((info.receipt?.result && info.receipt.result !== 'SUCCESS') || (info.result && info.result !== 'SUCCESS')) continue;
      (info.log ?? []).forEach((log, logIndex) => {
        const token = this.tokenByHex.get(`41${log.address}`.toLowerCase()) ?? this.tokenByHex.get(log.address.toLowerCase());
        const topics = log.topics ?? [];
        if (!token || topics[0]?.toLowerCase() !== TRANSFER_TOPIC || topics.length < 3 || !log.data) return;
        const to = this.base58(topics[2]!.slice(-40));
        if (!wallets.has(to)) return;
        found.push({
          chain: 'TRON',
          txHash: info.id,
          logIndex,
          token: token.token,
          tokenContract: token.address,
          from: this.base58(topics[1]!.slice(-40)),
          to,
          amountMinor: chainAmountToMinor(BigInt(`0x${log.data}`), token.token, token.decimals),
          blockNumber,
        });
      });
    }
    if (found.length === 0) return [];
    const block = (await this.client.solidityNode.request('walletsolidity/getblockbynum', { num: blockNumber }, 'post')) as { blockID?: string };
    return found.map((t) => ({ ...t, blockHash: block.blockID ?? '' }));
  }
}
