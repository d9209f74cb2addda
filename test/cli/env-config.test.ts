// `ledger serve` configured through environment variables, with the built binary. README, Configuration: each flag has
// a variable (`LEDGER_HOST`, `LEDGER_PORT`, `LEDGER_SETTLEMENT_TTL_SECONDS`, `LEDGER_BODY_TIMEOUT_SECONDS`,
// `LEDGER_RATE_LIMIT`, the chain endpoints); `--settlement-ttl` is "1 to ten years". A flag beats its variable.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testDb, cli, client, createTenant, makeAccount } from '../helpers/server.js';
import { expectError } from '../helpers/expect.js';
import { killAll, spawnLedger, spawnServe } from '../helpers/spawn.js';
import { until } from '../helpers/poll.js';
import { SETTLEMENT_TTL_MAX_SECONDS } from '../../src/core/limits.js';

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A JSON-RPC endpoint on 127.0.0.1 that records each method asked and answers every one with an error. */
async function recordingRpc(): Promise<{ url: string; methods: string[]; close(): Promise<void> }> {
  const methods: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      try {
        const parsed = JSON.parse(body);
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) methods.push(String(call.method));
      } catch {
        methods.push('?');
      }
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'recording only' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, methods, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('serve configured through the environment', () => {
  let dir: string;
  let db: string;
  let rawKey: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-env-'));
    db = await testDb(dir);
    rawKey = (await createTenant(db)).apiKey.rawKey;
  });
  afterEach(() => killAll());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('LEDGER_PORT picks the port, and --port beats it', async () => {
    const port = await freePort();
    const byEnv = spawnLedger(['--db', db, 'serve'], { env: { LEDGER_PORT: String(port) } });
    const [, url] = (await byEnv.waitForOutput(/ledger listening on (\S+)/)) as unknown as [string, string];
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    byEnv.child.kill('SIGTERM');
    expect(await byEnv.exited).toEqual({ code: 0, signal: null });

    const byFlag = await spawnServe(db, [], { env: { LEDGER_PORT: String(port) } }); // spawnServe passes --port 0
    expect(byFlag.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(byFlag.url).not.toBe(`http://127.0.0.1:${port}`);
  });

  it('LEDGER_HOST is the address it binds: 127.0.0.1 serves there, an address that is not this machine fails to start', async () => {
    const served = await spawnServe(db, [], { env: { LEDGER_HOST: '127.0.0.1' } });
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    served.child.kill('SIGTERM'); // one server per SQLite file
    await served.exited;
    const refused = await cli(['--db', db, 'serve', '--port', '0'], { LEDGER_HOST: '192.0.2.1' }); // TEST-NET-1, never local
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/192\.0\.2\.1/);
  });

  it('LEDGER_SETTLEMENT_TTL_SECONDS sets how long a new settlement stays PENDING', async () => {
    const served = await spawnServe(db, [], { env: { LEDGER_SETTLEMENT_TTL_SECONDS: '120' } });
    const c = client(served.url, rawKey);
    const accountId = await makeAccount(c);
    const res = await c.post(
      '/api/v1/settlements',
      { accountId, expectedToken: 'USDC', expectedAmount: '1', expectedWalletAddress: '0x0000000000000000000000000000000000000009', expectedChainId: 'EVM' },
      { 'idempotency-key': 'ttl-env' },
    );
    expect(res.status, res.text).toBe(201);
    expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(120_000);
  });

  it.each([
    ['--settlement-ttl', '0'],
    ['--settlement-ttl', String(SETTLEMENT_TTL_MAX_SECONDS + 1)],
    ['--settlement-ttl', 'abc'],
    ['--settlement-ttl', '1.5'],
    ['LEDGER_SETTLEMENT_TTL_SECONDS', '0'],
    ['LEDGER_SETTLEMENT_TTL_SECONDS', String(SETTLEMENT_TTL_MAX_SECONDS + 1)],
    ['LEDGER_BODY_TIMEOUT_SECONDS', '0'],
    ['LEDGER_RATE_LIMIT', 'fast'],
    ['LEDGER_PORT', '70000'],
    ['LEDGER_CONSOLE', 'maybe'],
  ])('%s=%s is refused with exit 2, naming the option', async (name, value) => {
    const run = name.startsWith('--') ? await cli(['--db', db, 'serve', '--port', '0', name, value]) : await cli(['--db', db, 'serve', ...(name === 'LEDGER_PORT' ? [] : ['--port', '0'])], { [name]: value });
    expect(run.code, run.stderr).toBe(2);
    const flag = { LEDGER_SETTLEMENT_TTL_SECONDS: '--settlement-ttl', LEDGER_BODY_TIMEOUT_SECONDS: '--body-timeout', LEDGER_RATE_LIMIT: '--rate-limit', LEDGER_PORT: 'port' }[name] ?? name;
    expect(run.stderr).toContain(flag);
    expect(run.stdout).toBe('');
  });

  it.each([['1'], [String(SETTLEMENT_TTL_MAX_SECONDS)]])('--settlement-ttl %s, a bound, is accepted', async (ttl) => {
    const served = await spawnServe(db, ['--settlement-ttl', ttl]);
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
  });

  it('serves the console at /console unless --no-console or LEDGER_CONSOLE=0 turns it off: then 404', async () => {
    const on = await spawnServe(db);
    const page = await fetch(`${on.url}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect((await fetch(`${on.url}/console/app.js`)).status).toBe(200);
    // One server a file: each stopped before the next starts.
    on.kill();
    await on.exited;
    for (const [args, env] of [[['--no-console'], {}], [[], { LEDGER_CONSOLE: '0' }]] as const) {
      const off = await spawnServe(db, [...args], { env });
      for (const path of ['/console', '/console/app.js', '/console/app.css']) {
        const res = await fetch(`${off.url}${path}`);
        expect(res.status, path).toBe(404);
        expect(((await res.json()) as { code: string }).code).toBe('NOT_FOUND');
      }
      // The API is served all the same.
      expect((await fetch(`${off.url}/healthz`)).status).toBe(200);
      off.kill();
      await off.exited;
    }
  });

  it('LEDGER_RATE_LIMIT limits each key: a burst past it is 429 RATE_LIMITED with Retry-After', async () => {
    const served = await spawnServe(db, [], { env: { LEDGER_RATE_LIMIT: '2' } });
    const c = client(served.url, rawKey);
    const answers = await Promise.all(Array.from({ length: 8 }, () => c.get('/api/v1/accounts')));
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expectError(limited[0]!, 429, 'RATE_LIMITED');
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('LEDGER_EVM_RPC_URL and LEDGER_SOLANA_RPC_URL turn their watchers on: they ask the endpoint, and an endpoint that fails stops the start', async () => {
    for (const [variable, chain, method] of [
      ['LEDGER_EVM_RPC_URL', 'EVM', /^eth_/],
      ['LEDGER_SOLANA_RPC_URL', 'Solana', /^get/],
    ] as const) {
      const rpc = await recordingRpc();
      try {
        const run = await cli(['--db', db, 'serve', '--port', '0'], { [variable]: rpc.url });
        expect(run.code, `${variable}: ${run.stderr}`).toBe(1);
        expect(rpc.methods.length, variable).toBeGreaterThan(0);
        for (const m of rpc.methods) expect(m, variable).toMatch(method);
        expect(run.stderr, variable).not.toContain(`${chain} is not watched`);
      } finally {
        await rpc.close();
      }
    }
  });

  it('LEDGER_TRON_API_URL with LEDGER_TOKENS_FILE: serve watches TRON and says so', async () => {
    const { startFakeTron, tronAddress } = await import('../workers/chains/tron-node.js');
    const usdt = tronAddress('a614f803b6fd780986a42c78ec9c7f77e6ded13c');
    const node = await startFakeTron({ decimals: { [usdt]: 6 } });
    try {
      const tokens = join(dir, 'tokens.json');
      writeFileSync(tokens, JSON.stringify({ TRON: { USDT: { address: usdt, decimals: 6 } } }));
      const served = await spawnServe(db, [], { env: { LEDGER_TRON_API_URL: node.url, LEDGER_TOKENS_FILE: tokens } });
      await until('the watching line', () => served.stderr().includes(`watching TRON at ${node.url} (solidified blocks)`));
      const before = node.requests;
      await until('the watcher polling', () => node.requests > before);
      expect(served.stderr()).toContain('EVM is not watched');
    } finally {
      await killAll();
      await node.close();
    }
  });
});
