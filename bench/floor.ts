// `npm run bench:floor`: what a request costs the server below the ledger's own code. The same load (autocannon, 64
// connections, the server's CPU per request from /proc as in `npm run bench`) against node:http alone, h3 alone, h3
// with only the parts a balance read cannot do without (the key's HMAC and seek, then the balance), and the ledger's
// app (/healthz, the balance, a 2-line posting, batches of 100 on 8 connections); and, in this process, the raw
// writes of the same postings (bench/rawWrites.ts) in groups of 16 and 100. Rounds alternate the cases so that the
// machine's drift falls on all of them alike; the table gives each case's median, then each of issue 33's targets as
// a ratio of this run's figures, met or MISSED (BENCH_SECONDS a case, default 3; BENCH_ROUNDS, default 3, after a
// round of BENCH_WARMUP_SECONDS a case, default 2, not counted;
// BENCH_CASES=auth,balance runs the cases whose names hold one of those words; BENCH_PROFILE_DIR=<dir> writes a CPU
// profile of the server).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMeter, describeCpu } from './cpu.js';
import { postRequestFor } from './requests.js';
import { rawWrites } from './rawWrites.js';
import { bundleBenchServer } from './bundle.js';
import { makeTenant, named, seed } from './seed.js';
import { median } from './stats.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const BATCH = 100;
const RAW_POSTINGS = Number(process.env.BENCH_RAW_POSTINGS ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const BODY = JSON.stringify({
  lines: [
    { accountId: '0190f9a2-0000-7000-8000-000000000001', entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount: '12.34', currency: 'USD', rail: 'PIX' } },
    { accountId: '0190f9a2-0000-7000-8000-000000000002', entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount: '12.34', currency: 'USD', rail: 'PIX' } },
  ],
  metadata: { orderId: 'ord_0000000000000000', customer: 'cus_0000000000000000', note: 'a posting body of about 600 bytes, as the issue measured' },
});

// The raw writes' files: each round writes RAW_POSTINGS postings into a fresh ledger file with 64 accounts.
const rawDir = mkdtempSync(join(tmpdir(), 'ledger-floor-raw-'));
let rawFiles = 0;
async function rawWritesOnce(group: number): Promise<{ cpuUs: number; perSecond: number }> {
  const file = join(rawDir, `raw-${rawFiles++}.db`);
  const { tenantId, accounts } = await seed(file, ({ ledger }) => makeTenant(ledger, 'raw', named('a', 64)));
  const figures = rawWrites(file, tenantId, accounts, RAW_POSTINGS, group);
  return { cpuUs: figures.cpuUsPerPosting, perSecond: 1e6 / figures.wallUsPerPosting };
}

