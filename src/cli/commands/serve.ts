// `ledger serve`: the whole /api/v1 server until SIGINT or SIGTERM.
import type { Command } from 'commander';
import { action, dbPath } from '../common.js';
import { startServer, untilSignal } from '../../server/serve.js';
import { invalid } from '../../core/errors.js';
import { addWebhookOptions, webhookSettingsOf, type WebhookFlags } from '../webhookOptions.js';
import { addChainOptions, chainSettingsOf, type ChainFlags } from '../chainOptions.js';
import { SETTLEMENT_TTL_DEFAULT_SECONDS, SETTLEMENT_TTL_MAX_SECONDS } from '../../core/limits.js';

export const log = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);

function parseTtl(value: string): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > SETTLEMENT_TTL_MAX_SECONDS) {
    throw invalid(`--settlement-ttl must be a whole number of seconds from 1 to ${SETTLEMENT_TTL_MAX_SECONDS}, not ${JSON.stringify(value)}.`);
  }
  return Number(value);
}

function parsePort(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) throw invalid(`--port must be 0 to 65535, not ${JSON.stringify(value)}.`);
  return Number(value);
}

export function registerServe(program: Command): void {
  const serve = program
    .command('serve')
    .description('serve the /api/v1 HTTP API, with the settlement expiry sweeper, the webhook sender and the configured chain watchers')
    .option('--host <addr>', 'listen address (LEDGER_HOST)', process.env.LEDGER_HOST ?? '127.0.0.1')
    .option('--port <n>', 'listen port, 0 picks a free one (LEDGER_PORT)', process.env.LEDGER_PORT ?? '8080')
    .option(
      '--settlement-ttl <s>',
      'seconds a new settlement stays PENDING before it becomes UNMATCHED (LEDGER_SETTLEMENT_TTL_SECONDS)',
      process.env.LEDGER_SETTLEMENT_TTL_SECONDS ?? String(SETTLEMENT_TTL_DEFAULT_SECONDS),
    );
  addChainOptions(addWebhookOptions(serve)).action(
      action(async (options: { host: string; port: string; settlementTtl: string } & WebhookFlags & ChainFlags, command: Command) => {
        const running = await startServer({
          dbPath: dbPath(command),
          host: options.host,
          port: parsePort(options.port),
          settlementTtlSeconds: parseTtl(options.settlementTtl),
          webhooks: webhookSettingsOf(options),
          chains: chainSettingsOf(options),
          log,
        });
        process.stdout.write(`ledger listening on ${running.url}\n`);
        await untilSignal(running, log);
        log('stopped');
      }),
    );
}
