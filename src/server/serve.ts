// Listening and stopping: a node:http (or node:https) server around the app, and a graceful drain on SIGINT and SIGTERM.
import { createServer, type RequestListener, type Server, type ServerOptions as HttpServerOptions } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'srvx/node';
import type { Ledger } from '../core/ledger.js';
import { openLedger } from '../store/open.js';
import type { Clock, Leases } from '../core/ports.js';
import { createApp } from './app.js';
import { HoldSweeper, SettlementSweeper } from './sweeper.js';
import { WebhookSender } from './webhooks/sender.js';
import { systemResolver, type Resolver, type UrlPolicy } from './webhooks/urlPolicy.js';
import type { RetryPolicy } from '../core/webhook.js';
import { MAINNET_TOKENS, type TokenRegistry } from '../core/tokenRegistry.js';
import { EvmWatcher } from './chains/evmWatcher.js';
import { TronWatcher } from './chains/tronWatcher.js';
import { SolanaWatcher } from './chains/solanaWatcher.js';
import type { Logger } from './errors.js';
import {
  BODY_IDLE_TIMEOUT_DEFAULT_MS,
  BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE,
  HEADERS_SIZE_MAX_BYTES,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_DEFAULT_MS,
  MAX_CONNECTIONS_DEFAULT,
  SHUTDOWN_DRAIN_MS,
} from '../core/limits.js';
import { isLoopbackHost, readTls, type TlsFiles } from './tls.js';
import { answerClientError } from './clientError.js';
import { RateLimiter } from './rateLimit.js';
import { InFlightRequests } from './inFlight.js';
import { EventStreams } from './eventStreams.js';
import { EventPruner } from './eventPruner.js';

const DRAIN_SWEEP_MS = 20;

export interface ServeOptions {
  /** The database: a SQLite file path, or a postgres:// URL (store/open.ts). */
  db: string;
  /** PostgreSQL: the connections opened for reads (`--db-pool`). */
  dbPoolSize?: number;
  host: string;
  port: number;
  log: Logger;
  /** Where commits run: a writer thread (the default), or this thread. */
  writer?: 'thread' | 'local';
  /** Tests: the time the ledger sees (with `writer: 'local'`, whose commits then take their times from it too). */
  clock?: Clock;
  /** How long a new settlement stays PENDING; the contract's default when absent. */
  settlementTtlSeconds?: number;
  /** Tests: how often expired settlements are swept after the sweep at start (`SETTLEMENT_SWEEP_INTERVAL_MS`). */
  settlementSweepIntervalMs?: number;
  /** A request body that sends nothing for this long is refused with 408 (`--body-timeout`). */
  bodyIdleTimeoutMs?: number;
  /** Requests a second per API key (token bucket, burst = the rate); none when absent. */
  rateLimitPerSecond?: number;
  webhooks?: WebhookSettings;
  chains?: ChainSettings;
  /** The workers this process runs beside the API (`--workers`); all of them when absent. */
  workers?: ReadonlySet<WorkerName>;
  /** HTTPS with this certificate and key (read again on SIGHUP); plain HTTP when absent. */
  tls?: TlsFiles;
  /** Request headers must arrive within this long (`--headers-timeout`). */
  headersTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this long (`--keep-alive-timeout`). */
  keepAliveTimeoutMs?: number;
  /** Open connections at most (`--max-connections`). */
  maxConnections?: number;
  /** Events older than this many days are pruned (`--event-retention`); kept for ever when absent. */
  eventRetentionDays?: number;
  /** Tests: how often events past the retention time are pruned (`EVENT_PRUNE_INTERVAL_MS`). */
  eventPruneIntervalMs?: number;
  /** Tests: an event stream's heartbeat, and how long a client may take nothing before it is dropped. */
  eventStream?: { heartbeatMs?: number; stallMs?: number };
}

/** What `serve` runs beside the API: the settlement expiry sweeper, the webhook sender, the chain watchers. */
export const WORKER_NAMES = ['sweeper', 'webhooks', 'watchers'] as const;
export type WorkerName = (typeof WORKER_NAMES)[number];

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

/** Where webhooks may go and how they are sent. */
export interface WebhookSettings {
  /** Test and development only: loopback and private destinations are allowed. */
  allowPrivate?: boolean;
  denyDomains?: string[];
  /** Tests: a resolver standing in for DNS, certificates to trust, a faster retry schedule. */
  resolve?: Resolver;
  ca?: string;
  retry?: RetryPolicy;
}

export function urlPolicyOf(settings: WebhookSettings = {}): UrlPolicy {
  return {
    allowPrivate: settings.allowPrivate ?? false,
    denyDomains: (settings.denyDomains ?? []).map((d) => d.toLowerCase().replace(/^\.+|\.+$/g, '')).filter(Boolean),
    resolve: settings.resolve ?? systemResolver,
  };
}

export interface RunningServer {
  url: string;
  ledger: Ledger;
  /** Stops accepting, lets in-flight requests finish, commits what is queued and closes the database. */
  close(): Promise<void>;
  /** Reads the TLS certificate and key again (SIGHUP); new connections get them. Without TLS, says so. */
  reload(): void;
}

