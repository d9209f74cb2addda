// A local EVM node for the chain watcher tests: anvil from the npm package @foundry-rs/anvil (its binary ships in the
// platform package, nothing is downloaded), a minimal ERC-20 compiled with solc-js, and viem clients to deploy, transfer
// and mine. Only 127.0.0.1 is spoken to.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  createPublicClient,
  createWalletClient,
  http,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { until } from './support.js';

const require = createRequire(import.meta.url);

/** Anvil's default funded accounts (the well-known test mnemonic): #0 deploys and mints, #1 is a second sender. */
export const DEPLOYER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const SECOND_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

/** The platform binary inside node_modules: called directly, so the `anvil` bin shim and its postinstall are not needed. */
export function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const candidates = [join(process.cwd(), 'node_modules', pkg, 'bin', 'anvil')];
  try {
    candidates.push(join(require.resolve(`${pkg}/package.json`), '..', 'bin', 'anvil'));
  } catch {
    // not resolvable through exports: the node_modules path above is enough
  }
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`anvil binary not found (looked in ${candidates.join(', ')}); run npm install`);
  return found;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


export interface Anvil {
  url: string;
  pid: number;
  publicClient: PublicClient;
  deployer: PrivateKeyAccount;
  second: PrivateKeyAccount;
  rpc(method: string, params?: unknown[]): Promise<any>;
  blockNumber(): Promise<number>;
  /** Mines n empty blocks. */
  mine(n?: number): Promise<void>;
  snapshot(): Promise<Hex>;
  revert(id: Hex): Promise<void>;
  wallet(account: PrivateKeyAccount): WalletClient;
  stop(): Promise<void>;
}

/** Starts anvil on a random free port of 127.0.0.1 (retrying on a taken one) and waits for it to answer eth_chainId. */
export async function startAnvil(): Promise<Anvil> {
  const bin = anvilBinary();
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    const url = `http://127.0.0.1:${port}`;
    const child: ChildProcess = spawn(bin, ['--host', '127.0.0.1', '--port', String(port), '--silent'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let exited = false;
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr += String(d)));
    child.once('exit', () => (exited = true));
    try {
      await until(
        'anvil to answer eth_chainId',
        async () => {
          if (exited) throw new Error(`anvil exited: ${stderr.trim()}`);
          return (await rpc(url, 'eth_chainId')) as string;
        },
        10_000,
        50,
      ).catch((error) => {
        if (exited) throw new Error(`anvil exited: ${stderr.trim()}`);
        throw error;
      });
    } catch (error) {
      lastError = error;
      if (!exited) child.kill('SIGKILL');
      continue;
    }
    const publicClient = createPublicClient({ chain: foundry, transport: http(url, { retryCount: 0 }), pollingInterval: 50, cacheTime: 0 }) as PublicClient;
    return {
      url,
      pid: child.pid!,
      publicClient,
      deployer: privateKeyToAccount(DEPLOYER_KEY),
      second: privateKeyToAccount(SECOND_KEY),
      rpc: (method, params = []) => rpc(url, method, params),
      blockNumber: async () => Number(BigInt(await rpc(url, 'eth_blockNumber'))),
      mine: async (n = 1) => {
        await rpc(url, 'anvil_mine', [`0x${n.toString(16)}`]);
      },
      snapshot: async () => (await rpc(url, 'evm_snapshot')) as Hex,
      revert: async (id) => {
        const ok = await rpc(url, 'evm_revert', [id]);
        if (ok !== true) throw new Error(`evm_revert ${id} returned ${String(ok)}`);
      },
      wallet: (account) => createWalletClient({ account, chain: foundry, transport: http(url, { retryCount: 0 }), pollingInterval: 50 }),
      stop: async () => {
        if (exited) return;
        const gone = new Promise<void>((r) => child.once('exit', () => r()));
        process.kill(child.pid!, 'SIGTERM');
        await Promise.race([gone, sleep(3_000)]);
        if (!exited) process.kill(child.pid!, 'SIGKILL');
      },
    };
  }
  throw new Error(`could not start anvil: ${String(lastError)}`);
}

// A minimal ERC-20: name, symbol, decimals from the constructor, balanceOf, transfer emitting Transfer, mint for the deployer.
const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract TestToken {
    string public name;
    string public symbol;
    uint8 public decimals;
    uint256 public totalSupply;
    address public immutable owner;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        owner = msg.sender;
    }

    function mint(address to, uint256 value) external {
        require(msg.sender == owner, "only the deployer mints");
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(balanceOf[msg.sender] >= value, "balance too low");
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}
`;

export interface CompiledToken {
  abi: any[];
  bytecode: Hex;
}

let compiled: CompiledToken | undefined;

/** Compiles the token with solc-js (once per process). */
export function compileToken(): CompiledToken {
  if (compiled) return compiled;
  const solc = require('solc');
  const input = {
    language: 'Solidity',
    sources: { 'TestToken.sol': { content: TOKEN_SOURCE } },
    settings: { evmVersion: 'cancun', optimizer: { enabled: false }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: any[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join('\n')}`);
  const c = output.contracts['TestToken.sol']!['TestToken']!;
  compiled = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return compiled;
}

export interface TestToken {
  address: Address;
  /** Mints by the deployer; resolves with the mined receipt. */
  mint(to: Address, value: bigint): Promise<void>;
  /** A transfer by `from` (the deployer by default), mined at once (anvil automines): its hash and block. */
  transfer(to: Address, value: bigint, from?: PrivateKeyAccount): Promise<{ hash: Hash; blockNumber: number }>;
  balanceOf(owner: Address): Promise<bigint>;
  decimals(): Promise<number>;
}

/** Deploys a TestToken from the deployer account. */
export async function deployToken(anvil: Anvil, name: string, symbol: string, decimals: number): Promise<TestToken> {
  const { abi, bytecode } = compileToken();
  const deployerWallet = anvil.wallet(anvil.deployer);
  const deployHash = await deployerWallet.deployContract({ abi, bytecode, args: [name, symbol, decimals], account: anvil.deployer, chain: foundry });
  const receipt = await anvil.publicClient.waitForTransactionReceipt({ hash: deployHash, pollingInterval: 50, timeout: 10_000 });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploy of ${symbol} failed`);
  const address = receipt.contractAddress;
  const send = async (account: PrivateKeyAccount, functionName: 'mint' | 'transfer', args: [Address, bigint]) => {
    const hash = await anvil.wallet(account).writeContract({ address, abi, functionName, args, account, chain: foundry });
    const r = await anvil.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 10_000 });
    if (r.status !== 'success') throw new Error(`${functionName} reverted`);
    return { hash, blockNumber: Number(r.blockNumber) };
  };
  return {
    address,
    mint: async (to, value) => {
      await send(anvil.deployer, 'mint', [to, value]);
    },
    transfer: (to, value, from = anvil.deployer) => send(from, 'transfer', [to, value]),
    balanceOf: async (owner) => (await anvil.publicClient.readContract({ address, abi, functionName: 'balanceOf', args: [owner] })) as bigint,
    decimals: async () => Number(await anvil.publicClient.readContract({ address, abi, functionName: 'decimals' })),
  };
}
