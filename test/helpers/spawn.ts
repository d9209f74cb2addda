// The built `ledger` binary as a child process: started, read and always stopped by its pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './server.js';

export interface Spawned {
  child: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code and signal when the process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first match of `pattern` on stdout; rejects if the process exits first or after the timeout. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Sends SIGKILL if it still runs. */
  kill(): void;
}

const running = new Set<Spawned>();

export interface SpawnOptions {
  env?: Record<string, string>;
  nodeArgs?: string[];
  /** The file mode creation mask the process starts with (`000`: every bit allowed), set by a shell that then execs node. */
  umask?: string;
}

/** Runs `node bin/ledger.js ...args` (with extra node flags first, if given). Call `killAll` in afterEach/afterAll. */
export function spawnLedger(args: string[], options: SpawnOptions = {}): Spawned {
  const argv = [...(options.nodeArgs ?? []), BIN, ...args];
  // exec: the shell becomes node, so the pid is node's and a kill reaches it.
  const [file, fileArgs] = options.umask === undefined ? [process.execPath, argv] : ['/bin/sh', ['-c', `umask ${options.umask} && exec "$@"`, 'sh', process.execPath, ...argv]];
  const child = spawn(file, fileArgs, {
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const spawned: Spawned = {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForOutput: (pattern, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(out);
          if (m) {
            cleanup();
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${pattern} on stdout after ${timeoutMs} ms; stdout: ${out} stderr: ${err}`));
        }, timeoutMs);
        const onExit = () => {
          check();
          cleanup();
          reject(new Error(`exited before ${pattern}; stdout: ${out} stderr: ${err}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.off('exit', onExit);
        };
        child.stdout!.on('data', check);
        child.once('exit', onExit);
        check();
      }),
    kill: () => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
  running.add(spawned);
  void exited.then(() => running.delete(spawned));
  return spawned;
}

/** `ledger --db <dbPath> serve --port 0 ...args`, resolved once it prints the URL it listens on. */
export async function spawnServe(dbPath: string, args: string[] = [], options: SpawnOptions = {}): Promise<Spawned & { url: string }> {
  const spawned = spawnLedger(['--db', dbPath, 'serve', '--port', '0', ...args], options);
  const match = await spawned.waitForOutput(/ledger listening on (https?:\/\/\S+)/);
  return Object.assign(spawned, { url: match[1]! });
}

/** Stops every process these helpers started and that still runs; resolves once they are gone. */
export async function killAll(): Promise<void> {
  const stopping = [...running];
  for (const spawned of stopping) spawned.kill();
  await Promise.all(stopping.map((spawned) => spawned.exited));
}
