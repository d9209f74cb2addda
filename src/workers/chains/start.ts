// The chain watchers a process runs: one per chain with an endpoint, each checking its tokens' decimals before it starts.
import type { Ledger } from '../../core/ledger.js';
import type { Leases, Logger } from '../../core/ports.js';
import { MAINNET_TOKENS, type TokenRegistry } from '../../core/tokenRegistry.js';
import { EvmWatcher } from './evmWatcher.js';
import { TronWatcher } from './tronWatcher.js';
import { SolanaWatcher } from './solanaWatcher.js';

/** Which chains are watched, and how. A chain without an endpoint is not watched. */
export interface ChainSettings {
  evmRpc?: string;
  solanaRpc?: string;
  tronApi?: string;
  evmConfirmations?: number;
  tokens?: TokenRegistry;
  /** Tests: how often a watcher polls. */
  pollMs?: number;
  /** Tests: a smaller getSignaturesForAddress page than the RPC's 1,000, to see the Solana watcher page. */
  solanaSignaturesPerPage?: number;
}

/** Starts the configured watchers (each checks its tokens' decimals first, and refuses to start on a mismatch). */
export async function startWatchers(ledger: Ledger, leases: Leases, log: Logger, settings: ChainSettings = {}): Promise<Array<{ close(): Promise<void> }>> {
  const tokens = settings.tokens ?? MAINNET_TOKENS;
  const watchers: Array<{ close(): Promise<void> }> = [];
  if (settings.evmRpc) {
    const evm = await EvmWatcher.create(ledger, log, { rpcUrl: settings.evmRpc, tokens: tokens.EVM, confirmations: settings.evmConfirmations, pollMs: settings.pollMs });
    await evm.checkTokens();
    evm.start(leases);
    watchers.push(evm);
    log(`watching EVM at ${settings.evmRpc} (${settings.evmConfirmations === undefined ? 'finalized blocks' : `${settings.evmConfirmations} confirmations`})`);
  } else {
    log('EVM is not watched (no --evm-rpc)');
  }
  if (settings.tronApi) {
    const tron = await TronWatcher.create(ledger, log, { apiUrl: settings.tronApi, tokens: tokens.TRON, pollMs: settings.pollMs });
    await tron.checkTokens();
    tron.start(leases);
    watchers.push(tron);
    log(`watching TRON at ${settings.tronApi} (solidified blocks)`);
  } else {
    log('TRON is not watched (no --tron-api)');
  }
  if (settings.solanaRpc) {
    const solana = await SolanaWatcher.create(ledger, log, {
      rpcUrl: settings.solanaRpc,
      tokens: tokens.SOLANA,
      pollMs: settings.pollMs,
      signaturesPerPage: settings.solanaSignaturesPerPage,
    });
    await solana.checkTokens();
    solana.start(leases);
    watchers.push(solana);
    log(`watching Solana at ${settings.solanaRpc} (finalized commitment)`);
  } else {
    log('Solana is not watched (no --solana-rpc)');
  }
  return watchers;
}
