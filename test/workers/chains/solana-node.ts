// A test Solana JSON-RPC node. No validator runs offline, so transfers really execute in litesvm's in-process SVM
// (with the real SPL Token and Token-2022 programs), one transaction per slot. The node answers getSlot,
// getSignaturesForAddress, getTransaction (jsonParsed, maxSupportedTransactionVersion), getBlock and getAccountInfo
// in the real response shapes, with the pre and post token balances a validator records. Its finalized slot moves
// only when the test says so.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import {
  address,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64Decoder,
  getCompiledTransactionMessageDecoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintDecoder,
  getMintSize,
  getMintToCheckedInstruction,
  getTokenDecoder,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';

export const TOKEN_2022_PROGRAM_ADDRESS = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
export type TokenProgramName = 'spl-token' | 'spl-token-2022';
const PROGRAMS: Record<TokenProgramName, Address> = { 'spl-token': TOKEN_PROGRAM_ADDRESS, 'spl-token-2022': TOKEN_2022_PROGRAM_ADDRESS };
const TOKEN_ACCOUNT_SIZE = 165;
const FIRST_SLOT = 1_000;

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number; uiAmountString: string };
}
interface Recorded {
  signature: string;
  slot: number;
  blockTime: number;
  err: unknown;
  signatures: string[];
  accountKeys: Array<{ pubkey: string; signer: boolean; writable: boolean; source: 'transaction' }>;
  instructions: Array<{ programId: string; accounts: string[]; data: string; stackHeight: null }>;
  recentBlockhash: string;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logMessages: string[];
  computeUnitsConsumed: number;
}
interface Block {
  slot: number;
  blockhash: string;
  previousBlockhash: string;
  parentSlot: number;
  blockTime: number;
}

export interface Payment {
  to: Address;
  amount: bigint;
}

