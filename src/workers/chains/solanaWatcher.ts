// The Solana watcher: each expected token's associated token account of each wallet, read at `finalized` back to the
// checkpoint slot, credits taken from the transactions' pre and post token balances.
import type { Address, Rpc, Signature, SolanaRpcApi } from '@solana/kit';
import type { Ledger } from '../../core/ledger.js';
import type { Logger } from '../../core/ports.js';
import { ChainPoller } from './poller.js';
import type { ObservedTransfer } from '../../core/chainWatch.js';
import { chainAmountToMinor, type SolanaToken } from '../../core/tokenRegistry.js';
import type { Token } from '../../core/money.js';

// The SDK and the token program client load only when a Solana endpoint is configured.
const sdk = () => Promise.all([import('@solana/kit'), import('@solana-program/token')]);
type Sdk = Awaited<ReturnType<typeof sdk>>;

/** The owner programs of the two token programs' accounts. */
export const TOKEN_PROGRAMS: Record<SolanaToken['program'], string> = {
  'spl-token': 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'spl-token-2022': 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
};
/** Signatures per getSignaturesForAddress page: the most the RPC allows. */
export const SIGNATURES_PER_PAGE = 1_000;
/** Requests in flight at once while a scan reads many accounts or transactions. */
const REQUESTS_IN_FLIGHT = 8;

/** Maps the items a batch of REQUESTS_IN_FLIGHT at a time, keeping their order. */
async function inBatches<T, R>(items: T[], map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += REQUESTS_IN_FLIGHT) results.push(...(await Promise.all(items.slice(i, i + REQUESTS_IN_FLIGHT).map(map))));
  return results;
}

export interface SolanaWatcherOptions {
  rpcUrl: string;
  tokens: Partial<Record<Token, SolanaToken>>;
  pollMs?: number;
  /** Tests: a smaller page, to see the paging. */
  signaturesPerPage?: number;
}

/** The parts of a `jsonParsed` transaction the watcher reads. */
interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  programId?: string;
  uiTokenAmount: { amount: string };
}
interface ParsedTransaction {
  slot: bigint | number;
  meta: { err: unknown; preTokenBalances?: readonly TokenBalance[]; postTokenBalances?: readonly TokenBalance[] } | null;
}
type Registered = SolanaToken & { token: Token };
type Credit = Omit<ObservedTransfer, 'blockHash'>;

/** The finalized slot: how far the Solana watcher may read. */
export async function solanaFinalizedSlot(rpcUrl: string): Promise<number> {
  const [kit] = await sdk();
  return Number(await kit.createSolanaRpc(rpcUrl).getSlot({ commitment: 'finalized' }).send());
}

/**
 * What a successful transaction credited to watched wallets, from its token balances: one credit per token account of
 * a watched owner whose balance of a registered mint grew. Its position is the token account's index in the
 * transaction; its sender is the owner of the account of that mint whose balance fell the most (the mint itself when
 * none fell: tokens minted).
 */
export function creditsOf(signature: string, transaction: ParsedTransaction, owners: ReadonlySet<string>, byMint: ReadonlyMap<string, Registered>): Credit[] {
  const meta = transaction.meta;
  if (!meta || meta.err !== null) return [];
  const pre = new Map((meta.preTokenBalances ?? []).map((b) => [b.accountIndex, b]));
  const post = new Map((meta.postTokenBalances ?? []).map((b) => [b.accountIndex, b]));
  const change = (index: number): bigint => BigInt(post.get(index)?.uiTokenAmount.amount ?? 0) - BigInt(pre.get(index)?.uiTokenAmount.amount ?? 0);
  const senderOf = (mint: string): string => {
    let sender = mint;
    let fell = 0n;
    for (const index of new Set([...pre.keys(), ...post.keys()])) {
      const balance = post.get(index) ?? pre.get(index)!;
      if (balance.mint === mint && change(index) < fell && balance.owner) {
        fell = change(index);
        sender = balance.owner;
      }
    }
    return sender;
  };
  const credits: Credit[] = [];
  for (const balance of post.values()) {
    const registered = byMint.get(balance.mint);
    if (!registered || !balance.owner || !owners.has(balance.owner)) continue;
    if (balance.programId !== undefined && balance.programId !== TOKEN_PROGRAMS[registered.program]) continue;
    const amount = change(balance.accountIndex);
    if (amount <= 0n) continue;
    credits.push({
      chain: 'SOLANA',
      txHash: signature,
      logIndex: balance.accountIndex,
      token: registered.token,
      tokenContract: registered.mint,
      from: senderOf(balance.mint),
      to: balance.owner,
      amountMinor: chainAmountToMinor(amount, registered.token, registered.decimals),
      blockNumber: Number(transaction.slot),
    });
  }
  return credits;
}

export class SolanaWatcher extends ChainPoller {
  readonly chain = 'SOLANA' as const;
  private readonly rpc: Rpc<SolanaRpcApi>;
  private readonly byToken: Map<Token, Registered>;
  private readonly byMint: Map<string, Registered>;
  /** Associated token accounts already derived, by wallet and token. */
  private readonly atas = new Map<string, Address>();
  private readonly pageSize: number;

  static async create(ledger: Ledger, log: Logger, options: SolanaWatcherOptions): Promise<SolanaWatcher> {
    return new SolanaWatcher(await sdk(), ledger, log, options);
  }

