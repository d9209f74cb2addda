// `ledger serve`: the whole /api/v1 server until SIGINT or SIGTERM.
import type { Command } from 'commander';
import { action, dbOption, dbPoolOption } from '../common.js';
import { startServer, untilSignal, WORKER_NAMES, type WorkerName } from '../../server/serve.js';
import { invalid } from '../../core/errors.js';
import { addWebhookOptions, webhookSettingsOf, type WebhookFlags } from '../webhookOptions.js';
import { addChainOptions, chainSettingsOf, type ChainFlags } from '../chainOptions.js';
import {
  BODY_IDLE_TIMEOUT_DEFAULT_MS,
  BODY_IDLE_TIMEOUT_MAX_MS,
  BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE,
  RATE_LIMIT_MAX_PER_SECOND,
  SETTLEMENT_TTL_DEFAULT_SECONDS,
  SETTLEMENT_TTL_MAX_SECONDS,
} from '../../core/limits.js';

const debug = process.env.LEDGER_LOG_LEVEL === 'debug';

/** Lines to stderr with their time; `debug` lines (aborted uploads, refused connections) only with LEDGER_LOG_LEVEL=debug. */
export const log = (line: string, level?: 'debug') => {
  if (level === 'debug' && !debug) return;
  process.stderr.write(`${new Date().toISOString()} ${level === 'debug' ? 'debug: ' : ''}${line}\n`);
};

function parseTtl(value: string): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1 || Number(value) > SETTLEMENT_TTL_MAX_SECONDS) {
    throw invalid(`--settlement-ttl must be a whole number of seconds from 1 to ${SETTLEMENT_TTL_MAX_SECONDS}, not ${JSON.stringify(value)}.`);
  }
  return Number(value);
}

function parseBodyTimeout(value: string): number {
  const max = BODY_IDLE_TIMEOUT_MAX_MS / 1000;
  if (!/^\d{1,6}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw invalid(`--body-timeout must be a whole number of seconds from 1 to ${max}, not ${JSON.stringify(value)}.`);
  }
  return Number(value) * 1000;
}

function parseRateLimit(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,7}(\.\d{1,3})?$/.test(value) || Number(value) <= 0 || Number(value) > RATE_LIMIT_MAX_PER_SECOND) {
    throw invalid(`--rate-limit must be a number of requests a second above 0 and at most ${RATE_LIMIT_MAX_PER_SECOND}, not ${JSON.stringify(value)}.`);
  }
  return Number(value);
}

/** `--workers all|none|<list>`, or `--no-workers`. */
function parseWorkers(value: string | false): ReadonlySet<WorkerName> {
  if (value === false || value === 'none') return new Set();
  if (value === 'all') return new Set(WORKER_NAMES);
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.find((name) => !(WORKER_NAMES as readonly string[]).includes(name));
  if (unknown !== undefined || names.length === 0) {
    throw invalid(`--workers must be all, none, or a comma-separated list of ${WORKER_NAMES.join(', ')}; not ${JSON.stringify(value)}.`);
  }
  return new Set(names as WorkerName[]);
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
    )
    .option(
      '--body-timeout <s>',
      `seconds a request body may send nothing before it is refused with 408; the whole body must arrive within ${BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE} times that (LEDGER_BODY_TIMEOUT_SECONDS)`,
      process.env.LEDGER_BODY_TIMEOUT_SECONDS ?? String(BODY_IDLE_TIMEOUT_DEFAULT_MS / 1000),
    )
    .option(
      '--rate-limit <n>',
      'requests a second per API key, with a burst of as many; over it, 429 with Retry-After (LEDGER_RATE_LIMIT; default: no limit)',
      process.env.LEDGER_RATE_LIMIT,
    )
    .option(
      '--workers <list>',
      `what runs beside the API: all, none, or a comma-separated list of ${WORKER_NAMES.join(', ')} (LEDGER_WORKERS)`,
      process.env.LEDGER_WORKERS ?? 'all',
    )
    .option('--no-workers', 'the API alone, no worker (the same as --workers none)');
  addChainOptions(addWebhookOptions(serve)).action(
      action(async (options: { host: string; port: string; settlementTtl: string; bodyTimeout: string; rateLimit?: string; workers: string | false } & WebhookFlags & ChainFlags, command: Command) => {
        const running = await startServer({
          db: dbOption(command),
          dbPoolSize: dbPoolOption(command),
          host: options.host,
          port: parsePort(options.port),
          settlementTtlSeconds: parseTtl(options.settlementTtl),
          bodyIdleTimeoutMs: parseBodyTimeout(options.bodyTimeout),
          rateLimitPerSecond: parseRateLimit(options.rateLimit),
          webhooks: webhookSettingsOf(options),
          chains: chainSettingsOf(options),
          workers: parseWorkers(options.workers),
          log,
        });
        // The signals are handled before the line a supervisor waits for is printed.
        const stopped = untilSignal(running, log);
        process.stdout.write(`ledger listening on ${running.url}\n`);
        await stopped;
        log('stopped');
      }),
    );
}
