// `ledger serve`: the whole /api/v1 server until SIGINT or SIGTERM.
import type { Command } from 'commander';
import { action, dbOption, dbPoolOption } from '../common.js';
import { untilSignal } from '../signals.js';
import { WORKER_NAMES, type WorkerName } from '../../workers/names.js';
import { invalid } from '../../core/errors.js';
import { addWebhookOptions, webhookSettingsOf, type WebhookFlags } from '../webhookOptions.js';
import { addChainOptions, chainSettingsOf, type ChainFlags } from '../chainOptions.js';
import {
  BODY_IDLE_TIMEOUT_DEFAULT_MS,
  BODY_IDLE_TIMEOUT_MAX_MS,
  BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE,
  CONNECTION_TIMEOUT_MAX_MS,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_DEFAULT_MS,
  MAX_CONNECTIONS_DEFAULT,
  MAX_CONNECTIONS_MAX,
  MAX_CONNECTIONS_PER_CLIENT_DEFAULT,
  MAX_STREAMS_PER_TENANT_DEFAULT,
  RATE_LIMIT_MAX_PER_SECOND,
  SETTLEMENT_TTL_DEFAULT_SECONDS,
  SETTLEMENT_TTL_MAX_SECONDS,
  EVENT_RETENTION_DAYS_MAX,
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

/** A whole number from 1 to `max` given to `flag`, or exit 2 naming the flag and the range. */
function parseWhole(flag: string, value: string, max: number, unit: string): number {
  if (!/^\d{1,7}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw invalid(`${flag} must be a whole number of ${unit} from 1 to ${max}, not ${JSON.stringify(value)}.`);
  }
  return Number(value);
}

const secondsOf = (flag: string, value: string, maxMs: number) => parseWhole(flag, value, maxMs / 1000, 'seconds') * 1000;

/** `--tls-cert` and `--tls-key` come together, or neither. */
function parseTls(cert: string | undefined, key: string | undefined): { certFile: string; keyFile: string } | undefined {
  if (!cert && !key) return undefined;
  if (!cert || !key) throw invalid('--tls-cert and --tls-key go together: give both files (PEM), or neither for plain HTTP.');
  return { certFile: cert, keyFile: key };
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

/** LEDGER_CONSOLE: unset or 1 serves the console, 0 does not (true/false, on/off, yes/no read the same). */
function consoleFromEnv(value: string | undefined): boolean {
  const v = (value ?? '').trim().toLowerCase();
  if (['', '1', 'true', 'on', 'yes'].includes(v)) return true;
  if (['0', 'false', 'off', 'no'].includes(v)) return false;
  throw invalid(`Invalid LEDGER_CONSOLE: ${JSON.stringify(value)}; use 1 to serve the console or 0 not to.`, [{ path: 'LEDGER_CONSOLE', message: 'must be 0 or 1' }]);
}

interface ServeFlags {
  host: string;
  port: string;
  settlementTtl: string;
  bodyTimeout: string;
  rateLimit?: string;
  workers: string | false;
  console: boolean;
  tlsCert?: string;
  tlsKey?: string;
  headersTimeout: string;
  keepAliveTimeout: string;
  maxConnections: string;
  maxConnectionsPerClient: string;
  maxStreamsPerTenant: string;
  eventRetention?: string;
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
    .option('--no-console', 'do not serve the console at /console (LEDGER_CONSOLE=0)')
    .option('--no-workers', 'the API alone, no worker (the same as --workers none)')
    .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (chain), read again on SIGHUP (LEDGER_TLS_CERT)', process.env.LEDGER_TLS_CERT)
    .option('--tls-key <file>', 'the PEM private key of --tls-cert (LEDGER_TLS_KEY)', process.env.LEDGER_TLS_KEY)
    .option(
      '--headers-timeout <s>',
      'seconds a new connection has, from its opening, to finish its TLS handshake and send its first request headers; then 408 (or closed, mid-handshake); a later request has as long from its first byte (LEDGER_HEADERS_TIMEOUT_SECONDS)',
      process.env.LEDGER_HEADERS_TIMEOUT_SECONDS ?? String(HEADERS_TIMEOUT_MS / 1000),
    )
    .option(
      '--keep-alive-timeout <s>',
      'seconds an idle keep-alive connection stays open (LEDGER_KEEP_ALIVE_TIMEOUT_SECONDS)',
      process.env.LEDGER_KEEP_ALIVE_TIMEOUT_SECONDS ?? String(KEEP_ALIVE_TIMEOUT_DEFAULT_MS / 1000),
    )
    .option(
      '--max-connections <n>',
      'open connections at most; past it a new connection is answered 503 and closed (on TLS closed at once); event streams together hold at most half (LEDGER_MAX_CONNECTIONS)',
      process.env.LEDGER_MAX_CONNECTIONS ?? String(MAX_CONNECTIONS_DEFAULT),
    )
    .option(
      '--max-connections-per-client <n>',
      'open connections from one client address at most; past it a new one from that address is answered 503 and closed (on TLS closed at once; behind a proxy, raise it to --max-connections) (LEDGER_MAX_CONNECTIONS_PER_CLIENT)',
      process.env.LEDGER_MAX_CONNECTIONS_PER_CLIENT ?? String(MAX_CONNECTIONS_PER_CLIENT_DEFAULT),
    )
    .option(
      '--max-streams-per-tenant <n>',
      'event streams one tenant may hold open; past it, 429 RATE_LIMITED with Retry-After (LEDGER_MAX_STREAMS_PER_TENANT)',
      process.env.LEDGER_MAX_STREAMS_PER_TENANT ?? String(MAX_STREAMS_PER_TENANT_DEFAULT),
    )
    .option(
      '--event-retention <days>',
      'prune events older than this many days from the event feed, never one the webhook sender has not finished with (LEDGER_EVENT_RETENTION_DAYS; default: keep every event)',
      process.env.LEDGER_EVENT_RETENTION_DAYS,
    );
  addChainOptions(addWebhookOptions(serve)).action(
      action(async (options: ServeFlags & WebhookFlags & ChainFlags, command: Command) => {
        // Loaded when it runs: the other commands never load the server.
        const { startServer } = await import('../../server/serve.js');
        const running = await startServer({
          db: dbOption(command),
          dbPoolSize: dbPoolOption(command),
          host: options.host,
          port: parsePort(options.port),
          settlementTtlSeconds: parseTtl(options.settlementTtl),
          bodyIdleTimeoutMs: secondsOf('--body-timeout', options.bodyTimeout, BODY_IDLE_TIMEOUT_MAX_MS),
          headersTimeoutMs: secondsOf('--headers-timeout', options.headersTimeout, CONNECTION_TIMEOUT_MAX_MS),
          keepAliveTimeoutMs: secondsOf('--keep-alive-timeout', options.keepAliveTimeout, CONNECTION_TIMEOUT_MAX_MS),
          maxConnections: parseWhole('--max-connections', options.maxConnections, MAX_CONNECTIONS_MAX, 'connections'),
          maxConnectionsPerClient: parseWhole('--max-connections-per-client', options.maxConnectionsPerClient, MAX_CONNECTIONS_MAX, 'connections'),
          maxStreamsPerTenant: parseWhole('--max-streams-per-tenant', options.maxStreamsPerTenant, MAX_CONNECTIONS_MAX, 'streams'),
          tls: parseTls(options.tlsCert, options.tlsKey),
          rateLimitPerSecond: parseRateLimit(options.rateLimit),
          webhooks: webhookSettingsOf(options),
          chains: chainSettingsOf(options),
          workers: parseWorkers(options.workers),
          console: options.console && consoleFromEnv(process.env.LEDGER_CONSOLE),
          eventRetentionDays:
            options.eventRetention === undefined || options.eventRetention === ''
              ? undefined
              : parseWhole('--event-retention', options.eventRetention, EVENT_RETENTION_DAYS_MAX, 'days'),
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
