// Another tenant beside one tenant's heavy work (bench/fairness.ts, bench/readFairness.ts): its light load
// (bench/lightLoad.ts) measured over the span of that work, the table of those figures and their target.
import { during, startLightLoad, type Sample } from './lightLoad.js';
import type { Line, Table, Target } from './scenario.js';
import { most, percentile } from './stats.js';
import { sleep } from './scenario.js';

/** The other tenant's posting loops (one request in flight each). */
const LIGHT_LOOPS = 4;
const FAIRNESS_TARGET_MS = 500;
/** The light load runs alone this long before the heavy work, and this long after it. */
export const LEAD_MS = 2000;
const TAIL_MS = 500;

export interface Light {
  rawKey: string;
  accounts: string[];
}

export interface FairnessRow {
  engine: string;
  scenario: string;
  burstMs: number;
  /** Statuses of the burst's requests (or holds expired, for expiries). */
  heavy: string;
  count: number;
  p50: number;
  p99: number;
  worst: number;
  healthWorst: number;
  errors: number;
  /** The same postings' p99 and worst over the lead, before the burst: what this machine gives with no burst at all. */
  aloneP99: number;
  aloneWorst: number;
}

/**
 * Runs another tenant's light load (its postings and /healthz), and beside it, after LEAD_MS alone, `heavy`: whatever
 * one tenant does, answering when it began and ended and what it got. Answers the other tenant's figures over that span.
 */
export async function measureBeside(
  engine: string,
  scenario: string,
  url: string,
  light: Light,
  heavy: () => Promise<{ began: number; ended: number; heavy: string }>,
): Promise<FairnessRow> {
  const load = startLightLoad(url, light.rawKey, light.accounts, LIGHT_LOOPS);
  let span: { began: number; ended: number; heavy: string };
  let samples: { postings: Sample[]; health: Sample[] };
  try {
    await sleep(LEAD_MS);
    span = await heavy();
    await sleep(TAIL_MS);
  } finally {
    samples = await load.stop();
  }
  const postings = during(samples.postings, span.began, span.ended);
  const ok = postings.filter((s) => s.status === 201).map((s) => s.ms);
  const health = during(samples.health, span.began, span.ended).map((s) => s.ms);
  const alone = samples.postings.filter((s) => s.startedAt + s.ms < span.began - TAIL_MS && s.status === 201).map((s) => s.ms);
  if (process.env.BENCH_FAIR_DEBUG) {
    const top = (list: Sample[]) => [...list].sort((a, b) => b.ms - a.ms).slice(0, 5).map((s) => `${Math.round(s.ms)} ms at +${s.startedAt - span.began} ms (${s.status})`).join('; ');
    console.error(`    slowest postings: ${top(samples.postings)}\n    slowest /healthz: ${top(samples.health)}`);
  }
  const row: FairnessRow = {
    engine,
    scenario,
    burstMs: span.ended - span.began,
    heavy: span.heavy,
    count: postings.length,
    p50: percentile(ok, 50),
    p99: percentile(ok, 99),
    worst: Math.round(most(postings.map((s) => s.ms))),
    healthWorst: Math.round(most(health)),
    errors: samples.postings.filter((s) => s.status !== 201).length,
    aloneP99: percentile(alone, 99),
    aloneWorst: Math.round(most(alone)),
  };
  console.error(
    `  ${engine}, ${row.scenario}: burst ${(row.burstMs / 1000).toFixed(1)} s (${row.heavy}); other tenant's postings during it: ${row.count}, ` +
      `p50 ${row.p50} ms, p99 ${row.p99} ms, worst ${row.worst} ms; /healthz worst ${row.healthWorst} ms; errors ${row.errors}; ` +
      `before the burst: p99 ${row.aloneP99} ms, worst ${row.aloneWorst} ms`,
  );
  return row;
}

/** What a row is judged by: the other tenant's worst wait under FAIRNESS_TARGET_MS, and no error. */
const fairnessMet = (r: FairnessRow) => r.worst < FAIRNESS_TARGET_MS && r.errors === 0;

export const fairnessTarget: Target<FairnessRow> = {
  label: (r) => `${r.engine}: another tenant's worst posting wait ${r.scenario} < ${FAIRNESS_TARGET_MS} ms (${r.worst} ms, p99 ${r.p99} ms)`,
  met: fairnessMet,
};

const FAIRNESS: Table = {
  title: `Another tenant beside a burst (${LIGHT_LOOPS} loops of 2-line postings; target: worst wait < ${FAIRNESS_TARGET_MS} ms)`,
  columns: ['engine', 'scenario', 'burst s', 'burst answers', 'postings during', 'p50 ms', 'p99 ms', 'worst ms', '/healthz worst ms', 'alone: p99, worst ms', 'target'],
  align: 'llrlrrrrrrl',
};

export const fairnessLine = (r: FairnessRow): Line => ({
  table: FAIRNESS,
  cells: [r.engine, r.scenario, (r.burstMs / 1000).toFixed(1), r.heavy, r.count, r.p50, r.p99, r.worst, r.healthWorst, `${r.aloneP99}, ${r.aloneWorst}`, fairnessMet(r) ? 'met' : 'MISSED'],
});

/** What the light tenant's loops say they are, for the log. */
export const LIGHT_LOAD = `another tenant's 2-line postings (${LIGHT_LOOPS} loops)`;
