// The server's CPU per request, read from /proc (Linux): the whole process over all its threads, and the writer thread
// on its own, found by the name it gives itself (`ledger-writer`, src/store/threads.ts). These figures move far less
// with the machine's noise than requests per second do.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU of a /proc stat file, in µs; undefined where there is none. */
function cpuUsOf(statFile: string): number | undefined {
  if (!existsSync(statFile)) return undefined;
  // The name (field 2) may hold spaces: the fields after its closing parenthesis start at field 3.
  const fields = readFileSync(statFile, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
}

/** A process's CPU time so far, user and system, in µs (NaN where /proc has none). */
export const processCpuUs = (pid: number): number => cpuUsOf(`/proc/${pid}/stat`) ?? Number.NaN;

/** The /proc stat files of a process's threads, by the name each gives itself (`ledger-writer`, `ledger-ckpt`). */
const taskStats = (pid: number, name: string): string[] => {
  const dir = `/proc/${pid}/task`;
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((tid) => {
      try {
        return readFileSync(`${dir}/${tid}/comm`, 'utf8').trim() === name;
      } catch {
        return false;
      }
    })
    .map((tid) => `${dir}/${tid}/stat`);
};

export interface CpuFigures {
  /** The server processes' CPU (all threads) over the scenario, per request answered. */
  usPerRequest: number;
  /** The writer threads' CPU over the scenario's wall time (1 = one core busy all along). */
  writerBusy: number;
  /** The writer threads' CPU per request answered (per command, for a writing scenario). */
  writerUsPerCommand: number;
  /** Per request answered: the main (HTTP) thread's CPU, the checkpoint thread's, and every other thread's (GC helpers, libuv). */
  mainUsPerRequest: number;
  checkpointUsPerRequest: number;
  otherUsPerRequest: number;
}

/** Starts measuring the given server processes; `stop` gives the figures over what was answered meanwhile. */
export function cpuMeter(pids: readonly number[]) {
  const sum = (files: string[]) => files.reduce((total, file) => total + (cpuUsOf(file) ?? 0), 0);
  const read = () => {
    let process = 0;
    let writer = 0;
    let main = 0;
    let checkpoint = 0;
    for (const pid of pids) {
      process += cpuUsOf(`/proc/${pid}/stat`) ?? Number.NaN;
      writer += sum(taskStats(pid, 'ledger-writer'));
      checkpoint += sum(taskStats(pid, 'ledger-ckpt'));
      main += cpuUsOf(`/proc/${pid}/task/${pid}/stat`) ?? 0;
    }
    return { process, writer, main, checkpoint, at: performance.now() };
  };
  const start = read();
  return {
    stop(requests: number): CpuFigures | undefined {
      const end = read();
      if (!Number.isFinite(end.process - start.process) || requests <= 0) return undefined;
      const wallUs = (end.at - start.at) * 1000;
      const per = (key: 'process' | 'writer' | 'main' | 'checkpoint') => (end[key] - start[key]) / requests;
      return {
        usPerRequest: per('process'),
        writerBusy: (end.writer - start.writer) / wallUs,
        writerUsPerCommand: per('writer'),
        mainUsPerRequest: per('main'),
        checkpointUsPerRequest: per('checkpoint'),
        otherUsPerRequest: per('process') - per('writer') - per('main') - per('checkpoint'),
      };
    },
  };
}

/** As the bench prints them: `312 µs/req (main 150, writer 120, checkpoint 20, other 22), writer 78% busy`. */
export const describeCpu = (cpu: CpuFigures | undefined): string =>
  cpu
    ? `${Math.round(cpu.usPerRequest)} µs/req (main ${Math.round(cpu.mainUsPerRequest)}, writer ${Math.round(cpu.writerUsPerCommand)}, checkpoint ${Math.round(cpu.checkpointUsPerRequest)}, other ${Math.round(cpu.otherUsPerRequest)}), writer ${Math.round(cpu.writerBusy * 100)}% busy`
    : 'CPU not measured (no /proc)';

/** The CPU of every process named `postgres` (the bench's own cluster: its backends and helpers), in µs. */
const postgresCpuUs = (): number => {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuUsOf(`/proc/${pid}/stat`) ?? 0;
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
};

/** The machine's busy and total CPU time from /proc/stat, in ticks. */
const machineTicks = (): { busy: number; total: number } => {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3]! - fields[4]!, total };
};

export interface MachineFigures {
  /** PostgreSQL's CPU (every `postgres` process) and this bench process's own, per request answered. */
  postgresUsPerRequest: number;
  clientUsPerRequest: number;
  /** The share of the machine's cores busy over the scenario (1 = all of them). */
  machineBusy: number;
}

/** Where the machine's CPU went besides the server: PostgreSQL, the load generator (this process), and what was idle. */
export function machineMeter() {
  if (!existsSync('/proc/stat')) return { stop: (): MachineFigures | undefined => undefined };
  const start = { pg: postgresCpuUs(), client: process.cpuUsage(), machine: machineTicks() };
  return {
    stop(requests: number): MachineFigures | undefined {
      const client = process.cpuUsage(start.client);
      const machine = machineTicks();
      return {
        postgresUsPerRequest: (postgresCpuUs() - start.pg) / requests,
        clientUsPerRequest: (client.user + client.system) / requests,
        machineBusy: (machine.busy - start.machine.busy) / (machine.total - start.machine.total),
      };
    },
  };
}
