// `npm run bench:floor`: what a request costs the server below the ledger's own code. The same load (autocannon, 64
// connections, the server's CPU per request from /proc as in `npm run bench`) against node:http alone, h3 alone, h3
// with only the parts a balance read cannot do without (the key's HMAC and seek, then the balance), and the ledger's
// app (/healthz, the balance). Rounds alternate the cases so that the machine's drift falls on all of them alike;
// the table gives each case's median (BENCH_SECONDS a case, default 3; BENCH_ROUNDS, default 3; BENCH_CASES=auth,balance
// runs the cases whose names hold one of those words; BENCH_PROFILE_DIR=<dir> writes a CPU profile of the server).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { cpuMeter } from './cpu.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BODY = JSON.stringify({
  lines: [
    { accountId: '0190f9a2-0000-7000-8000-000000000001', entryType: 'DEBIT', monetaryEntry: { type: 'FIAT', amount: '12.34', currency: 'USD', rail: 'PIX' } },
    { accountId: '0190f9a2-0000-7000-8000-000000000002', entryType: 'CREDIT', monetaryEntry: { type: 'FIAT', amount: '12.34', currency: 'USD', rail: 'PIX' } },
  ],
  metadata: { orderId: 'ord_0000000000000000', customer: 'cus_0000000000000000', note: 'a posting body of about 600 bytes, as the issue measured' },
});

const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'bench/floor-server.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const { ports, rawKey, accountId } = JSON.parse(line) as { ports: Record<'node' | 'h3' | 'app', number>; rawKey: string; accountId: string };
  const auth = { authorization: `Bearer ${rawKey}` };
  const at = (server: 'node' | 'h3' | 'app', path: string) => `http://127.0.0.1:${ports[server]}${path}`;
  const cases: Array<[string, autocannon.Options]> = [
    ['node:http, a fixed answer', { url: at('node', '/') }],
    ['h3, a fixed answer', { url: at('h3', '/ok') }],
    ['h3, a 600-byte JSON body read and parsed', { url: at('h3', '/body'), method: 'POST', body: BODY, headers: { 'content-type': 'application/json' } }],
    ['h3, the key authenticated (HMAC and one seek)', { url: at('h3', '/auth'), headers: auth }],
    ['h3, the key authenticated and the balance read', { url: at('h3', '/balance'), headers: auth }],
    ['ledger: GET /healthz', { url: at('app', '/healthz') }],
    [`ledger: GET balance`, { url: at('app', `/api/v1/accounts/${accountId}/balance`), headers: auth }],
  ];
  const figures = new Map<string, Array<{ rps: number; us: number }>>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, options] of cases) {
      if (process.env.BENCH_CASES && !process.env.BENCH_CASES.split(',').some((c) => name.includes(c))) continue;
      const meter = cpuMeter([child.pid!]);
      const result = await autocannon({ connections: 64, duration: SECONDS, ...options });
      if (result.non2xx + result.errors > 0) throw new Error(`${name}: ${result.non2xx} answers not 2xx, ${result.errors} errors`);
      const cpu = meter.stop(result.requests.total);
      const row = { rps: result.requests.average, us: cpu?.usPerRequest ?? Number.NaN };
      figures.set(name, [...(figures.get(name) ?? []), row]);
      console.error(`  round ${round + 1}: ${name}: ${Math.round(row.rps)} req/s, ${Math.round(row.us)} µs/req`);
    }
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`\n| case (64 connections, median of ${ROUNDS}) | req/s | server CPU µs/request |`);
  console.log('|---|---:|---:|');
  for (const [name] of cases) {
    const rows = figures.get(name);
    if (!rows) continue;
    console.log(`| ${name} | ${Math.round(median(rows.map((r) => r.rps)))} | ${Math.round(median(rows.map((r) => r.us)))} |`);
  }
} finally {
  child.kill('SIGTERM');
  if (child.exitCode === null) await once(child, 'exit');
}