  private constructor(
    private readonly sdk: Sdk,
    private readonly ledger: Ledger,
    log: Logger,
    private readonly options: SolanaWatcherOptions,
  ) {
    super('Solana', log, options.pollMs);
    this.rpc = sdk[0].createSolanaRpc(options.rpcUrl);
    const registered = Object.entries(options.tokens).map(([token, entry]) => ({ ...entry, token: token as Token }));
    this.byToken = new Map(registered.map((r) => [r.token, r]));
    this.byMint = new Map(registered.map((r) => [r.mint, r]));
    this.pageSize = options.signaturesPerPage ?? SIGNATURES_PER_PAGE;
  }

  /** Refuses to start when a registered mint is missing, belongs to another program, or has other decimals. */
  async checkTokens(): Promise<void> {
    for (const { token, mint, program, decimals } of this.byToken.values()) {
      let account;
      try {
        account = (await this.rpc.getAccountInfo(this.sdk[0].address(mint), { encoding: 'jsonParsed', commitment: 'finalized' }).send()).value;
      } catch (error) {
        const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
        throw new Error(`Solana: cannot read the mint of ${token} at ${mint} from ${this.options.rpcUrl} (${reason}); not starting.`);
      }
      if (!account) throw new Error(`Solana token ${token}: there is no mint account at ${mint}.`);
      if (account.owner !== TOKEN_PROGRAMS[program]) throw new Error(`Solana token ${token} at ${mint} belongs to ${account.owner}, not to the ${program} program the registry names.`);
      const onChain = (account.data as { parsed?: { info?: { decimals?: unknown } } }).parsed?.info?.decimals;
      if (onChain !== decimals) throw new Error(`Solana token ${token} at ${mint} has ${String(onChain)} decimals on chain, but the registry says ${decimals}.`);
    }
  }

  private record(transfers: ObservedTransfer[], nextBlock: number) {
    return this.ledger.writer.run('recordTransfers', { chain: 'SOLANA', transfers, nextBlock });
  }

  /** Reads the watched accounts' finalized transactions from the checkpoint slot on, a slot per write. */
  protected async scan(): Promise<void> {
    const head = Number(await this.rpc.getSlot({ commitment: 'finalized' }).send());
    const checkpoint = await this.ledger.store.chainCheckpoint('SOLANA');
    if (!checkpoint) return void (await this.record([], head + 1));
    const from = checkpoint.nextBlock;
    if (from > head) return;
    const watched = (await this.ledger.store.watchedWallets('SOLANA')).filter((w) => this.byToken.has(w.token));
    const owners = new Set(watched.map((w) => w.walletCanonical));
    const slots = new Map<number, Set<Signature>>();
    const pairs = [...new Map(watched.map((w) => [`${w.walletCanonical} ${w.token}`, w])).values()];
    for (const found of await inBatches(pairs, async (w) => this.signaturesSince(await this.ataOf(w.walletCanonical, w.token), from, head))) {
      for (const { signature, slot } of found) slots.set(slot, (slots.get(slot) ?? new Set()).add(signature));
    }
    for (const slot of [...slots.keys()].sort((a, b) => a - b)) {
      if (this.stopped) return;
      const transactions = await inBatches([...slots.get(slot)!], async (signature) => creditsOf(signature, await this.transaction(signature), owners, this.byMint));
      const credits = transactions.flat();
      const blockHash = credits.length > 0 ? await this.blockHash(slot) : '';
      await this.record(
        credits.map((c) => ({ ...c, blockHash })),
        slot + 1,
      );
    }
    await this.record([], head + 1);
  }

  private async ataOf(wallet: string, token: Token): Promise<Address> {
    const key = `${wallet} ${token}`;
    let ata = this.atas.get(key);
    if (!ata) {
      const { mint, program } = this.byToken.get(token)!;
      const address = this.sdk[0].address;
      [ata] = await this.sdk[1].findAssociatedTokenPda({ owner: address(wallet), mint: address(mint), tokenProgram: address(TOKEN_PROGRAMS[program]) });
      this.atas.set(key, ata);
    }
    return ata;
  }

  /** Successful signatures of the account from slot `from` to `head`, paging back from the newest. */
  private async signaturesSince(account: Address, from: number, head: number): Promise<Array<{ signature: Signature; slot: number }>> {
    const found: Array<{ signature: Signature; slot: number }> = [];
    let before: Signature | undefined;
    for (;;) {
      const page = await this.rpc.getSignaturesForAddress(account, { commitment: 'finalized', limit: this.pageSize, ...(before ? { before } : {}) }).send();
      for (const { signature, slot, err } of page) {
        if (Number(slot) < from) return found;
        // A failed transaction moved no tokens.
        if (Number(slot) <= head && err === null) found.push({ signature, slot: Number(slot) });
      }
      if (page.length < this.pageSize) return found;
      before = page[page.length - 1]!.signature;
    }
  }

  private async transaction(signature: Signature): Promise<ParsedTransaction> {
    const transaction = await this.rpc.getTransaction(signature, { encoding: 'jsonParsed', commitment: 'finalized', maxSupportedTransactionVersion: 0 }).send();
    // Listed as finalized, so it must be there: a node that has not caught up is asked again on the next scan.
    if (!transaction) throw new Error(`getTransaction answered null for the finalized transaction ${signature}`);
    return transaction as unknown as ParsedTransaction;
  }

  private async blockHash(slot: number): Promise<string> {
    const block = await this.rpc
      .getBlock(BigInt(slot), { commitment: 'finalized', transactionDetails: 'none', rewards: false, maxSupportedTransactionVersion: 0 })
      .send();
    if (!block) throw new Error(`getBlock answered null for the finalized slot ${slot}`);
    return block.blockhash;
  }
}
