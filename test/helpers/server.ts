// Black-box harness: the real server on a temporary database (a SQLite file, or a fresh PostgreSQL database under
// the postgres project), spoken to over HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/serve.js';
import { cliActor } from '../../src/cli/common.js';
import type { WebhookSettings } from '../../src/workers/index.js';
import type { Clock } from '../../src/core/time.js';
import { freshDatabaseUrl, TEST_ENGINE } from './postgres.js';

const run = promisify(execFile);

export interface TestServer {
  url: string;
  dir: string;
  /** The --db value: a SQLite file in `dir`, or a postgres:// URL of a database of its own. */
  dbPath: string;
  server: RunningServer;
  /** The first tenant and its ADMIN key, made as `ledger tenants create` makes it. */
  tenant: { tenantId: string; name: string; apiKey: { id: string; rawKey: string; prefix: string; scopes: string[]; createdAt: string } };
  stop(): Promise<void>;
}

export const BIN = join(process.cwd(), 'bin', 'ledger.js');

/** A new, empty database for a test: a file in `dir` on SQLite, a database of its own on the test PostgreSQL. */
export const testDb = (dir: string, name = 'ledger'): Promise<string> =>
  TEST_ENGINE === 'postgres' ? freshDatabaseUrl() : Promise.resolve(join(dir, `${name}.db`));

/** The scope list as the specification writes it, kept apart from src/core/scopes.ts on purpose: it is the oracle. */
export const SPEC_SCOPES = [
  'TRANSACTIONS_READ',
  'TRANSACTIONS_WRITE',
  'ACCOUNTS_READ',
  'ACCOUNTS_WRITE',
  'AGENTS_EXECUTE',
  'AGENTS_ROLLBACK',
  'AGENTS_AUDIT_READ',
  'RECONCILIATION_READ',
  'RECONCILIATION_WRITE',
  'COMPLIANCE_EXPORT',
  'WEBHOOK_MANAGE',
  'ADMIN',
] as const;

/** Every scope of the specification except these. */
export const scopesExcept = (...left: string[]) => SPEC_SCOPES.filter((s) => !left.includes(s));

/** Runs the built `ledger` binary, with `input` on its standard input; never throws, returns exit code and output. */
export async function cli(args: string[], env: Record<string, string> = {}, input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const pending = run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env, NO_COLOR: '1' } });
    if (input !== undefined) pending.child.stdin!.end(input);
    const { stdout, stderr } = await pending;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

export async function createTenant(dbPath: string, name = 'Acme'): Promise<TestServer['tenant']> {
  const result = await cli(['--db', dbPath, 'tenants', 'create', name, '--json']);
  if (result.code !== 0) throw new Error(`tenants create failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as TestServer['tenant'];
}

export interface TestServerOptions {
  /** How long a new settlement stays PENDING (`--settlement-ttl`); the server's default when absent. */
  settlementTtlSeconds?: number;
  /** Webhook settings: allowPrivate, denyDomains, a test resolver, a CA to trust, a fast retry schedule. */
  webhooks?: WebhookSettings;
  /** A clock the test moves (commits then run on the test's own thread). */
  clock?: Clock;
  /** `--body-timeout` in ms: how long a request body may send nothing before 408. */
  bodyIdleTimeoutMs?: number;
  /** `--rate-limit`: requests a second per API key. */
  rateLimitPerSecond?: number;
  /** Where the server's log lines go (by default nowhere). */
  log?: (line: string, level?: 'debug') => void;
  /** How often holds past their expiry are swept after the sweep at start (the server's second when absent). */
  holdSweepIntervalMs?: number;
  /** `--event-retention` in days, and how often the pruner runs. */
  eventRetentionDays?: number;
  eventPruneIntervalMs?: number;
  /** An event stream's heartbeat and stall time. */
  eventStream?: { heartbeatMs?: number; stallMs?: number };
  /** `--max-connections`, `--max-connections-per-client`, `--max-streams-per-tenant`, `--headers-timeout` (in ms). */
  maxConnections?: number;
  maxConnectionsPerClient?: number;
  maxStreamsPerTenant?: number;
  headersTimeoutMs?: number;
  /** HTTPS with this certificate and key (`--tls-cert`, `--tls-key`): the URL is then https://. */
  tls?: { certFile: string; keyFile: string };
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-test-'));
  const dbPath = await testDb(dir);
  // Under a test's clock the tenant is made first, by the real clock, as the command would make it.
  const made = options.clock ? await createTenant(dbPath) : undefined;
  const server = await startServer({
    db: dbPath,
    host: '127.0.0.1',
    port: 0,
    log: options.log ?? (() => {}),
    settlementTtlSeconds: options.settlementTtlSeconds,
    webhooks: options.webhooks,
    bodyIdleTimeoutMs: options.bodyIdleTimeoutMs,
    rateLimitPerSecond: options.rateLimitPerSecond,
    eventRetentionDays: options.eventRetentionDays,
    eventPruneIntervalMs: options.eventPruneIntervalMs,
    holdSweepIntervalMs: options.holdSweepIntervalMs,
    eventStream: options.eventStream,
    maxConnections: options.maxConnections,
    maxConnectionsPerClient: options.maxConnectionsPerClient,
    maxStreamsPerTenant: options.maxStreamsPerTenant,
    headersTimeoutMs: options.headersTimeoutMs,
    // A minute rather than the default 5 s: the test and its server share one event loop, and a test that checks a
    // large answer (10,000 movements against the document) held it long enough on a loaded CI machine for the server
    // to close the idle connection just as fetch sent the next request on it (ECONNRESET). Tests of the time-out
    // itself start `ledger serve` with the flag (test/cli/serve-connections.test.ts).
    keepAliveTimeoutMs: 60_000,
    tls: options.tls,
    ...(options.clock ? { clock: options.clock, writer: 'local' as const } : {}),
  });
  // Otherwise through the running server's ledger, the use case `ledger tenants create` runs (test/cli/output-for-scripts.test.ts runs
  // the command itself): a process of the command took about 0.4 s of CPU, some 600 times a CI run.
  const tenant = made ?? (JSON.parse(JSON.stringify(await server.ledger.tenants.create('Acme', cliActor))) as TestServer['tenant']);
  return {
    url: server.url,
    dir,
    dbPath,
    server,
    tenant,
    stop: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface HttpResult<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/** A small client bound to one key. */
export function client(baseUrl: string, rawKey?: string) {
  async function request<T = any>(method: string, path: string, options: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (rawKey !== undefined && !('authorization' in headers)) headers.authorization = `Bearer ${rawKey}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed as T, text, headers: response.headers };
  }
  return {
    request,
    get: <T = any>(path: string, headers?: Record<string, string>) => request<T>('GET', path, { headers }),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => request<T>('POST', path, { body, headers }),
    del: <T = any>(path: string, headers?: Record<string, string>) => request<T>('DELETE', path, { headers }),
  };
}

