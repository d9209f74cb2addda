// No request can stall the others: each hostile request of the issue that once held every tenant up is refused (or
// answered) cheaply while /healthz and another tenant's posting keep answering; answers stay under 4 MiB.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { client, createTenant, makeAccount, onchain, post, useServerWithAccounts, type Client, type HttpResult } from '../helpers/server.js';
import { sqlOn } from '../helpers/sql.js';
import { ANSWER_SIZE_MAX_BYTES, BODY_SIZE_MAX_BYTES } from '../../src/core/limits.js';
import { expectError } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';
import { cpuSlowdown } from '../helpers/slowdown.js';
import { collectGarbage } from '../helpers/memory.js';

/**
 * The bound for a hostile request and for what others wait beside it, on a machine with a core to spare: before,
 * these requests held everyone for 1 to 13 s. A test runs beside other suites on a shared machine, so the bound is
 * stretched by how slow the machine is in that very test (`slowdown` below); the absolute figures are the bench's.
 */
const BOUND_MS = 1000;
/** A probe's usual time on a machine with a core to spare (its median alone is about 10 to 20 ms). */
const PROBE_USUAL_MS = 25;
const BASELINE_PROBES = 5;
const HEAVY_LINES = 1000;
const HEAVY_POSTINGS = 40;

/** `{"<field>":[e,e,e,…]}` with as many elements as fit in a body of just under 2 MiB. */
function hugeList(prefix: string, element: string, suffix = ']}'): string {
  const count = Math.floor((BODY_SIZE_MAX_BYTES - prefix.length - suffix.length) / (element.length + 1));
  return `${prefix}${Array.from({ length: count }, () => element).join(',')}${suffix}`;
}

/** The strict error answer, whose message never leaks a parser's or the runtime's inner words. */
function expectRefused(res: HttpResult, status: number, code: string, message?: RegExp) {
  expectError(res, status, code, message ? { message } : {});
  expect(res.body.message).not.toMatch(/stack|Maximum call|RangeError|TypeError/i);
}

interface Run {
  res: HttpResult;
  ms: number;
  probesMaxMs: number;
  probes: number;
  baselineMs: number;
  slowdown: number;
}

