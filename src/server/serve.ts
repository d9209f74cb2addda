// Listening and stopping: a node:http (or node:https) server around the app, and a graceful drain on SIGINT and SIGTERM.
import { createServer, type RequestListener, type Server, type ServerOptions as HttpServerOptions } from 'node:http';
import { ThreadStatementParser } from './statementParser.js';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from 'srvx/node';
import type { Ledger } from '../core/ledger.js';
import { openLedger } from '../store/open.js';
import type { Clock } from '../core/time.js';
import { createApp } from './app.js';
import { startWorkers, urlPolicyOf, type WorkerSettings } from '../workers/index.js';
import type { Logger } from './errors.js';
import {
  BODY_IDLE_TIMEOUT_DEFAULT_MS,
  BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE,
  CONNECTION_REFUSALS_MAX,
  HEADERS_SIZE_MAX_BYTES,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_DEFAULT_MS,
  MAX_CONNECTIONS_DEFAULT,
  MAX_CONNECTIONS_PER_CLIENT_DEFAULT,
  SHUTDOWN_DRAIN_MS,
} from '../core/limits.js';
import { isLoopbackHost, readTls, type TlsFiles } from './tls.js';
import { answerClientError } from './clientError.js';
import { RateLimiter } from './rateLimit.js';
import { InFlightRequests } from './inFlight.js';
import { EventStreams } from './eventStreams.js';
import { streamCapsFor } from './streamSlots.js';
import { ConnectionGuard } from './connections.js';
import { DRAIN_SWEEP_MS } from '../core/limits.js';

export interface ServeOptions extends WorkerSettings {
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
  /** A request body that sends nothing for this long is refused with 408 (`--body-timeout`). */
  bodyIdleTimeoutMs?: number;
  /** Requests a second per API key (token bucket, burst = the rate); none when absent. */
  rateLimitPerSecond?: number;
  /** HTTPS with this certificate and key (read again on SIGHUP); plain HTTP when absent. */
  tls?: TlsFiles;
  /** A new connection's first request headers (TLS handshake included) must arrive within this long of its opening (`--headers-timeout`). */
  headersTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this long (`--keep-alive-timeout`). */
  keepAliveTimeoutMs?: number;
  /** Open connections at most (`--max-connections`); event streams together hold at most half of them. */
  maxConnections?: number;
  /** Open connections from one client address at most (`--max-connections-per-client`). */
  maxConnectionsPerClient?: number;
  /** Event streams one tenant may hold open at once (`--max-streams-per-tenant`). */
  maxStreamsPerTenant?: number;
  /** Serve the console at /console (default true; `--no-console`, LEDGER_CONSOLE=0). */
  console?: boolean;
  /** Tests: an event stream's heartbeat, and how long a client may take nothing before it is dropped. */
  eventStream?: { heartbeatMs?: number; stallMs?: number };
}

export interface RunningServer {
  url: string;
  ledger: Ledger;
  /** Stops accepting, lets in-flight requests finish, commits what is queued and closes the database. */
  close(): Promise<void>;
  /** Reads the TLS certificate and key again (SIGHUP); new connections get them. Without TLS, says so. */
  reload(): void;
  /** Request handlers running now (what a graceful stop waits for). */
  inFlight(): number;
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
  const statementParser = new ThreadStatementParser();
  const opened = await openLedger(options.db, {
    writer: options.writer ?? 'thread',
    poolSize: options.dbPoolSize,
    serving: true,
    clock: options.clock,
    ledger: { settlementTtlSeconds: options.settlementTtlSeconds, parseStatement: statementParser.parse },
    log: options.log,
  });
  options.log(`storage: ${opened.storage}`);
  let workers: { close(): Promise<void> };
  try {
    workers = await startWorkers(opened.ledger, opened.leases, options.log, options);
  } catch (error) {
    await opened.close();
    throw error;
  }
  return {
    ledger: opened.ledger,
    close: async () => {
      await workers.close();
      await statementParser.close();
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
  const maxConnections = options.maxConnections ?? MAX_CONNECTIONS_DEFAULT;
  const caps = streamCapsFor({ maxConnections, maxConnectionsPerClient: options.maxConnectionsPerClient, maxStreamsPerTenant: options.maxStreamsPerTenant });
  const eventStreams = new EventStreams(ledger, options.log, { ...options.eventStream, caps });
  const app = createApp(ledger, { urlPolicy: urlPolicyOf(options.webhooks), bodyIdleTimeoutMs, rateLimiter, eventStreams, console: options.console ?? true }, options.log, inFlight);
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
    // The handshake is bounded by the guard below from the connection's opening; Node's own clock (120 s by default) is set alike.
    server = createHttpsServer({ ...settings, ...pair, handshakeTimeout: headersTimeout }, handler);
    options.log(`TLS: ${summary}`);
  } else {
    server = createServer(settings, handler);
    if (!isLoopbackHost(options.host)) {
      options.log(`warning: serving plain HTTP on ${options.host}: API keys will cross the network in clear text. Use --tls-cert and --tls-key, or a TLS proxy in front.`);
    }
  }
  // The guard answers what is past the caps (server/connections.ts); Node closes what is past them and the answers under
  // way before any listener sees it. On TLS, where nothing past a cap is answered, at the cap itself.
  server.maxConnections = tls ? maxConnections : maxConnections + CONNECTION_REFUSALS_MAX;
  const perClient = options.maxConnectionsPerClient ?? MAX_CONNECTIONS_PER_CLIENT_DEFAULT;
  const guard = new ConnectionGuard({ perClient, total: maxConnections, headersTimeoutMs: headersTimeout }, options.log);
  guard.attach(server, tls !== undefined);
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket, { log: options.log, headersTimeoutMs: headersTimeout }));
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
    inFlight: () => inFlight.size,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        const deadline = Date.now() + SHUTDOWN_DRAIN_MS;
        // Streams end first, cleanly: their connections are then idle, and closed with the others.
        eventStreams.close();
        guard.closeOpenings();
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