export interface SolanaNode {
  url: string;
  /** The newest slot; every transaction gets a slot of its own. */
  readonly slot: number;
  /** What `finalized` commitment sees; moved by finalize(). */
  readonly finalizedSlot: number;
  /** Fails every request while on (an RPC outage). */
  down: boolean;
  /** Requests answered per method. */
  calls: Map<string, number>;
  /** Every HTTP request received, answered or failed. */
  readonly requests: number;
  createMint(program: TokenProgramName, decimals: number): Promise<Address>;
  /** A new wallet with SOL for nothing: the node's payer pays every fee. */
  wallet(): Promise<KeyPairSigner>;
  /** Mints to the owner's associated token account, made on the way. */
  mintTo(mint: Address, owner: Address, amount: bigint): Promise<string>;
  /** One transaction paying each payment from the sender's associated token account (the recipients' are made on the way). */
  transfer(mint: Address, from: KeyPairSigner, payments: Payment[]): Promise<{ signature: string; slot: number; failed: boolean }>;
  /** Makes n slots with no transaction. */
  mine(n: number): void;
  /** Makes everything so far final. */
  finalize(): void;
  close(): Promise<void>;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** litesvm's error text as the RPC's TransactionError JSON, for the one kind these tests make. */
function transactionError(text: string): unknown {
  const custom = /InstructionError \{ index: (\d+), error: InstructionErrorCustom \{ code: (\d+) \}/.exec(text);
  return custom ? { InstructionError: [Number(custom[1]), { Custom: Number(custom[2]) }] } : { InstructionError: [0, 'GenericError'] };
}

const uiAmountString = (amount: bigint, decimals: number): string => {
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, '0');
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`.replace(/\.?0+$/, '');
};

export async function startSolanaNode(): Promise<SolanaNode> {
  const svm = new LiteSVM();
  const payer = await generateKeyPairSigner();
  svm.airdrop(payer.address, lamports(1_000_000_000_000n));
  const base58 = getBase58Decoder();
  const base64 = getBase64Decoder();
  const decimalsOf = new Map<string, number>();
  const transactions: Recorded[] = [];
  const bySignature = new Map<string, Recorded>();
  const blocks = new Map<number, Block>();
  let slot = FIRST_SLOT;
  let finalizedSlot = FIRST_SLOT;
  const now = () => Math.floor(Date.now() / 1000);
  blocks.set(slot, { slot, blockhash: svm.latestBlockhash(), previousBlockhash: svm.latestBlockhash(), parentSlot: slot - 1, blockTime: now() });

  const nextSlot = () => {
    const previous = blocks.get(slot)!;
    slot++;
    svm.warpToSlot(BigInt(slot));
    svm.expireBlockhash();
    blocks.set(slot, { slot, blockhash: svm.latestBlockhash(), previousBlockhash: previous.blockhash, parentSlot: previous.slot, blockTime: now() });
  };

  const tokenBalance = (accountIndex: number, key: string): TokenBalance | undefined => {
    const account = svm.getAccount(address(key));
    if (!account.exists || !Object.values(PROGRAMS).includes(account.programAddress)) return undefined;
    // A token account: 165 bytes, or more with Token-2022 extensions (account type 2 after the base layout).
    if (account.data.length < TOKEN_ACCOUNT_SIZE || (account.data.length > TOKEN_ACCOUNT_SIZE && account.data[TOKEN_ACCOUNT_SIZE] !== 2)) return undefined;
    const token = getTokenDecoder().decode(account.data);
    const decimals = decimalsOf.get(token.mint) ?? 0;
    const ui = uiAmountString(token.amount, decimals);
    return {
      accountIndex,
      mint: token.mint,
      owner: token.owner,
      programId: account.programAddress,
      uiTokenAmount: { amount: token.amount.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui },
    };
  };
  const lamportsOf = (key: string) => Number(svm.getBalance(address(key)) ?? 0n);

  /** Sends one transaction in a new slot, recording it the way a validator does. */
  const send = async (instructions: Instruction[]): Promise<{ signature: string; slot: number; failed: boolean }> => {
    nextSlot();
    const transaction = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
      (m) => appendTransactionMessageInstructions(instructions, m),
      (m) => signTransactionMessageWithSigners(m),
    );
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    if (!('instructions' in message)) throw new Error('the node records version 0 messages only');
    const keys = message.staticAccounts.map(String);
    const { numSignerAccounts, numReadonlySignerAccounts, numReadonlyNonSignerAccounts } = message.header;
    const tokenBalances = () => keys.flatMap((key, index) => tokenBalance(index, key) ?? []);
    const preTokenBalances = tokenBalances();
    const preBalances = keys.map(lamportsOf);
    const result = svm.sendTransaction(transaction);
    const failed = result instanceof FailedTransactionMetadata;
    const meta = failed ? result.meta() : result;
    const signature = base58.decode(meta.signature());
    const recorded: Recorded = {
      signature,
      slot,
      blockTime: blocks.get(slot)!.blockTime,
      err: failed ? transactionError(String(result.err())) : null,
      signatures: Object.values(transaction.signatures).map((s) => base58.decode(s!)),
      accountKeys: keys.map((pubkey, index) => ({
        pubkey,
        signer: index < numSignerAccounts,
        writable: index < numSignerAccounts ? index < numSignerAccounts - numReadonlySignerAccounts : index < keys.length - numReadonlyNonSignerAccounts,
        source: 'transaction',
      })),
      instructions: message.instructions.map((i) => ({
        programId: keys[i.programAddressIndex]!,
        accounts: (i.accountIndices ?? []).map((k) => keys[k]!),
        data: base58.decode(i.data ?? new Uint8Array()),
        stackHeight: null,
      })),
      recentBlockhash: message.lifetimeToken,
      preBalances,
      postBalances: keys.map(lamportsOf),
      preTokenBalances,
      postTokenBalances: tokenBalances(),
      logMessages: meta.logs(),
      computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
    };
    transactions.push(recorded);
    bySignature.set(signature, recorded);
    return { signature, slot, failed };
  };

  const ata = async (owner: Address, mint: Address) => {
    const program = svm.getAccount(mint);
    if (!program.exists) throw new Error(`no mint ${mint}`);
    const [account] = await findAssociatedTokenPda({ owner, mint, tokenProgram: program.programAddress });
    return { account, tokenProgram: program.programAddress };
  };

  const visibleSlot = (commitment: unknown) => (commitment === undefined || commitment === 'finalized' ? finalizedSlot : slot);
  const methods: Record<string, (params: any[]) => unknown> = {
    getSlot: ([config]) => visibleSlot(config?.commitment),
    getSignaturesForAddress: ([account, config = {}]) => {
      const limit = config.limit ?? 1000;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RpcError(-32602, 'Invalid limit; max 1000');
      if (config.commitment === 'processed') throw new RpcError(-32602, 'Method does not support commitment below `confirmed`');
      const visible = visibleSlot(config.commitment);
      let list = transactions.filter((t) => t.slot <= visible && t.accountKeys.some((k) => k.pubkey === account)).reverse();
      if (config.before !== undefined) {
        const at = list.findIndex((t) => t.signature === config.before);
        if (at < 0 && !bySignature.has(config.before)) throw new RpcError(-32602, 'Invalid param: before signature not found');
        list = at < 0 ? [] : list.slice(at + 1);
      }
      if (config.until !== undefined) {
        const at = list.findIndex((t) => t.signature === config.until);
        if (at >= 0) list = list.slice(0, at);
      }
      return list.slice(0, limit).map((t) => ({
        signature: t.signature,
        slot: t.slot,
        err: t.err,
        memo: null,
        blockTime: t.blockTime,
        confirmationStatus: t.slot <= finalizedSlot ? 'finalized' : 'confirmed',
      }));
    },
    getTransaction: ([signature, config = {}]) => {
      if (config.encoding !== 'jsonParsed') throw new RpcError(-32602, 'this test node answers getTransaction with encoding jsonParsed only');
      const t = bySignature.get(signature);
      if (!t || t.slot > visibleSlot(config.commitment)) return null;
      if (config.maxSupportedTransactionVersion === undefined) {
        throw new RpcError(
          -32015,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      return {
        blockTime: t.blockTime,
        meta: {
          computeUnitsConsumed: t.computeUnitsConsumed,
          err: t.err,
          fee: 5000 * t.signatures.length,
          innerInstructions: [],
          logMessages: t.logMessages,
          postBalances: t.postBalances,
          postTokenBalances: t.postTokenBalances,
          preBalances: t.preBalances,
          preTokenBalances: t.preTokenBalances,
          rewards: [],
          status: t.err === null ? { Ok: null } : { Err: t.err },
        },
        slot: t.slot,
        transaction: {
          message: { accountKeys: t.accountKeys, addressTableLookups: [], instructions: t.instructions, recentBlockhash: t.recentBlockhash },
          signatures: t.signatures,
        },
        version: 0,
      };
    },
    getBlock: ([at, config = {}]) => {
      if (config.transactionDetails !== 'none') throw new RpcError(-32602, 'this test node answers getBlock with transactionDetails none only');
      const block = blocks.get(at);
      if (at > visibleSlot(config.commitment)) throw new RpcError(-32004, `Block not available for slot ${at}`);
      if (!block) throw new RpcError(-32007, `Slot ${at} was skipped, or missing due to ledger jump to recent snapshot`);
      return { blockHeight: block.slot - FIRST_SLOT, blockTime: block.blockTime, blockhash: block.blockhash, parentSlot: block.parentSlot, previousBlockhash: block.previousBlockhash };
    },
    getAccountInfo: ([key, config = {}]) => {
      const account = svm.getAccount(address(key));
      const context = { apiVersion: '2.3.0', slot: visibleSlot(config.commitment) };
      if (!account.exists) return { context, value: null };
      const program = Object.entries(PROGRAMS).find(([, a]) => a === account.programAddress)?.[0];
      let data: unknown = [base64.decode(account.data), 'base64'];
      if (config.encoding === 'jsonParsed' && program && account.data.length === getMintSize()) {
        const mint = getMintDecoder().decode(account.data);
        const option = (o: { __option: string; value?: unknown }) => (o.__option === 'Some' ? String(o.value) : null);
        data = {
          parsed: {
            info: { decimals: mint.decimals, freezeAuthority: option(mint.freezeAuthority), isInitialized: mint.isInitialized, mintAuthority: option(mint.mintAuthority), supply: mint.supply.toString() },
            type: 'mint',
          },
          program,
          space: account.data.length,
        };
      }
      return { context, value: { data, executable: account.executable, lamports: Number(account.lamports), owner: account.programAddress, rentEpoch: 0, space: account.data.length } };
    },
  };

  const calls = new Map<string, number>();
  let requests = 0;
  const node: SolanaNode = {
    get requests() {
      return requests;
    },
    url: '',
    get slot() {
      return slot;
    },
    get finalizedSlot() {
      return finalizedSlot;
    },
    down: false,
    calls,
    async createMint(program, decimals) {
      const mint = await generateKeyPairSigner();
      const space = BigInt(getMintSize());
      const { failed } = await send([
        getCreateAccountInstruction({ payer, newAccount: mint, lamports: svm.minimumBalanceForRentExemption(space), space, programAddress: PROGRAMS[program] }),
        getInitializeMint2Instruction({ mint: mint.address, decimals, mintAuthority: payer.address }, { programAddress: PROGRAMS[program] }),
      ]);
      if (failed) throw new Error('creating the mint failed');
      decimalsOf.set(mint.address, decimals);
      return mint.address;
    },
    async wallet() {
      return generateKeyPairSigner();
    },
    async mintTo(mint, owner, amount) {
      const { account, tokenProgram } = await ata(owner, mint);
      const { signature, failed } = await send([
        getCreateAssociatedTokenIdempotentInstruction({ payer, ata: account, owner, mint, tokenProgram }),
        getMintToCheckedInstruction({ mint, token: account, mintAuthority: payer, amount, decimals: decimalsOf.get(mint)! }, { programAddress: tokenProgram }),
      ]);
      if (failed) throw new Error('minting failed');
      return signature;
    },
    async transfer(mint, from, payments) {
      const { account: source, tokenProgram } = await ata(from.address, mint);
      const instructions: Instruction[] = [];
      for (const { to, amount } of payments) {
        const { account: destination } = await ata(to, mint);
        instructions.push(
          getCreateAssociatedTokenIdempotentInstruction({ payer, ata: destination, owner: to, mint, tokenProgram }),
          getTransferCheckedInstruction({ source, mint, destination, authority: from, amount, decimals: decimalsOf.get(mint)! }, { programAddress: tokenProgram }),
        );
      }
      return send(instructions);
    },
    mine(n) {
      for (let i = 0; i < n; i++) nextSlot();
    },
    finalize() {
      finalizedSlot = slot;
    },
    close: async () => {},
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests++;
      if (node.down) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable');
        return;
      }
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      const answer = (request: any) => {
        calls.set(request.method, (calls.get(request.method) ?? 0) + 1);
        const method = methods[request.method];
        if (!method) return { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } };
        try {
          return { jsonrpc: '2.0', id: request.id, result: method(request.params ?? []) };
        } catch (error) {
          if (error instanceof RpcError) return { jsonrpc: '2.0', id: request.id, error: { code: error.code, message: error.message } };
          throw error;
        }
      };
      const reply = Array.isArray(body) ? body.map(answer) : answer(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  node.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return node;
}
