// `BENCH_ONLY=reports npm run bench`: the reports of issue 32 on SQLite, or on PostgreSQL with
// BENCH_REPORTS_ENGINE=postgres. A tenant of 10,000 accounts (BENCH_REPORTS_ACCOUNTS), first with one entry each
// (10,000 entries), then with 100 each (1,000,000 entries): at each size the whole trial balance is timed over HTTP
// against the real server (every page of 200), as the CLI prints it (`ledger reports trial-balance --format csv`, a
// process of its own), and a balance history of 1,000 points. Each larger figure must stay within 2x of the smaller:
// a balance is one index seek, whatever the history.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { JsonNumber } from '../src/core/money.js';
import { freshDb, type Engine } from './engines.js';
import type { Scenario, Target } from './scenario.js';
import { actor, makeTenant, seed, steppingClock } from './seed.js';
import { startServer, stopChild, type BenchServer } from './server.js';
import { median } from './stats.js';

const ACCOUNTS = Number(process.env.BENCH_REPORTS_ACCOUNTS ?? 10_000);
/** Accounts a posting spans: the most lines a posting may have. */
const GROUP = 1000;
const ENTRIES_PER_ACCOUNT_BIG = 100;
const SAMPLES = 3;
const HISTORY_POINTS = 1000;
const HOUR_MS = 3_600_000;
const run = promisify(execFile);

async function timed(samples: number, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return median(times);
}

interface Figures {
  entries: number;
  reportMs: number;
  pages: number;
  cliMs: number;
  historyMs: number;
}

/** A key of the tenant with ACCOUNTS_READ, made on the database while the server runs (as `ledger keys create` does). */
async function ledgerKey(db: string, tenantId: string): Promise<{ rawKey: string }> {
  const { stdout } = await run(process.execPath, ['bin/ledger.js', '--db', db, 'keys', 'create', '--tenant', tenantId, '--scopes', 'ACCOUNTS_READ', '--json']);
  return JSON.parse(stdout) as { rawKey: string };
}

async function measureReports(engine: Engine): Promise<[Figures, Figures]> {
  const fresh = await freshDb(engine, 'reports.db');
  const { db } = fresh;
  let server: BenchServer | undefined;
  try {
    console.error(`  engine: ${engine}, ${ACCOUNTS} accounts`);
    // A clock an hour a call from 1990: the postings spread over the history's range; the server's own commits come later.
    const startMs = Date.UTC(1990, 0, 1);
    const clock = steppingClock(startMs, HOUR_MS);
    // The tenant and its accounts, of every type in turn.
    const types = ['ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE'] as const;
    const names = Array.from({ length: ACCOUNTS }, (_, i) => ({ name: `account ${String(i).padStart(6, '0')}`, type: types[i % types.length]! }));
    const { tenantId, accounts } = await seed(db, ({ ledger }) => makeTenant(ledger, 'Reports', names, 500), clock);
    let postings = 0;
    /** `rounds` times, one posting per group of GROUP accounts: an entry on each account a round. */
    const post = (rounds: number) =>
      seed(
        db,
        async ({ ledger }) => {
          for (let r = 0; r < rounds; r++) {
            for (let g = 0; g < ACCOUNTS; g += GROUP) {
              const lines = accounts.slice(g, g + GROUP).map((accountId, i) => {
                const cents = ((postings + Math.floor(i / 2)) % 97) + 1;
                return { accountId, entryType: i % 2 === 0 ? ('DEBIT' as const) : ('CREDIT' as const), monetaryEntry: { type: 'FIAT' as const, amount: new JsonNumber((cents / 100).toFixed(2)), currency: 'USD' as const, rail: 'ACH' as const } };
              });
              await ledger.transactions.post(tenantId, actor, `seed-${postings++}`, { lines, metadata: {} });
            }
          }
        },
        clock,
      );
    const sizes: Figures[] = [];
    const measure = async (entriesPerAccount: number) => {
      server = await startServer(db);
      const { url } = server;
      const { rawKey } = await ledgerKey(db, tenantId);
      const get = async (path: string) => {
        const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${rawKey}` } });
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        return res.json() as Promise<{ nextCursor: string | null }>;
      };
      let pages = 0;
      const reportMs = await timed(SAMPLES, async () => {
        let page = await get('/api/v1/reports/trial-balance?limit=200');
        for (pages = 1; page.nextCursor; pages++) page = await get(`/api/v1/reports/trial-balance?limit=200&cursor=${encodeURIComponent(page.nextCursor)}`);
      });
      const cliMs = await timed(SAMPLES, () => run(process.execPath, ['bin/ledger.js', '--db', db, 'reports', 'trial-balance', '--tenant', tenantId, '--format', 'csv'], { maxBuffer: 64 * 1024 * 1024 }));
      const from = new Date(startMs).toISOString();
      const to = new Date(startMs + (HISTORY_POINTS - 1) * HOUR_MS).toISOString();
      const historyMs = await timed(SAMPLES, () => get(`/api/v1/accounts/${accounts[0]}/balance-history?from=${from}&to=${to}&interval=hour`));
      await stopChild(server.child);
      server = undefined;
      const figures = { entries: entriesPerAccount * ACCOUNTS, reportMs, pages, cliMs, historyMs };
      console.error(`  ${figures.entries.toLocaleString('en')} entries: whole report over HTTP ${reportMs.toFixed(0)} ms (${pages} pages of 200), by the CLI ${cliMs.toFixed(0)} ms, a history of ${HISTORY_POINTS} points ${historyMs.toFixed(0)} ms`);
      sizes.push(figures);
    };
    await post(1);
    await measure(1);
    await post(ENTRIES_PER_ACCOUNT_BIG - 1);
    await measure(ENTRIES_PER_ACCOUNT_BIG);
    return [sizes[0]!, sizes[1]!];
  } finally {
    await stopChild((server as BenchServer | undefined)?.child);
    await fresh.drop();
  }
}

/** The larger size's figure against the smaller's: at most 2x. */
const within2x = (what: string, figure: (f: Figures) => number): Target<[Figures, Figures]> => ({
  label: ([small, large]) => `${what}: at most 2x from ${small.entries.toLocaleString('en')} to ${large.entries.toLocaleString('en')} entries (${(figure(large) / figure(small)).toFixed(2)}x)`,
  met: ([small, large]) => figure(large) / figure(small) <= 2,
});

export const reports: Scenario<[Figures, Figures]> = {
  name: 'reports',
  family: 'reports',
  byDefault: false,
  run: () => measureReports(process.env.BENCH_REPORTS_ENGINE === 'postgres' ? 'PostgreSQL' : 'SQLite'),
  targets: [
    within2x('whole report over HTTP', (f) => f.reportMs),
    within2x('whole report by the CLI', (f) => f.cliMs),
    within2x(`history of ${HISTORY_POINTS} points`, (f) => f.historyMs),
  ],
};
