// autocannon loads against the server, with the server's CPU over each (bench/cpu.ts): one row each, recorded in the
// run's context for the CPU table and the errors target.
import autocannon from 'autocannon';
import { cpuMeter, describeCpu, type CpuFigures } from './cpu.js';
import type { Context, Line, Table } from './scenario.js';

/** Each load's length (BENCH_SECONDS, 10 unless set), and its connections unless it says. */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = 64;

export interface LoadRow {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Requests answered over the scenario. */
  answered: number;
  /** The server's CPU over the scenario, when it was measured. */
  cpu?: CpuFigures;
}

/** One autocannon load; `pids` are the server processes whose CPU it measures. */
export async function load(ctx: Context, scenario: string, options: autocannon.Options, pids: readonly number[]): Promise<LoadRow> {
  const meter = cpuMeter(pids);
  const result = await autocannon({ duration: SECONDS, connections: CONNECTIONS, ...options });
  const row: LoadRow = {
    scenario,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    answered: result.requests.total,
    cpu: pids.length > 0 ? meter.stop(result.requests.total) : undefined,
  };
  ctx.loads.push(row);
  console.error(`  ${scenario}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, errors ${row.errors}; ${describeCpu(row.cpu)}`);
  return row;
}

/**
 * autocannon against several targets at once (one instance each, the connections shared out): requests per second
 * summed; p50 and p99 the worst of the instances.
 */
export async function loadSpread(ctx: Context, scenario: string, targets: autocannon.Options[], pids: readonly number[]): Promise<LoadRow> {
  const share = (i: number) => Math.floor(CONNECTIONS / targets.length) + (i < CONNECTIONS % targets.length ? 1 : 0);
  const meter = cpuMeter(pids);
  const results = await Promise.all(targets.map((target, i) => autocannon({ duration: SECONDS, ...target, connections: share(i) })));
  const answered = results.reduce((sum, r) => sum + r.requests.total, 0);
  const row: LoadRow = {
    scenario,
    rps: Math.round(results.reduce((sum, r) => sum + r.requests.average, 0)),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0),
    answered,
    cpu: pids.length > 0 ? meter.stop(answered) : undefined,
  };
  ctx.loads.push(row);
  console.error(`  ${scenario}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms (worst of ${targets.length} load generators), errors ${row.errors}; ${describeCpu(row.cpu)}`);
  return row;
}

/** `a`'s requests a second against `b`'s, as a percentage. */
export const pct = (a: LoadRow, b: LoadRow) => `${Math.round((a.rps / b.rps) * 100)}%`;

/** The loads of a scenario run on its own (the hot paths, PostgreSQL alone): untitled. */
export const LOADS: Table = { columns: ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors'], align: 'lrrrr' };
export const loadLine = (r: LoadRow): Line => ({ table: LOADS, cells: [r.scenario, r.rps, r.p50, r.p99, r.errors] });

const CPU: Table = {
  title: "Server CPU per request (from /proc: all of the server's threads, then by thread)",
  columns: ['scenario', 'req/s', 'server CPU µs/request', 'main thread', 'writer', 'checkpoint', 'other threads', 'writer busy'],
  align: 'lrrrrrrr',
};

/** The server's CPU per request of every load whose CPU was measured, whole and by thread. */
export function cpuLines(loads: readonly LoadRow[]): Line[] {
  const us = (n: number) => Math.round(n);
  return loads.flatMap((r) => {
    const c = r.cpu;
    if (!c) return [];
    return [{ table: CPU, cells: [r.scenario, r.rps, us(c.usPerRequest), us(c.mainUsPerRequest), us(c.writerUsPerCommand), us(c.checkpointUsPerRequest), us(c.otherUsPerRequest), `${us(c.writerBusy * 100)}%`] }];
  });
}
