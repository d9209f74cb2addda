// The `ledger` binary as scripts use it: JSON on stdout, errors on stderr with a non-zero exit, no prompt without a TTY.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDb, BIN, client, fiat, makeAccount, post, type Client } from '../helpers/server.js';
import { expectError, ISO_MS, UUID } from '../helpers/expect.js';
import { killAll, spawnServe } from '../helpers/spawn.js';
import { startServer, type RunningServer } from '../../src/server/serve.js';

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the built binary with stdin not a TTY; a run that waits for input is killed after timeoutMs. */
function ledger(args: string[], options: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...options.env };
    for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: env as NodeJS.ProcessEnv, cwd: options.cwd, timeout: options.timeoutMs ?? 20_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const e = error as (Error & { code?: number | string; signal?: NodeJS.Signals }) | null;
        resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, signal: e?.signal ?? null, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

const json = (run: Run): any => {
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trim().split('\n');
  expect(lines, 'exactly one line of JSON').toHaveLength(1);
  return JSON.parse(lines[0]!);
};

/** Exit codes as the README documents them: 1 the work failed, 2 invalid or missing arguments. */
const WORK_FAILED = 1;
const USAGE = 2;

const failed = (run: Run, code: typeof WORK_FAILED | typeof USAGE, message?: RegExp) => {
  expect(run.signal, 'finished on its own, without waiting for input').toBeNull();
  expect(run.code, run.stderr).toBe(code);
  expect(run.stderr.trim().length).toBeGreaterThan(0);
  if (message) expect(run.stderr).toMatch(message);
};

const UNKNOWN_TENANT = '0190f000-0000-7000-8000-00000000dead';

