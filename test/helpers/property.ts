// Property tests (fast-check) run from a seed that is printed, and a failure says how to replay it. The seed is
// PROPERTY_SEED when given (a replay, or the mutation run, which fixes one so that every mutant meets the same
// cases), else a fresh one for this test process; PROPERTY_PATH, from a failure's report, replays that case alone.
import { relative } from 'node:path';
import fc from 'fast-check';
import { expect } from 'vitest';

function seedOf(given: string | undefined): number {
  if (given === undefined || given === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`PROPERTY_SEED must be an integer, not ${JSON.stringify(given)}`);
  return seed;
}

const SEED = seedOf(process.env.PROPERTY_SEED);
const PATH = process.env.PROPERTY_PATH || undefined;

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const regexEscape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The command that runs this test again with this seed (and path), on this engine. */
export function replayCommand(seed: number, path?: string): string {
  const { testPath, currentTestName } = expect.getState();
  const file = relative(process.cwd(), testPath ?? '');
  const name = currentTestName?.split(' > ').at(-1) ?? '';
  const project = process.env.LEDGER_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
  const env = `PROPERTY_SEED=${seed}${path ? ` PROPERTY_PATH=${path}` : ''}`;
  return `${env} npx vitest run ${file} --project ${project} -t ${shellQuote(regexEscape(name))}`;
}

/**
 * fc.assert with the seed above: prints the seed before the run and, on a failure, fast-check's report (seed, path,
 * counterexample, the error) followed by the exact command that replays it.
 */
export async function checkProperty<Ts>(property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>, parameters: fc.Parameters<Ts> = {}): Promise<void> {
  console.log(`property seed ${SEED}${PATH ? ` path ${PATH}` : ''}; to run it again: ${replayCommand(SEED, PATH)}`);
  const details = await fc.check(property, { ...parameters, seed: SEED, includeErrorInReport: true, ...(PATH ? { path: PATH } : {}) });
  if (!details.failed) return;
  const report = await fc.asyncDefaultReportMessage(details);
  const replay = details.counterexamplePath === null ? replayCommand(details.seed) : replayCommand(details.seed, details.counterexamplePath);
  throw new Error(`${report}\n\nReplay this failure with:\n  ${replay}`, { cause: details.errorInstance });
}
