// The real server for the benchmarks: the built binary (`ledger serve`) as a child process on a database the bench
// made, on a free port of loopback.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** The CLI the benchmarks run: this build's, or another's (BENCH_LEDGER_BIN, an older build to compare against in one sitting). */
export const LEDGER_BIN = process.env.BENCH_LEDGER_BIN ?? 'bin/ledger.js';

export interface BenchServer {
  url: string;
  child: ChildProcess;
}

export interface ServeOptions {
  /** A local webhook receiver's certificate: webhooks may go to it (allowed and trusted for the benchmark only). */
  certFile?: string;
  /** More arguments of `ledger serve` (`--max-connections 300`, `--evm-rpc <url>`, …). */
  args?: readonly string[];
  /** The server's stderr: shown, or dropped (the EVM watcher's logs). */
  stderr?: 'inherit' | 'ignore';
  /** Another CLI than LEDGER_BIN (another checkout's, bench/abReads.ts). */
  bin?: string;
}

/**
 * Starts `ledger serve` on `db` (a file or a postgres:// URL); fails if it exits before it listens.
 * BENCH_PROFILE_DIR writes a CPU profile.
 */
export function startServer(db: string, options: ServeOptions = {}): Promise<BenchServer> {
  const { certFile, args = [], stderr = 'inherit', bin = LEDGER_BIN } = options;
  return new Promise((resolve, reject) => {
    const webhookArgs = certFile ? ['--webhook-allow-private'] : [];
    const env = certFile ? { ...process.env, NODE_EXTRA_CA_CERTS: certFile } : process.env;
    const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
    const child = spawn(process.execPath, [...profile, bin, '--db', db, 'serve', '--port', '0', ...webhookArgs, ...args], { stdio: ['ignore', 'pipe', stderr], env });
    const exited = (code: number | null) => reject(new Error(`ledger serve exited (${code}) before it listened`));
    child.once('error', reject);
    child.once('exit', exited);
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /listening on (\S+)/.exec(chunk.toString());
      if (match) {
        child.off('exit', exited);
        resolve({ url: match[1]!, child });
      }
    });
  });
}

/** Stops a server (SIGTERM, which drains) and waits for it to exit. */
export async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}