describe('hostile requests within the size cap are cheap for everyone else', () => {
  let hostile: Client;
  let victim: Client;
  let victimLines: () => unknown[];
  let heavyIds: string[] = [];
  /** Transactions the hostile tenant posted after beforeAll, oldest first. */
  const laterIds: string[] = [];
  let heavyLine: (i: number) => unknown;
  let agentKey: string;
  const logged: string[] = [];

  /** One probe: /healthz and the other tenant's 2-line posting, together; answers its time. */
  async function probe(): Promise<number> {
    const started = performance.now();
    const [health, posted] = await Promise.all([fetch(`${t.url}/healthz`), post(victim, victimLines())]);
    expect(health.status).toBe(200);
    expect(posted.status, posted.text).toBe(201);
    return performance.now() - started;
  }

  /**
   * Times the probes alone (the baseline: the median), then runs the request while the probes keep being timed;
   * answers the request's answer and time, the probes' worst time beside it, and how slow the machine was: the most
   * of the CPU's slowdown before and after, and the baseline probe against its usual time.
   */
  async function beside(request: () => Promise<HttpResult>): Promise<Run> {
    const cpuBefore = cpuSlowdown();
    const alone: number[] = [];
    for (let i = 0; i < BASELINE_PROBES; i++) alone.push(await probe());
    const baselineMs = alone.sort((a, b) => a - b)[Math.floor(alone.length / 2)]!;
    let done = false;
    const probeTimes: number[] = [];
    const probing = (async () => {
      while (!done) probeTimes.push(await probe());
    })();
    // Probes are under way before the hostile request starts.
    await new Promise((r) => setTimeout(r, 30));
    const started = performance.now();
    const res = await request();
    const ms = performance.now() - started;
    done = true;
    await probing;
    const slowdown = Math.max(cpuBefore, cpuSlowdown(), baselineMs / PROBE_USUAL_MS);
    return { res, ms, probesMaxMs: Math.max(...probeTimes), probes: probeTimes.length, baselineMs, slowdown };
  }

  /** BOUND_MS, stretched by how slow the machine was in this test. */
  const boundFor = (run: Run) => BOUND_MS * Math.max(1, run.slowdown);

  function expectNobodyWaited(run: Run) {
    const bound = boundFor(run);
    const figures = `bound ${Math.round(bound)} ms: the machine ${run.slowdown.toFixed(1)} times slower than with a core to spare`;
    expect(run.ms, `the hostile request itself (${figures})`).toBeLessThan(bound);
    expect(run.probes).toBeGreaterThan(0);
    expect(run.probesMaxMs, `/healthz and the other tenant posting meanwhile (${figures})`).toBeLessThan(bound);
  }

  const t = useServerWithAccounts({ log: (line) => logged.push(line) });
  beforeAll(async () => {
    hostile = t.client;
    const other = await createTenant(t.dbPath, 'Victim');
    victim = client(t.url, other.apiKey.rawKey);
    const [v1, v2] = [await makeAccount(victim), await makeAccount(victim, { type: 'REVENUE' })];
    victimLines = () => [
      { accountId: v1, entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'PIX' } },
      { accountId: v2, entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'PIX' } },
    ];
    const [h1, h2] = [await makeAccount(hostile), await makeAccount(hostile)];
    const description = 'd'.repeat(1024);
    heavyLine = (i) => ({ ...onchain(i % 2 ? h1 : h2, i % 2 ? 'DEBIT' : 'CREDIT', '1.00'), description });
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'm'.repeat(1024)]));
    const lines = Array.from({ length: HEAVY_LINES }, (_, i) => heavyLine(i));
    for (let i = 0; i < HEAVY_POSTINGS; i++) {
      const res = await post(hostile, lines, { metadata });
      expect(res.status, res.text).toBe(201);
      heavyIds.push(res.body.transactionId);
    }
    const key = await hostile.post('/api/v1/api-keys', { scopes: ['AGENTS_EXECUTE'] });
    agentKey = key.body.rawKey;
    // Forty 1.2 MB postings: a few seconds alone, a minute or more beside other suites on a busy machine. A bound on
    // a hang, not on speed.
  }, 300_000);

  const sendRaw = (c: Client, path: string, rawBody: string, headers: Record<string, string> = {}) => () =>
    c.request('POST', path, { rawBody, headers: { 'idempotency-key': `k-${Math.random()}`, ...headers } });

  it('lines of 1.04 million 1s (under 2 MiB) on POST /api/v1/transactions: 400 at the 1,001st', async () => {
    const body = hugeList('{"lines":[', '1');
    expect(body.length).toBeGreaterThan(2_000_000);
    const run = await beside(sendRaw(hostile, '/api/v1/transactions', body));
    expectRefused(run.res, 400, 'VALIDATION_FAILED', /lines must have at most 1000 lines/);
    expect(run.res.body.details).toEqual([{ path: 'lines', message: 'must have at most 1000 lines' }]);
    expectNobodyWaited(run);
  });

  it('the same on POST /api/v1/agent/transactions, and 690k {} lines', async () => {
    const agent = client(t.url, agentKey);
    const session = { 'x-agent-session-id': 's-1' };
    for (const body of [hugeList('{"lines":[', '1'), hugeList('{"lines":[', '{}')]) {
      const run = await beside(sendRaw(agent, '/api/v1/agent/transactions', body, session));
      expectRefused(run.res, 400, 'VALIDATION_FAILED', /lines must have at most 1000 lines/);
      expectNobodyWaited(run);
    }
    const run = await beside(sendRaw(hostile, '/api/v1/transactions', hugeList('{"lines":[', '{}')));
    expectRefused(run.res, 400, 'VALIDATION_FAILED', /at most 1000 lines/);
    expectNobodyWaited(run);
  });

  it('1.04 million scopes, transaction ids and policy tokens: 400 at one past each limit', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['/api/v1/api-keys', hugeList('{"scopes":[', '1'), /scopes must name at most 12 scopes/],
      ['/api/v1/reconciliation/batch', hugeList('{"transactionIds":[', '1'), /transactionIds must have at most 100 ids/],
      ['/api/v1/admin/policy-rules', hugeList('{"type":"ALLOWED_TOKENS","tokens":[', '1'), /tokens must name at most 4 values/],
      ['/api/v1/admin/policy-rules', hugeList('{"type":"ALLOWED_CHAINS","chains":[', '1'), /chains must name at most 3 values/],
    ];
    for (const [path, body, message] of cases) {
      const run = await beside(sendRaw(hostile, path, body));
      expectRefused(run.res, 400, 'VALIDATION_FAILED', message);
      expectNobodyWaited(run);
    }
    expect((await hostile.get('/api/v1/admin/policy-rules')).body).toEqual([]);
  });

  it('2 MiB of [ is refused at its first bracket (where an object belongs, or as the body), never with a parser\'s inner message', async () => {
    const cases: Array<[string, RegExp]> = [
      [`{"metadata":${'['.repeat(BODY_SIZE_MAX_BYTES - 20)}`, /^Invalid request body: metadata must be an object of strings\.$/],
      [`{"lines":[${'['.repeat(BODY_SIZE_MAX_BYTES - 20)}`, /^Invalid request body: lines\.0 /],
      ['['.repeat(BODY_SIZE_MAX_BYTES), /^Invalid JSON: the body must be a JSON object\.$/],
    ];
    for (const [body, message] of cases) {
      const run = await beside(sendRaw(hostile, '/api/v1/transactions', body));
      expectRefused(run.res, 400, 'VALIDATION_FAILED', message);
      expectNobodyWaited(run);
    }
  });

  it(`batch reconciliation of 100 ids of ${HEAVY_LINES}-line transactions answers without holding the writer`, async () => {
    const transactionIds = Array.from({ length: 100 }, (_, i) => heavyIds[i % heavyIds.length]!);
    const run = await beside(() => hostile.post('/api/v1/reconciliation/batch', { transactionIds }));
    expect(run.res.status, run.res.text).toBe(200);
    expect(run.res.body).toHaveLength(100);
    expect(run.res.body.every((r: { outcome: string }) => r.outcome === 'UNMATCHED')).toBe(true);
    // It reads 100,000 on-chain lines, a transaction per event-loop turn: others wait for none of it. How long the
    // batch itself takes is the bench's figure ("POST /api/v1/reconciliation/batch"), not a test's: CI's loaded
    // machine once took 7.5 s.
    expect(run.probesMaxMs, '/healthz and the other tenant posting meanwhile').toBeLessThan(boundFor(run));
  });

  it('a maximum-size posting (1000 lines, 1 KiB each) beside another tenant\'s postings', async () => {
    const lines = Array.from({ length: HEAVY_LINES }, (_, i) => heavyLine(i));
    // The baseline: the same posting alone, now, on this machine (the median of three).
    const alone: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const res = await post(hostile, lines);
      alone.push(performance.now() - started);
      expect(res.status, res.text).toBe(201);
      laterIds.push(res.body.transactionId);
    }
    const heavyMs = alone.sort((a, b) => a - b)[1]!;
    const run = await beside(() => post(hostile, lines));
    expect(run.res.status, run.res.text).toBe(201);
    laterIds.push(run.res.body.transactionId);
    expect(run.probes).toBeGreaterThan(0);
    // The other tenant waits at most for the write in progress and then its own: about one such posting and a
    // probe, allowed twice over. Beside other postings the large one itself may wait its turn (large writes get a
    // share of the writer), so its own time is not bounded here; both figures are the bench's ("1000-line postings
    // beside"), measured on a machine of their own.
    const allowed = 2 * heavyMs + 5 * run.baselineMs;
    expect(run.probesMaxMs, `the other tenant's worst probe; the posting alone took ${Math.round(heavyMs)} ms, a probe alone ${Math.round(run.baselineMs)} ms`).toBeLessThan(allowed);
  });

  it('GET /api/v1/transactions?limit=200 never answers more than 4 MiB; the pages join back with no gap and no repeat', async () => {
    const { items, pages } = await walkPages<{ transactionId: string }>(hostile, '/api/v1/transactions', {
      limit: 200,
      onPage: (res) => {
        expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(ANSWER_SIZE_MAX_BYTES);
        expect(res.body.items.length).toBeGreaterThan(0);
      },
    });
    const seen = items.map((i) => i.transactionId);
    // Newest first, every transaction once: the heavy ones (and any this suite's tests posted since) and nothing else.
    expect(pages).toBeGreaterThan(10);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...laterIds].reverse().concat([...heavyIds].reverse()));
    expect(seen.length).toBe(HEAVY_POSTINGS + laterIds.length);
  });

  it('8 concurrent first pages of the heaviest list keep memory within 300 MB of rest', async () => {
    // What the pages hold at once: the JavaScript heap and the buffers outside it, each sample taken after a full
    // collection, over a rest taken the same way. The process's resident size measured the collector's timing instead
    // (what the suite's tests before had left: 315 MB once on a busy CI machine; after a collection, nothing at all),
    // and so did the heap with its garbage (363 MB on a busy machine, 80 to 155 here).
    const live = () => {
      collectGarbage();
      const { heapUsed, external } = process.memoryUsage();
      return heapUsed + external;
    };
    const rest = live();
    let peak = rest;
    let samples = 0;
    const sampler = setInterval(() => {
      samples++;
      peak = Math.max(peak, live());
    }, 5);
    // Read as bytes, not parsed: the server runs in this process, and eight parsed 4 MiB pages alone took 100 to
    // 300 MB of this process's heap, so the figure measured the client.
    const pages = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const answer = await fetch(`${t.url}/api/v1/transactions?limit=200`, { headers: { authorization: `Bearer ${t.tenant.apiKey.rawKey}` } });
        return { status: answer.status, bytes: (await answer.arrayBuffer()).byteLength };
      }),
    );
    clearInterval(sampler);
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.bytes).toBeGreaterThan(ANSWER_SIZE_MAX_BYTES / 2);
      expect(page.bytes).toBeLessThanOrEqual(ANSWER_SIZE_MAX_BYTES);
    }
    // The figure is a measurement only if it was sampled while the pages were served.
    expect(samples).toBeGreaterThan(2);
    expect((peak - rest) / 2 ** 20).toBeLessThan(300);
  });

  // Last: it stops the server.
  it('on shutdown, a batch whose client has left is finished before the database closes (no 500, nothing logged)', async () => {
    // 20 ids of 1000-line transactions: well within the drain time (SHUTDOWN_DRAIN_MS) on a busy machine (100 took
    // 18 s once on PostgreSQL beside the rest of CI), and still at work when the server closes (checked below).
    const transactionIds = Array.from({ length: 20 }, (_, i) => heavyIds[i % heavyIds.length]!);
    const batchResults = async () => Number((await sqlOn<{ n: number }>(t.dbPath, "SELECT count(*) AS n FROM reconciliation_results WHERE source = 'BATCH'")).rows[0]!.n);
    const before = await batchResults();
    const abort = new AbortController();
    const leaving = fetch(`${t.url}/api/v1/reconciliation/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.tenant.apiKey.rawKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ transactionIds }),
      signal: abort.signal,
    }).catch(() => null);
    await vi.waitUntil(() => t.server.inFlight() > 0, { timeout: 30_000, interval: 5 });
    abort.abort();
    await leaving;
    // No connection is left, so the server closes at once; the batch still reads and writes.
    const atWorkWhenClosed = t.server.inFlight();
    await t.server.close();
    expect(atWorkWhenClosed, 'the batch is still at work when the server closes').toBe(1);
    expect(logged.filter((line) => /internal error/.test(line))).toEqual([]);
    // The batch was finished and written, though nobody waits for its answer.
    expect(await batchResults()).toBe(before + 20);
  });
});
