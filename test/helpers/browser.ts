// Tests in a real headless browser (the docs page, the console) run in Debian's chromium, driven by playwright-core.
// Without chromium such a test is skipped, saying how to enable it, except under CI (CI set, as CI sets it: CI=true),
// where a missing browser fails the run: a check that CI silently skips would look like a pass. Every page a test
// watches fails that test on an error thrown in the page, on an error its console logged (but those the test causes on
// purpose, which it names), and on a request outside the place it was opened on.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';

/** The Chromium binary the browser tests drive. */
export const CHROMIUM = process.env.LEDGER_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** What chromium is launched with: this machine's network is closed (no background networking, updates or sync). */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** CI=true (or any value but false/0): the usual signal of a CI run. */
export const underCi = (env: NodeJS.ProcessEnv = process.env): boolean => {
  const value = (env.CI ?? '').trim().toLowerCase();
  return value !== '' && value !== 'false' && value !== '0';
};

const HOW = 'apt-get install chromium, or set LEDGER_TEST_CHROMIUM to a Chromium binary';

/** A page watched for what it requests and what goes wrong in it. */
export interface Watched {
  page: Page;
  /** Every URL it requested. */
  requests: string[];
  /** What the test is doing now: each error recorded meanwhile names it. */
  step: string;
}

interface Watch {
  watched: Watched;
  within: string;
  allow: RegExp[];
  /** Errors thrown in the page (never allowed) and errors its console logged, each with its step. */
  errors: Array<{ thrown: boolean; text: string; step: string }>;
}

/** The pages watched in the test that runs now. */
const watches: Watch[] = [];

/**
 * Watches `page` until the end of the test: the test then fails (describeInBrowser) on any error thrown in the page,
 * on any error its console logged that `allow` does not match (the refusals a test causes on purpose), and on any
 * request whose URL does not start with `within`.
 */
export function watch(page: Page, { within, allow = [] }: { within: string; allow?: RegExp[] }): Watched {
  const watched: Watched = { page, requests: [], step: 'opening' };
  const w: Watch = { watched, within, allow, errors: [] };
  page.on('request', (request) => watched.requests.push(request.url()));
  page.on('console', (message) => message.type() === 'error' && w.errors.push({ thrown: false, text: message.text(), step: watched.step }));
  page.on('pageerror', (error) => w.errors.push({ thrown: true, text: `${error.message}\n${error.stack ?? ''}`, step: watched.step }));
  watches.push(w);
  return watched;
}

/** What went wrong on `watched` so far (or on every page of the test): each error not allowed, each request outside. */
export function problemsOf(watched?: Watched): string[] {
  return watches
    .filter((w) => watched === undefined || w.watched === watched)
    .flatMap((w) => [
      ...w.errors.filter((e) => e.thrown || !w.allow.some((pattern) => pattern.test(e.text))).map((e) => `${e.thrown ? 'thrown' : 'logged'} at ${e.step}: ${e.text}`),
      ...w.watched.requests.filter((url) => !url.startsWith(w.within)).map((url) => `requested outside ${w.within}: ${url}`),
    ]);
}

/** After each browser test: nothing went wrong on the pages it watched. */
function expectWatchedClean(): void {
  const problems = problemsOf();
  watches.length = 0;
  expect(problems, 'what went wrong in the browser').toEqual([]);
}

/**
 * `describe`, for tests that need chromium: as it is when chromium is there (each test checked afterwards for what
 * went wrong on the pages it watched); skipped (with a line saying why) when it is not; and when it is not there under
 * CI, one failing test in place of the suite.
 */
export function describeInBrowser(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, () => {
      afterEach(expectWatchedClean);
      body();
    });
    return;
  }
  if (underCi()) {
    describe(name, () => {
      it('has chromium to run in', () => {
        throw new Error(`no chromium at ${CHROMIUM}, and CI is set: a browser test fails under CI rather than being skipped (${HOW})`);
      });
    });
    return;
  }
  console.log(`${name}: skipped, no chromium at ${CHROMIUM} (${HOW})`);
  describe.skip(name, body);
}