function listen(server: Server | HttpsServer, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** The ledger (store and writer) with the workers that run beside the server, and how to stop them in order. */
async function openServing(options: ServeOptions): Promise<{ ledger: Ledger; close(): Promise<void> }> {
  const opened = await openLedger(options.db, {
    writer: options.writer ?? 'thread',
    poolSize: options.dbPoolSize,
    serving: true,
    clock: options.clock,
    ledger: { settlementTtlSeconds: options.settlementTtlSeconds },
    log: options.log,
  });
  options.log(`storage: ${opened.storage}`);
  const { ledger } = opened;
  const runs = (name: WorkerName) => options.workers?.has(name) ?? true;
  const running = WORKER_NAMES.filter(runs);
  options.log(`workers: ${running.length > 0 ? running.join(', ') : 'none (API only)'}`);
  const sweeper = runs('sweeper') ? new SettlementSweeper(ledger, options.log, options.settlementSweepIntervalMs) : undefined;
  const holdSweeper = runs('sweeper') ? new HoldSweeper(ledger, options.log) : undefined;
  let watchers: Array<{ close(): Promise<void> }> = [];
  try {
    if (runs('watchers')) watchers = await startWatchers(ledger, opened.leases, options.log, options.chains);
  } catch (error) {
    await sweeper?.close();
    await holdSweeper?.close();
    await opened.close();
    throw error;
  }
  const pruner =
    runs('sweeper') && options.eventRetentionDays !== undefined
      ? new EventPruner(ledger, options.log, options.eventRetentionDays, options.eventPruneIntervalMs)
      : undefined;
  const sender = runs('webhooks')
    ? new WebhookSender(ledger, options.log, {
        leases: opened.leases,
        policy: urlPolicyOf(options.webhooks),
        ca: options.webhooks?.ca,
        retry: options.webhooks?.retry,
      })
    : undefined;
  return {
    ledger,
    close: async () => {
      await Promise.all(watchers.map((w) => w.close()));
      await sender?.close();
      await pruner?.close();
      await holdSweeper?.close();
      await sweeper?.close();
      await opened.close();
    },
  };
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  // Checked before anything is opened: a bad certificate is a bad flag.
  const tls = options.tls ? readTls(options.tls) : undefined;
  const { ledger, close: stopStore } = await openServing(options);
  const bodyIdleTimeoutMs = options.bodyIdleTimeoutMs ?? BODY_IDLE_TIMEOUT_DEFAULT_MS;
  const rateLimiter = options.rateLimitPerSecond === undefined ? undefined : new RateLimiter(options.rateLimitPerSecond);
  const inFlight = new InFlightRequests();
  const eventStreams = new EventStreams(ledger, options.log, options.eventStream);
  const app = createApp(ledger, { urlPolicy: urlPolicyOf(options.webhooks), bodyIdleTimeoutMs, rateLimiter, eventStreams }, options.log, inFlight);
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const settings: HttpServerOptions = {
    keepAliveTimeout: options.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_DEFAULT_MS,
    maxHeaderSize: HEADERS_SIZE_MAX_BYTES,
    headersTimeout,
    // Bodies are timed by server/body.ts; Node's own whole-request limit stays behind it as a backstop.
    requestTimeout: headersTimeout + bodyIdleTimeoutMs * BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE + 5000,
    connectionsCheckingInterval: 1000,
  };
  const handler = toNodeHandler(app.fetch) as RequestListener;
  let server: Server | HttpsServer;
  if (tls) {
    const { summary, ...pair } = tls;
    server = createHttpsServer({ ...settings, ...pair }, handler);
    options.log(`TLS: ${summary}`);
  } else {
    server = createServer(settings, handler);
    if (!isLoopbackHost(options.host)) {
      options.log(`warning: serving plain HTTP on ${options.host}: API keys will cross the network in clear text. Use --tls-cert and --tls-key, or a TLS proxy in front.`);
    }
  }
  server.maxConnections = options.maxConnections ?? MAX_CONNECTIONS_DEFAULT;
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket, options.log));
  let address: AddressInfo;
  try {
    address = await listen(server, options.host, options.port);
  } catch (error) {
    await stopStore();
    throw error;
  }
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  const reload = () => {
    if (!options.tls || !('setSecureContext' in server)) return options.log('SIGHUP: no TLS certificate to read again (serving plain HTTP)');
    try {
      const { summary, ...pair } = readTls(options.tls);
      server.setSecureContext(pair);
      options.log(`TLS reloaded: ${summary}`);
    } catch (error) {
      options.log(`TLS reload failed, still serving the previous certificate: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${address.port}`,
    ledger,
    reload,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        const deadline = Date.now() + SHUTDOWN_DRAIN_MS;
        // Streams end first, cleanly: their connections are then idle, and closed with the others.
        eventStreams.close();
        const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_DRAIN_MS);
        // A keep-alive connection whose request was just answered would otherwise linger until its timeout.
        const sweep = setInterval(() => server.closeIdleConnections(), DRAIN_SWEEP_MS);
        server.close(() => {
          clearTimeout(force);
          clearInterval(sweep);
          // Connections are gone, but a handler whose client left may still be at work: the store outlives it.
          void inFlight
            .idle(Math.max(0, deadline - Date.now()))
            .then(stopStore)
            .then(resolve);
        });
        server.closeIdleConnections();
      })),
  };
}

/** Runs until SIGINT or SIGTERM, then drains and resolves; the caller exits 0. SIGHUP reads the TLS files again. */
export function untilSignal(running: { close(): Promise<void>; reload?: () => void }, log: Logger): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      log(`${signal} received: draining in-flight requests`);
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      process.off('SIGHUP', onHup);
      void running.close().then(resolve);
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    const onHup = () => (running.reload ? running.reload() : log('SIGHUP: nothing to reload'));
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    process.on('SIGHUP', onHup);
  });
}
