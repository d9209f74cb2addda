// `npm run bench:tls`: posting over HTTPS, served by node:https around srvx's handler (what `ledger serve --tls-cert`
// does) and by listhen's listen() (the listener the design card names), on the same ledger, alternating rounds.
// listhen is not a dependency: install it for this measurement with `npm i --no-save listhen@1`.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { postRequestFor } from './requests.js';
import { makeTenant, named, seed } from './seed.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = 2;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

async function startVariant(variant: string, db: string, cert: string, key: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/tls-server.ts', variant, db, cert, key, String(await freePort())], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${variant} server exited (${code}); for listhen: npm i --no-save listhen@1`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /url (\S+)/.exec(chunk.toString());
      if (match) resolve({ url: match[1]!, child });
    });
  });
}

async function main() {
  // The bench talks to its own self-signed certificate on loopback.
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-tls-'));
  try {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }] });
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    writeFileSync(cert, pems.cert);
    writeFileSync(key, pems.private);
    const db = join(dir, 'bench.db');
    const { rawKey, accounts } = await seed(db, ({ ledger }) => makeTenant(ledger, 'bench', named('a', 64)));
    const headers = { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' };
    const results: Record<string, Array<{ rps: number; p99: number }>> = { node: [], listhen: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of ['node', 'listhen']) {
        const { url, child } = await startVariant(variant, db, cert, key);
        const result = await autocannon({
          url,
          duration: SECONDS,
          connections: 64,
          requests: [postRequestFor(accounts, headers)],
        });
        results[variant]!.push({ rps: Math.round(result.requests.average), p99: result.latency.p99 });
        console.error(`  round ${round + 1}, ${variant}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, errors ${result.errors + result.non2xx}`);
        child.removeAllListeners('exit');
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    }
    console.log('\n| HTTPS posting, 64 connections | req/s per round | p99 ms per round |');
    console.log('|---|---:|---:|');
    for (const [variant, rows] of Object.entries(results)) {
      const label = variant === 'node' ? 'node:https + srvx handler (ledger serve)' : 'listhen listen() + srvx handler';
      console.log(`| ${label} | ${rows.map((r) => r.rps).join(', ')} | ${rows.map((r) => r.p99).join(', ')} |`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
