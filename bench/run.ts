// `npm run bench`: the bench's table of scenarios and its runner. Each row is a scenario (bench/scenario.ts): the real
// server (built binary, child process) on a database it made, driven over loopback. A run without BENCH_ONLY runs
// the rows that are in it by default, in the table's order; BENCH_ONLY=name,family,… picks rows by scenario name or
// family. Fixtures a row names (a seeded database, a server) start before the first row that needs them and stop
// after the last. At the end, one printer prints the tables of what ran, the server's CPU per request of every load,
// and the targets of the rows that ran, met or MISSED.
import { auditExport } from './export.js';
import { bankStatements } from './bankStatements.js';
import { effectiveBalances } from './effectiveBalances.js';
import { batch } from './batch.js';
import { bounds } from './bounds.js';
import { evmWatcher } from './evm.js';
import { fairness } from './fairness.js';
import { history, reconciliation } from './history.js';
import { hot } from './hot.js';
import { cpuLines, type LoadRow } from './load.js';
import { postgres } from './postgres.js';
import { printTables, printTargets } from './print.js';
import { readFairness } from './readFairness.js';
import { reports } from './reports.js';
import { needs, type Context, type Fixture, type Results, type Scenario } from './scenario.js';
import { search } from './search.js';
import { storage } from './storage.js';
import { throughput } from './throughput.js';

const TABLE: ReadonlyArray<Scenario<any>> = [
  // On the seeded SQLite database (bench/seeded.ts), one server for the loads, then a fresh one for the export.
  ...throughput,
  history,
  reconciliation,
  auditExport,
  evmWatcher,
  // BENCH_PG=0, BENCH_FAIRNESS=0 and BENCH_BOUNDS=0 leave these out of a run without BENCH_ONLY.
  postgres,
  ...fairness,
  ...bounds,
  // Only when BENCH_ONLY names them.
  ...hot,
  ...readFairness,
  search,
  reports,
  batch,
  ...storage,
  ...bankStatements,
  ...effectiveBalances,
];

/** The rows BENCH_ONLY names (by scenario or family), or those of a run without it; each only if enabled. */
function pick(only: string | undefined): Scenario[] {
  const enabled = (s: Scenario) => s.enabled?.() ?? true;
  if (!only) return TABLE.filter((s) => (typeof s.byDefault === 'function' ? s.byDefault() : (s.byDefault ?? true)) && enabled(s));
  const asked = only.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = asked.filter((name) => !TABLE.some((s) => s.name === name || s.family === name));
  if (unknown.length > 0) {
    const known = [...new Set(TABLE.flatMap((s) => [s.family, s.name]))].join(', ');
    throw new Error(`BENCH_ONLY names no scenario or family ${unknown.join(', ')}; there are ${known}`);
  }
  return TABLE.filter((s) => (asked.includes(s.name) || asked.includes(s.family)) && enabled(s));
}

/** Runs the rows in order; answers their figures. */
async function runAll(picked: readonly Scenario[]): Promise<Results> {
  const figures = new Map<Scenario, unknown>();
  const loads: LoadRow[] = [];
  const results: Results = { of: <F>(s: Scenario<F>) => figures.get(s) as F | undefined, loads };
  // In the order they started: stopped the other way round.
  const started = new Map<Fixture<any>, unknown>();
  const ctx: Context = {
    picked,
    results,
    loads,
    async use<T>(fixture: Fixture<T>): Promise<T> {
      if (!started.has(fixture)) started.set(fixture, await fixture.start(ctx));
      return started.get(fixture) as T;
    },
  };
  const stopUnneeded = async (rest: readonly Scenario[]) => {
    for (const fixture of [...started.keys()].reverse()) {
      if (rest.some((s) => needs(s, fixture))) continue;
      const value = started.get(fixture);
      started.delete(fixture);
      await fixture.stop(value);
    }
  };
  try {
    for (const [i, scenario] of picked.entries()) {
      for (const fixture of scenario.setup ?? []) await ctx.use(fixture);
      figures.set(scenario, await scenario.run(ctx));
      await stopUnneeded(picked.slice(i + 1));
    }
  } finally {
    await stopUnneeded([]);
  }
  return results;
}

const picked = pick(process.env.BENCH_ONLY);
const results = await runAll(picked);
const ran = picked.map((s) => [s, results.of(s)] as const);
printTables([...ran.flatMap(([s, f]) => s.print?.(f, results) ?? []), ...cpuLines(results.loads)]);
printTargets(ran.flatMap(([s, f]) => (s.targets ?? []).filter((t) => t.when?.(f, results) ?? true).map((t) => ({ label: t.label(f, results), met: t.met(f, results) }))));