export type Client = ReturnType<typeof client>;

/** Helpers for the common setup steps of a test. */
export async function makeAccount(c: Client, fields: { name?: string; currency?: string; type?: string } = {}): Promise<string> {
  const res = await c.post('/api/v1/accounts', { name: fields.name ?? 'acct', currency: fields.currency ?? 'USD', type: fields.type ?? 'ASSET' });
  if (res.status !== 201) throw new Error(`account create failed: ${res.status} ${res.text}`);
  return res.body.id as string;
}

export const fiat = (accountId: string, entryType: 'DEBIT' | 'CREDIT', amount: string | number, currency = 'USD', extra: Record<string, unknown> = {}) => ({
  accountId,
  entryType,
  monetaryEntry: { type: 'FIAT', amount, currency, rail: 'ACH', ...extra },
});

export const onchain = (accountId: string, entryType: 'DEBIT' | 'CREDIT', amount: string | number, token = 'USDC', extra: Record<string, unknown> = {}) => ({
  accountId,
  entryType,
  monetaryEntry: {
    type: 'ONCHAIN',
    amount,
    token,
    chainId: 'EVM',
    txHash: '0xabc',
    blockNumber: 1,
    walletAddress: '0x0000000000000000000000000000000000000001',
    tokenContract: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    ...extra,
  },
});

let keyCounter = 0;
export async function post(c: Client, lines: unknown[], options: { key?: string; metadata?: Record<string, string> } = {}) {
  const key = options.key ?? `key-${process.pid}-${Date.now()}-${keyCounter++}`;
  return c.post('/api/v1/transactions', { lines, ...(options.metadata ? { metadata: options.metadata } : {}) }, { 'idempotency-key': key });
}

/** An account of the fixture: its type (the account is then named by its key), or the fields `makeAccount` takes. */
export type AccountSpec = string | { name?: string; currency?: string; type?: string };

/** `startTestServer`'s options, and the accounts to make, by the keys the test reads their ids under. */
export type ServerWithAccountsOptions<K extends string> = TestServerOptions & { accounts?: Record<K, AccountSpec> };

/** The server, its first tenant's ADMIN client and headers, and the accounts made for the test, by their keys. */
export type ServerWithAccounts<K extends string = string> = TestServer & {
  /** A client with the tenant's ADMIN key. */
  client: Client;
  /** Authorization with the tenant's ADMIN key, and the JSON content type. */
  headers: Record<string, string>;
  /** Each account's id, by its key in `accounts`. */
  accounts: Record<K, string>;
};

/**
 * The setup most suites share: the real server on a database of its own (`startTestServer`, with its options), a client
 * with the first tenant's ADMIN key, and the accounts named, made one after the other in the order given (USD and
 * ASSET unless told; named by their key unless told).
 */
export async function serverWithAccounts<K extends string = never>(options: ServerWithAccountsOptions<K> = {}): Promise<ServerWithAccounts<K>> {
  const { accounts: specs, ...serverOptions } = options;
  const t = await startTestServer(serverOptions);
  try {
    const c = client(t.url, t.tenant.apiKey.rawKey);
    const accounts = {} as Record<K, string>;
    for (const [key, spec] of Object.entries(specs ?? {}) as Array<[K, AccountSpec]>)
      accounts[key] = await makeAccount(c, typeof spec === 'string' ? { name: key, type: spec } : { name: key, ...spec });
    return { ...t, client: c, headers: { authorization: `Bearer ${t.tenant.apiKey.rawKey}`, 'content-type': 'application/json' }, accounts };
  } catch (error) {
    await t.stop();
    throw error;
  }
}

/**
 * `serverWithAccounts` for a describe block (or a file): started in a beforeAll registered here, stopped in an afterAll.
 * The object answered is filled in when the server is up, so a beforeAll declared after this call, and every test,
 * reads it whole. Options that an earlier hook makes (a receiver's certificate) are given as a function, read then.
 */
export function useServerWithAccounts<K extends string = never>(
  options: ServerWithAccountsOptions<K> | (() => ServerWithAccountsOptions<K>) = {},
): ServerWithAccounts<K> {
  const fixture = {} as ServerWithAccounts<K>;
  beforeAll(async () => {
    Object.assign(fixture, await serverWithAccounts(typeof options === 'function' ? options() : options));
  });
  afterAll(async () => fixture.stop?.());
  return fixture;
}