const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
// The servers run as the ledger ships, bundled and without tsx (bench/bundle.ts).
const child = spawn(process.execPath, [...profile, await bundleBenchServer('bench/floor-server.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const { ports, rawKey, accountId, accounts } = JSON.parse(line) as { ports: Record<'node' | 'h3' | 'app', number>; rawKey: string; accountId: string; accounts: string[] };
  const auth = { authorization: `Bearer ${rawKey}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const batchItem = () => {
    const a = Math.floor(Math.random() * accounts.length);
    const b = (a + 1 + Math.floor(Math.random() * (accounts.length - 1))) % accounts.length;
    const line = (accountId: string, entryType: string) => ({ accountId, entryType, monetaryEntry: { type: 'FIAT', amount: '12.34', currency: 'USD', rail: 'PIX' } });
    return { idempotencyKey: randomUUID(), lines: [line(accounts[a]!, 'DEBIT'), line(accounts[b]!, 'CREDIT')] };
  };
  const at = (server: 'node' | 'h3' | 'app', path: string) => `http://127.0.0.1:${ports[server]}${path}`;
  const cases: Array<[string, autocannon.Options]> = [
    ['node:http, a fixed answer', { url: at('node', '/') }],
    ['h3, a fixed answer', { url: at('h3', '/ok') }],
    ['h3, a 600-byte JSON body read and parsed', { url: at('h3', '/body'), method: 'POST', body: BODY, headers: { 'content-type': 'application/json' } }],
    ['h3, the key authenticated (HMAC and one seek)', { url: at('h3', '/auth'), headers: auth }],
    ['h3, the key authenticated and the balance read', { url: at('h3', '/balance'), headers: auth }],
    ['ledger: GET /healthz', { url: at('app', '/healthz') }],
    [`ledger: GET balance`, { url: at('app', `/api/v1/accounts/${accountId}/balance`), headers: auth }],
    ['ledger: POST a 2-line posting', { url: at('app', ''), requests: [postRequestFor(accounts, json)] }],
    [
      `ledger: POST a batch of ${BATCH} postings (8 connections)`,
      {
        url: at('app', ''),
        connections: 8,
        requests: [
          {
            method: 'POST',
            path: '/api/v1/transactions/batch',
            setupRequest: (req: any) => ({ ...req, headers: json, body: JSON.stringify({ transactions: Array.from({ length: BATCH }, batchItem) }) }),
            // A batch answers 200 whatever its items did: an item that failed would make the figures another case's.
            onResponse: (_status: number, body: string) => {
              if (!body.includes('"results"') || (JSON.parse(body) as { results: Array<{ status: number }> }).results.some((r) => r.status !== 201)) failedItems++;
            },
          },
        ],
      },
    ],
  ];
  let failedItems = 0;
  const chosen = process.env.BENCH_CASES?.split(',');
  const measured = chosen ? cases.filter(([name]) => chosen.some((c) => name.includes(c))) : cases;
  const figures = new Map<string, Array<{ rps: number; us: number }>>();
  const raw = new Map<number, Array<{ cpuUs: number; perSecond: number }>>();
  // A round of every case first, not counted: the first seconds of a case run code the JIT has not compiled yet (the
  // ledger's first round of postings cost 1.5x its next ones; the bare cases warm up at once).
  for (const [name, options] of measured) {
    const result = await autocannon({ connections: 64, duration: WARMUP_SECONDS, ...options });
    if (result.non2xx + result.errors + failedItems > 0) throw new Error(`${name} (warm-up): ${result.non2xx} answers not 2xx, ${result.errors} errors`);
  }
  if (!chosen) for (const group of [16, BATCH]) await rawWritesOnce(group);
  for (let round = 0; round < ROUNDS; round++) {
    // A B B A: each case runs first in one round and last in the next, so that what a case leaves behind (its garbage,
    // a busier machine) falls on the others alike.
    for (const [name, options] of round % 2 === 0 ? measured : [...measured].reverse()) {
      const meter = cpuMeter([child.pid!]);
      const result = await autocannon({ connections: 64, duration: SECONDS, ...options });
      if (result.non2xx + result.errors + failedItems > 0) throw new Error(`${name}: ${result.non2xx} answers not 2xx, ${result.errors} errors, ${failedItems} batches with an item not posted`);
      const cpu = meter.stop(result.requests.total);
      const row = { rps: result.requests.average, us: cpu?.usPerRequest ?? Number.NaN };
      figures.set(name, [...(figures.get(name) ?? []), row]);
      console.error(`  round ${round + 1}: ${name}: ${Math.round(row.rps)} req/s, ${describeCpu(cpu)}`);
    }
    if (chosen) continue;
    for (const group of [16, BATCH]) {
      const figure = await rawWritesOnce(group);
      raw.set(group, [...(raw.get(group) ?? []), figure]);
      console.error(`  round ${round + 1}: raw writes in groups of ${group}: ${Math.round(figure.perSecond)} postings/s, ${Math.round(figure.cpuUs)} µs/posting`);
    }
  }
  console.log(`\n| case (64 connections, median of ${ROUNDS}) | req/s | server CPU µs/request |`);
  console.log('|---|---:|---:|');
  for (const [name] of cases) {
    const rows = figures.get(name);
    if (!rows) continue;
    console.log(`| ${name} | ${Math.round(median(rows.map((r) => r.rps)))} | ${Math.round(median(rows.map((r) => r.us)))} |`);
  }
  if (!chosen) {
    const us = (name: string) => median(figures.get(name)!.map((r) => r.us));
    const rps = (name: string) => median(figures.get(name)!.map((r) => r.rps));
    const rawOf = (group: number) => ({ cpuUs: median(raw.get(group)!.map((r) => r.cpuUs)), perSecond: median(raw.get(group)!.map((r) => r.perSecond)) });
    const [raw16, raw100] = [rawOf(16), rawOf(BATCH)];
    console.log(`| raw writes (bench/rawWrites.ts), groups of 16, in process | ${Math.round(raw16.perSecond)} postings/s | ${Math.round(raw16.cpuUs)} µs/posting |`);
    console.log(`| raw writes, groups of ${BATCH} | ${Math.round(raw100.perSecond)} postings/s | ${Math.round(raw100.cpuUs)} µs/posting |`);
    const batchName = cases[cases.length - 1]![0];
    const keyShare = us('h3, the key authenticated (HMAC and one seek)') - us('h3, a fixed answer');
    const postingFloor = us('h3, a 600-byte JSON body read and parsed') + keyShare + raw16.cpuUs;
    const verdicts: Array<[string, number, string, boolean]> = [
      ['ledger /healthz against h3, a fixed answer', us('ledger: GET /healthz') / us('h3, a fixed answer'), '≤ 1.4x', us('ledger: GET /healthz') / us('h3, a fixed answer') <= 1.4],
      ['ledger balance against h3, the key and the balance', us('ledger: GET balance') / us('h3, the key authenticated and the balance read'), '≤ 1.25x', us('ledger: GET balance') / us('h3, the key authenticated and the balance read') <= 1.25],
      ['a posting\'s server CPU against the body read + the key\'s share + raw writes (16)', us('ledger: POST a 2-line posting') / postingFloor, '≤ 1.4x', us('ledger: POST a 2-line posting') / postingFloor <= 1.4],
      [`postings a second in batches against raw writes (${BATCH})`, (rps(batchName) * BATCH) / raw100.perSecond, '≥ 0.6x', (rps(batchName) * BATCH) / raw100.perSecond >= 0.6],
      [`a batched posting's server CPU against raw writes (${BATCH})`, us(batchName) / BATCH / raw100.cpuUs, '≤ 1.5x', us(batchName) / BATCH / raw100.cpuUs <= 1.5],
    ];
    console.log('\n| target (issue 33) | ratio | target | |');
    console.log('|---|---:|---|---|');
    for (const [what, ratio, target, met] of verdicts) console.log(`| ${what} | ${ratio.toFixed(2)}x | ${target} | ${met ? 'met' : 'MISSED'} |`);
  }
} finally {
  rmSync(rawDir, { recursive: true, force: true });
  child.kill('SIGTERM');
  if (child.exitCode === null) await once(child, 'exit');
}
