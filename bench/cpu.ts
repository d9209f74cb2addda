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

const writerTask = (pid: number): string | undefined => {
  const dir = `/proc/${pid}/task`;
  if (!existsSync(dir)) return undefined;
  const tid = readdirSync(dir).find((t) => readFileSync(`${dir}/${t}/comm`, 'utf8').trim() === 'ledger-writer');
  return tid && `${dir}/${tid}/stat`;
};

export interface CpuFigures {
  /** The server processes' CPU (all threads) over the scenario, per request answered. */
  usPerRequest: number;
  /** The writer threads' CPU over the scenario's wall time (1 = one core busy all along). */
  writerBusy: number;
  /** The writer threads' CPU per request answered (per command, for a writing scenario). */
  writerUsPerCommand: number;
}

/** Starts measuring the given server processes; `stop` gives the figures over what was answered meanwhile. */
export function cpuMeter(pids: readonly number[]) {
  const read = () => {
    let process = 0;
    let writer = 0;
    for (const pid of pids) {
      process += cpuUsOf(`/proc/${pid}/stat`) ?? Number.NaN;
      const task = writerTask(pid);
      writer += (task === undefined ? undefined : cpuUsOf(task)) ?? 0;
    }
    return { process, writer, at: performance.now() };
  };
  const start = read();
  return {
    stop(requests: number): CpuFigures | undefined {
      const end = read();
      if (!Number.isFinite(end.process - start.process) || requests <= 0) return undefined;
      const wallUs = (end.at - start.at) * 1000;
      return {
        usPerRequest: (end.process - start.process) / requests,
        writerBusy: (end.writer - start.writer) / wallUs,
        writerUsPerCommand: (end.writer - start.writer) / requests,
      };
    },
  };
}

/** As the bench prints them: `312 µs/req, writer 78% busy, 240 µs/command`. */
export const describeCpu = (cpu: CpuFigures | undefined): string =>
  cpu
    ? `${Math.round(cpu.usPerRequest)} µs/req, writer ${Math.round(cpu.writerBusy * 100)}% busy, ${Math.round(cpu.writerUsPerCommand)} µs/command`
    : 'CPU not measured (no /proc)';
