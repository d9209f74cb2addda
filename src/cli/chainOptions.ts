// The chain watcher options that `ledger serve` and `ledger watch` share (contract, Server options).
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { ChainSettings } from '../workers/index.js';
import { invalid } from '../core/errors.js';
import { parseTokenRegistry } from '../core/tokenRegistry.js';

export interface ChainFlags {
  evmRpc?: string;
  evmConfirmations?: string;
  solanaRpc?: string;
  tronApi?: string;
  tokens?: string;
}

export const addChainOptions = (command: Command): Command =>
  command
    .option('--evm-rpc <url>', 'EVM JSON-RPC endpoint to watch (LEDGER_EVM_RPC_URL); none, no EVM watcher', process.env.LEDGER_EVM_RPC_URL)
    .option('--solana-rpc <url>', 'Solana JSON-RPC endpoint to watch, finalized commitment (LEDGER_SOLANA_RPC_URL)', process.env.LEDGER_SOLANA_RPC_URL)
    .option('--tron-api <url>', 'TRON full-node HTTP API to watch, solidified blocks (LEDGER_TRON_API_URL)', process.env.LEDGER_TRON_API_URL)
    .option('--evm-confirmations <n>', 'an EVM transfer is final once its block has n confirmations (LEDGER_EVM_CONFIRMATIONS); default: the finalized tag', process.env.LEDGER_EVM_CONFIRMATIONS)
    .option('--tokens <file>', 'JSON token registry replacing the built-in mainnet one (LEDGER_TOKENS_FILE)', process.env.LEDGER_TOKENS_FILE);

export function chainSettingsOf(flags: ChainFlags): ChainSettings {
  let confirmations: number | undefined;
  if (flags.evmConfirmations !== undefined) {
    if (!/^\d{1,4}$/.test(flags.evmConfirmations) || Number(flags.evmConfirmations) < 1) {
      throw invalid(`--evm-confirmations must be a whole number from 1 to 9999, not ${JSON.stringify(flags.evmConfirmations)}.`);
    }
    confirmations = Number(flags.evmConfirmations);
  }
  for (const [flag, url] of [
    ['--evm-rpc', flags.evmRpc],
    ['--solana-rpc', flags.solanaRpc],
    ['--tron-api', flags.tronApi],
  ] as const) {
    if (url !== undefined && !/^https?:\/\//.test(url)) throw invalid(`${flag} must be an http(s) URL, not ${JSON.stringify(url)}.`);
  }
  let tokens;
  if (flags.tokens !== undefined) {
    let text: string;
    try {
      text = readFileSync(flags.tokens, 'utf8');
    } catch (error) {
      throw invalid(`--tokens: cannot read ${flags.tokens}: ${error instanceof Error ? error.message : String(error)}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw invalid(`--tokens: ${flags.tokens} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    tokens = parseTokenRegistry(json);
  }
  return { evmRpc: flags.evmRpc, solanaRpc: flags.solanaRpc, tronApi: flags.tronApi, evmConfirmations: confirmations, tokens };
}
