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

/**
 * Starts `ledger serve` on `db` (a file or a postgres:// URL). With `certFile`, webhooks may go to the local receiver
 * whose certificate it is (allowed and trusted for the benchmark only). BENCH_PROFILE_DIR writes a CPU profile.
 */
export function startServer(db: string, certFile?: string): Promise<BenchServer> {
  return new Promise((resolve, reject) => {
    const webhookArgs = certFile ? ['--webhook-allow-private'] : [];
    const env = certFile ? { ...process.env, NODE_EXTRA_CA_CERTS: certFile } : process.env;
    const profile = process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
    const child = spawn(process.execPath, [...profile, LEDGER_BIN, '--db', db, 'serve', '--port', '0', ...webhookArgs], { stdio: ['ignore', 'pipe', 'inherit'], env });
    child.once('error', reject);
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /listening on (\S+)/.exec(chunk.toString());
      if (match) resolve({ url: match[1]!, child });
    });
  });
}

/** Stops a server (SIGTERM, which drains) and waits for it to exit. */
export async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}