describe('ledger CLI', () => {
  let dir: string;
  let db: string;
  let tenant: { tenantId: string; name: string; apiKey: { id: string; rawKey: string; prefix: string; scopes: string[]; createdAt: string } };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-cli-'));
    db = await testDb(dir);
    tenant = json(await ledger(['--db', db, 'tenants', 'create', 'Acme Payments', '--json']));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('tenants create', () => {
    it('prints one JSON object with the tenant and its ADMIN key', () => {
      expect(Object.keys(tenant).sort()).toEqual(['apiKey', 'name', 'tenantId']);
      expect(tenant.tenantId).toMatch(UUID);
      expect(tenant.name).toBe('Acme Payments');
      expect(Object.keys(tenant.apiKey).sort()).toEqual(['createdAt', 'id', 'prefix', 'rawKey', 'scopes']);
      expect(tenant.apiKey.rawKey).toMatch(/^sk_live_[0-9a-f]{32}$/);
      expect(tenant.apiKey.prefix).toBe(tenant.apiKey.rawKey.slice(0, 12));
      expect(tenant.apiKey.scopes).toEqual(['ADMIN']);
      expect(tenant.apiKey.createdAt).toMatch(ISO_MS);
    });

    it('refuses a blank name', async () => {
      failed(await ledger(['--db', db, 'tenants', 'create', '   ', '--json']), USAGE);
    });

    it('uses LEDGER_DB when --db is absent, and --db over LEDGER_DB', async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'ledger-cli-cwd-'));
      try {
        const envDb = join(cwd, 'from-env.db');
        const created = json(await ledger(['tenants', 'create', 'EnvCo', '--json'], { cwd, env: { LEDGER_DB: envDb } }));
        expect(existsSync(envDb)).toBe(true);
        expect(existsSync(join(cwd, 'ledger.db'))).toBe(false);
        // The tenant lives in the LEDGER_DB file, not in the --db file of this suite.
        expect((await ledger(['keys', 'list', '--tenant', created.tenantId, '--json'], { cwd, env: { LEDGER_DB: envDb } })).code).toBe(0);
        failed(await ledger(['--db', db, 'keys', 'list', '--tenant', created.tenantId, '--json'], { cwd, env: { LEDGER_DB: envDb } }), WORK_FAILED);
        // Without either, ./ledger.db in the working directory.
        const local = json(await ledger(['tenants', 'create', 'LocalCo', '--json'], { cwd, env: { LEDGER_DB: undefined } }));
        expect(existsSync(join(cwd, 'ledger.db'))).toBe(true);
        expect((await ledger(['--db', join(cwd, 'ledger.db'), 'keys', 'list', '--tenant', local.tenantId, '--json'], { cwd })).code).toBe(0);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    });
  });

  describe('keys and accounts over HTTP and CLI on one database', () => {
    let server: RunningServer;
    let c: Client;

    beforeAll(async () => {
      server = await startServer({ db: db, host: '127.0.0.1', port: 0, log: () => {} });
      c = client(server.url, tenant.apiKey.rawKey);
    });
    afterAll(async () => server?.close());

    it('keys create prints the apiKey object, and the key works on the running server', async () => {
      const key = json(await ledger(['--db', db, 'keys', 'create', '--tenant', tenant.tenantId, '--scopes', 'ACCOUNTS_READ,TRANSACTIONS_WRITE', '--json']));
      expect(Object.keys(key).sort()).toEqual(['createdAt', 'id', 'prefix', 'rawKey', 'scopes']);
      expect(key.rawKey).toMatch(/^sk_live_[0-9a-f]{32}$/);
      expect(key.prefix).toBe(key.rawKey.slice(0, 12));
      expect(key.scopes).toEqual(['ACCOUNTS_READ', 'TRANSACTIONS_WRITE']);
      expect(key.createdAt).toMatch(ISO_MS);
      const k = client(server.url, key.rawKey);
      expect((await k.get('/api/v1/accounts')).status).toBe(200);
      expectError(await k.get('/api/v1/api-keys'), 403, 'FORBIDDEN');
    });

    it.each([
      ['an unknown scope', ['--scopes', 'ACCOUNTS_READ,EVERYTHING']],
      ['a repeated scope', ['--scopes', 'ADMIN,ADMIN']],
      ['an empty list', ['--scopes', ',']],
    ])('keys create refuses %s on stderr', async (_what, extra) => {
      const run = await ledger(['--db', db, 'keys', 'create', '--tenant', tenant.tenantId, ...extra, '--json']);
      failed(run, USAGE, /scope/i);
      expect(run.stdout).toBe('');
    });

    it('keys create without --scopes and without a TTY fails with a message instead of prompting', async () => {
      const run = await ledger(['--db', db, 'keys', 'create', '--tenant', tenant.tenantId, '--json'], { timeoutMs: 15_000 });
      failed(run, USAGE, /--scopes/);
    });

    it('keys list --json equals the HTTP listing, and revoke takes effect on the running server', async () => {
      const key = json(await ledger(['--db', db, 'keys', 'create', '--tenant', tenant.tenantId, '--scopes', 'ACCOUNTS_READ', '--json']));
      const k = client(server.url, key.rawKey);
      expect((await k.get('/api/v1/accounts')).status).toBe(200);

      const listed = json(await ledger(['--db', db, 'keys', 'list', '--tenant', tenant.tenantId, '--json']));
      const http = await c.get('/api/v1/api-keys');
      expect(http.status).toBe(200);
      expect(listed).toEqual(http.body);
      for (const item of listed) {
        expect(Object.keys(item).sort()).toEqual(['createdAt', 'id', 'prefix', 'revokedAt', 'scopes']);
        expect(JSON.stringify(item)).not.toMatch(/sk_live_[0-9a-f]{32}/);
      }
      expect(listed.find((i: any) => i.id === key.id)).toMatchObject({ prefix: key.prefix, revokedAt: null });

      const revoke = await ledger(['--db', db, 'keys', 'revoke', key.id, '--tenant', tenant.tenantId]);
      expect(revoke.code, revoke.stderr).toBe(0);
      expectError(await k.get('/api/v1/accounts'), 401, 'UNAUTHENTICATED');
      const after = json(await ledger(['--db', db, 'keys', 'list', '--tenant', tenant.tenantId, '--json']));
      expect(after.find((i: any) => i.id === key.id).revokedAt).toMatch(ISO_MS);
      expect(after).toEqual((await c.get('/api/v1/api-keys')).body);
    });

    it('keys revoke of an unknown key fails', async () => {
      failed(await ledger(['--db', db, 'keys', 'revoke', '0190f000-0000-7000-8000-00000000beef', '--tenant', tenant.tenantId]), WORK_FAILED);
    });

    it('keys list without --json prints a table of prefixes, never raw keys', async () => {
      const run = await ledger(['--db', db, 'keys', 'list', '--tenant', tenant.tenantId]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(tenant.apiKey.prefix);
      expect(run.stdout).not.toContain(tenant.apiKey.rawKey);
    });

    it('accounts create --json prints the account object the HTTP API returns', async () => {
      const account = json(await ledger(['--db', db, 'accounts', 'create', '--tenant', tenant.tenantId, '--name', 'Operating cash', '--currency', 'USD', '--type', 'ASSET', '--json']));
      expect(account).toMatchObject({ name: 'Operating cash', description: null, currency: 'USD', type: 'ASSET', normalBalance: 'DEBIT' });
      expect(account.createdAt).toMatch(ISO_MS);
      const http = await c.get(`/api/v1/accounts/${account.id}`);
      expect(http.status).toBe(200);
      expect(http.body).toEqual(account);
    });

    it('accounts create refuses an invalid currency, and missing fields without a TTY', async () => {
      failed(await ledger(['--db', db, 'accounts', 'create', '--tenant', tenant.tenantId, '--name', 'X', '--currency', 'GBP', '--type', 'ASSET', '--json']), USAGE, /currency/);
      failed(await ledger(['--db', db, 'accounts', 'create', '--tenant', tenant.tenantId, '--currency', 'USD', '--json'], { timeoutMs: 15_000 }), USAGE, /--name/);
    });

    it('accounts list --json equals the HTTP listing', async () => {
      const viaCli = json(await ledger(['--db', db, 'accounts', 'create', '--tenant', tenant.tenantId, '--name', 'via cli', '--currency', 'USD', '--type', 'ASSET', '--json']));
      const viaHttp = await makeAccount(c, { name: 'via http', currency: 'BRL', type: 'REVENUE' });
      const listed = json(await ledger(['--db', db, 'accounts', 'list', '--tenant', tenant.tenantId, '--json']));
      const http = await c.get('/api/v1/accounts');
      expect(http.status).toBe(200);
      expect(listed).toEqual(http.body);
      expect(Object.keys(listed).sort()).toEqual(['items', 'nextCursor']);
      // newest first: the two just made lead the list
      expect(listed.items.slice(0, 2).map((a: any) => a.id)).toEqual([viaHttp, viaCli.id]);
    });

    it('statement --json equals the HTTP statement; the table shows opening and closing balances', async () => {
      const cash = await makeAccount(c, { name: 'Statement cash', currency: 'USD', type: 'ASSET' });
      const income = await makeAccount(c, { name: 'Statement income', currency: 'USD', type: 'REVENUE' });
      expect((await post(c, [fiat(cash, 'DEBIT', '100.25'), fiat(income, 'CREDIT', '100.25')])).status).toBe(201);
      await new Promise((r) => setTimeout(r, 5));
      expect((await post(c, [fiat(cash, 'DEBIT', '12345678901234.56'), fiat(income, 'CREDIT', '12345678901234.56')])).status).toBe(201);
      expect((await post(c, [fiat(income, 'DEBIT', '0.31', 'USD'), fiat(cash, 'CREDIT', '0.31')], {})).status).toBe(201);
      const entries = (await c.get(`/api/v1/accounts/${cash}/entries`)).body.entries as Array<{ createdAt: string }>;
      const from = entries[entries.length - 2]!.createdAt; // the second posting
      const to = new Date(Date.parse(entries[0]!.createdAt) + 60_000).toISOString();
      expect(from > entries[entries.length - 1]!.createdAt).toBe(true);

      const http = await c.get(`/api/v1/accounts/${cash}/statement?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
      expect(http.status).toBe(200);
      const run = await ledger(['--db', db, 'statement', cash, '--tenant', tenant.tenantId, '--from', from, '--to', to, '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe(http.text);
      expect(http.text).toContain('"openingBalance":100.25');
      expect(http.text).toContain('"closingBalance":12345678901334.5');

      const table = await ledger(['--db', db, 'statement', cash, '--tenant', tenant.tenantId, '--from', from, '--to', to]);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toMatch(/opening balance/);
      expect(table.stdout).toMatch(/closing balance/);
      expect(table.stdout).toMatch(/100\.25\s.*opening balance/);
      expect(table.stdout).toMatch(/12345678901334\.5\s.*closing balance/);
      expect(table.stdout).toContain('Statement cash');
    });

    it('statement refuses from after to, and an account of another tenant', async () => {
      const cash = await makeAccount(c, { name: 'range', currency: 'USD', type: 'ASSET' });
      failed(await ledger(['--db', db, 'statement', cash, '--tenant', tenant.tenantId, '--from', '2026-02-01', '--to', '2026-01-01', '--json']), USAGE);
      const other = json(await ledger(['--db', db, 'tenants', 'create', 'Other', '--json']));
      failed(await ledger(['--db', db, 'statement', cash, '--tenant', other.tenantId, '--from', '2026-01-01', '--to', '2026-02-01', '--json']), WORK_FAILED);
      // Nor can one tenant revoke another's key.
      failed(await ledger(['--db', db, 'keys', 'revoke', tenant.apiKey.id, '--tenant', other.tenantId]), WORK_FAILED);
      expect((await c.get('/api/v1/api-keys')).status).toBe(200);
    });
  });

  it.each([
    ['keys create', ['keys', 'create', '--tenant', UNKNOWN_TENANT, '--scopes', 'ADMIN', '--json'], WORK_FAILED],
    ['keys list', ['keys', 'list', '--tenant', UNKNOWN_TENANT, '--json'], WORK_FAILED],
    ['keys revoke', ['keys', 'revoke', '0190f000-0000-7000-8000-00000000beef', '--tenant', UNKNOWN_TENANT], WORK_FAILED],
    ['accounts create', ['accounts', 'create', '--tenant', UNKNOWN_TENANT, '--name', 'X', '--currency', 'USD', '--type', 'ASSET', '--json'], WORK_FAILED],
    ['accounts list', ['accounts', 'list', '--tenant', UNKNOWN_TENANT, '--json'], WORK_FAILED],
    ['statement', ['statement', '0190f000-0000-7000-8000-00000000cafe', '--tenant', UNKNOWN_TENANT, '--from', '2026-01-01', '--to', '2026-02-01', '--json'], WORK_FAILED],
    ['a malformed tenant id', ['keys', 'list', '--tenant', 'not-a-uuid', '--json'], USAGE],
  ] as const)('%s with an unknown tenant exits %i', async (_name, args, code) => {
    const run = await ledger(['--db', db, ...args]);
    failed(run, code);
    expect(run.stdout).toBe('');
  });

  it('--help lists the commands', async () => {
    const run = await ledger(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['serve', 'tenants', 'keys', 'accounts', 'statement']) {
      expect(run.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
    expect(run.stdout).toContain('--db');
  });

  it('an unknown command exits non-zero', async () => {
    failed(await ledger(['--db', db, 'frobnicate']), USAGE);
  });
});

describe('ledger serve', () => {
  let dir: string;
  let db: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-serve-'));
    db = await testDb(dir);
  });
  afterEach(() => killAll());
  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('prints its URL, answers /healthz, and exits 0 on %s', async (signal) => {
    const served = await spawnServe(db);
    const url = served.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expectError(await client(url).get('/api/v1/accounts'), 401, 'UNAUTHENTICATED');

    served.child.kill(signal);
    const result = await Promise.race([served.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 15_000))]);
    expect(result, served.stderr()).toEqual({ code: 0, signal: null });
  });

  it('refuses an invalid port', async () => {
    failed(await ledger(['--db', join(dir, 'ledger.db'), 'serve', '--port', '70000']), USAGE, /port/);
  });
});
