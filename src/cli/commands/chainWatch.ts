// The chain watchers on the command line: `ledger watch` runs them alone beside a server on the same database;
// `ledger watch status` tells how far each got.
import type { Command } from 'commander';
import { action, openCommandLedger, printJson, printTable, withLedger } from '../common.js';
import { untilSignal } from '../signals.js';
import { addChainOptions, chainSettingsOf, type ChainFlags } from '../chainOptions.js';
import { chains } from '../../core/money.js';
import { invalid } from '../../core/errors.js';
import { log } from './serve.js';
import type { Chain } from '../../core/money.js';

/** What `watch status` shows as each chain's head: the latest EVM block, the finalized Solana slot, the solidified TRON block. */
const headOf: Record<Chain, (endpoint: string) => Promise<number>> = {
  EVM: async (endpoint) => (await import('../../workers/chains/evmWatcher.js')).evmHead(endpoint),
  SOLANA: async (endpoint) => (await import('../../workers/chains/solanaWatcher.js')).solanaFinalizedSlot(endpoint),
  TRON: async (endpoint) => (await import('../../workers/chains/tronWatcher.js')).tronSolidifiedHead(endpoint),
};

export function registerWatch(program: Command): void {
  const watch = addChainOptions(
    program.command('watch').description('run the configured chain watchers alone, until SIGINT or SIGTERM (`ledger serve` runs them too)'),
  ).action(
    action(async (options: ChainFlags, command: Command) => {
      const settings = chainSettingsOf(options);
      if (!settings.evmRpc && !settings.solanaRpc && !settings.tronApi) {
        throw invalid('Nothing to watch: give --evm-rpc, --solana-rpc or --tron-api (or LEDGER_EVM_RPC_URL, LEDGER_SOLANA_RPC_URL, LEDGER_TRON_API_URL).');
      }
      const opened = await openCommandLedger(command);
      let watchers: Array<{ close(): Promise<void> }>;
      try {
        const { startWatchers } = await import('../../workers/index.js');
        watchers = await startWatchers(opened.ledger, opened.leases, log, settings);
      } catch (error) {
        await opened.close();
        throw error;
      }
      const keepOpen = setInterval(() => {}, 60_000);
      // The signals are handled before the line a supervisor waits for is printed.
      const stopped = untilSignal(
        {
          close: async () => {
            clearInterval(keepOpen);
            await Promise.all(watchers.map((w) => w.close()));
            await opened.close();
          },
        },
        log,
      );
      process.stdout.write('chain watchers running\n');
      await stopped;
      log('stopped');
    }),
  );

  watch
    .command('status')
    .description('per chain: checkpoint, head and lag (when its endpoint is given), transfers seen and matched')
    .option('--json', 'print as JSON')
    .action(
      action(async (options: { json?: boolean }, command: Command) => {
        // Checked as `watch` checks them: a malformed endpoint is a bad argument (exit 2), not a failed request.
        const flags = chainSettingsOf(command.parent!.opts() as ChainFlags);
        const rows = await withLedger(command, async (ledger) =>
          Promise.all(
            chains.map(async (chain) => {
              const checkpoint = await ledger.store.chainCheckpoint(chain);
              const endpoint = { EVM: flags.evmRpc, SOLANA: flags.solanaRpc, TRON: flags.tronApi }[chain] ?? null;
              const head = endpoint === null ? null : await headOf[chain](endpoint);
              return {
                chain,
                endpoint,
                checkpoint: checkpoint ? checkpoint.nextBlock - 1 : null,
                head,
                lag: head !== null && checkpoint ? Math.max(0, head - (checkpoint.nextBlock - 1)) : null,
                transfersSeen: checkpoint?.transfersSeen ?? 0,
                transfersMatched: checkpoint?.transfersMatched ?? 0,
                updatedAt: checkpoint?.updatedAt ?? null,
              };
            }),
          ),
        );
        if (options.json) return printJson(rows);
        printTable(
          ['chain', 'endpoint', 'checkpoint', 'head', 'lag', 'seen', 'matched', 'updated'],
          rows.map((r) => [r.chain, r.endpoint, r.checkpoint, r.head, r.lag, r.transfersSeen, r.transfersMatched, r.updatedAt]),
        );
      }),
    );
}
