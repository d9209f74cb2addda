// One client of another tenant sending maximum-size postings in a loop beside a load, and its figures over that load.
import { randomUUID } from 'node:crypto';
import { HEAVY_LINES } from './requests.js';
import { percentile } from './stats.js';
import { sleep } from './scenario.js';

/** One 1000-line posting gives up after this long (counted as an error), so the loop always ends. */
const HEAVY_REQUEST_TIMEOUT_MS = 30_000;
/** The heavy loop runs alone this long before the load starts. */
const HEAVY_LEAD_MS = 1000;

interface HeavySample {
  startedAt: number;
  ms: number;
  status: number;
}

export interface HeavyFigures {
  scenario: string;
  count: number;
  rate: number;
  p50: number;
  p99: number;
  errors: number;
  total: number;
  bytes: number;
}

/**
 * One client posting `body` in a loop, one request in flight at a time, each with a fresh Idempotency-Key, until
 * `stop()`. Every request is bounded by HEAVY_REQUEST_TIMEOUT_MS; a failure is recorded (status 0 if no answer) and
 * followed by a short pause, so a failing server is not hammered and the loop still ends when told.
 */
function startHeavyPoster(url: string, headers: Record<string, string>, body: string) {
  const samples: HeavySample[] = [];
  let firstError = '';
  let stopping = false;
  const done = (async () => {
    while (!stopping) {
      const startedAt = performance.now();
      let status = 0;
      try {
        const res = await fetch(`${url}/api/v1/transactions`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': randomUUID() },
          body,
          signal: AbortSignal.timeout(HEAVY_REQUEST_TIMEOUT_MS),
        });
        status = res.status;
        const text = await res.text();
        if (status !== 201 && !firstError) firstError = `${status}: ${text.slice(0, 300)}`;
      } catch (error) {
        if (!firstError) firstError = error instanceof Error ? error.message : String(error);
      }
      samples.push({ startedAt, ms: performance.now() - startedAt, status });
      if (status !== 201 && !stopping) await sleep(100);
    }
  })();
  return {
    samples,
    firstError: () => firstError,
    stop: async () => {
      stopping = true;
      await done;
    },
  };
}

/**
 * Runs `run` (a load) while a client of another tenant sends 1000-line postings: the loop starts first, runs alone
 * for HEAVY_LEAD_MS, and is stopped and awaited once the load is over (or has failed).
 */
export async function besideHeavyPostings<R>(url: string, headers: Record<string, string>, body: string, run: () => Promise<R>): Promise<{ row: R; heavy: HeavyFigures }> {
  const heavy = startHeavyPoster(url, headers, body);
  let row: R;
  let began: number;
  let ended: number;
  try {
    await sleep(HEAVY_LEAD_MS);
    began = performance.now();
    row = await run();
    ended = performance.now();
  } finally {
    await heavy.stop();
  }
  // The figures are those of the postings sent while the load ran; errors count every non-201 of the whole loop.
  const during = heavy.samples.filter((x) => x.startedAt >= began && x.startedAt < ended);
  const ok = during.filter((x) => x.status === 201).map((x) => x.ms);
  const seconds = (ended - began) / 1000;
  const stats: HeavyFigures = {
    scenario: `${HEAVY_LINES}-line postings beside that load (1 client, 1 in flight)`,
    count: during.length,
    rate: during.length / seconds,
    p50: percentile(ok, 50),
    p99: percentile(ok, 99),
    errors: heavy.samples.filter((x) => x.status !== 201).length,
    total: heavy.samples.length,
    bytes: Buffer.byteLength(body),
  };
  console.error(
    `  ${stats.scenario}: ${stats.count} in ${seconds.toFixed(1)} s (${stats.rate.toFixed(1)}/s), p50 ${stats.p50} ms, p99 ${stats.p99} ms, ` +
      `errors ${stats.errors} of ${stats.total} sent in all (${(stats.bytes / 1024 / 1024).toFixed(2)} MB each)`,
  );
  if (heavy.firstError()) console.error(`  first 1000-line posting error: ${heavy.firstError()}`);
  return { row, heavy: stats };
}
