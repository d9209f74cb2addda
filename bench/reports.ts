// `BENCH_ONLY=reports npm run bench`: the reports of issue 32 on SQLite, or on PostgreSQL with
// BENCH_REPORTS_ENGINE=postgres. A tenant of 10,000 accounts (BENCH_REPORTS_ACCOUNTS), first with one entry each
// (10,000 entries), then with 100 each (1,000,000 entries): at each size the whole trial balance is timed over HTTP
// against the real server (every page of 200), as the CLI prints it (`ledger reports trial-balance --format csv`, a
// process of its own), and a balance history of 1,000 points. Each larger figure must stay within 2x of the smaller:
// a balance is one index seek, whatever the history.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openLedger } from '../src/store/open.js';
import { CLI_ACTOR_ID } from '../src/core/audit.js';
import { JsonNumber } from '../src/core/money.js';
import type { Clock } from '../src/core/time.js';
import { startServer, stopChild } from './server.js';
import { freshDatabaseUrl, startTestPostgres } from '../test/helpers/postgres.js';

const ACCOUNTS = Number(process.env.BENCH_REPORTS_ACCOUNTS ?? 10_000);
/** Accounts a posting spans: the most lines a posting may have. */
const GROUP = 1000;
const ENTRIES_PER_ACCOUNT_BIG = 100;
const SAMPLES = 3;
const HISTORY_POINTS = 1000;
const HOUR_MS = 3_600_000;
const actor = { type: 'HUMAN' as const, keyId: CLI_ACTOR_ID };
const run = promisify(execFile);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
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

export async function benchReports(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-reports-'));
  const postgres = process.env.BENCH_REPORTS_ENGINE === 'postgres' ? await startTestPostgres() : undefined;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const db = postgres ? await freshDatabaseUrl(postgres.url) : join(dir, 'reports.db');
    console.error(`  engine: ${postgres ? 'PostgreSQL' : 'SQLite'}, ${ACCOUNTS} accounts`);
    // A clock an hour a call from 1990: the postings spread over the history's range; the server's own commits come later.
    const startMs = Date.UTC(1990, 0, 1);
    let t = startMs;
    const clock: Clock = { now: () => new Date((t += HOUR_MS)) };
    const { tenantId, accounts } = await setUp(db, clock);
    let postings = 0;
    /** `rounds` times, one posting per group of GROUP accounts: an entry on each account a round. */
    const seed = async (rounds: number) => {
      const opened = await openLedger(db, { writer: 'local', clock });
      try {
        for (let r = 0; r < rounds; r++) {
          for (let g = 0; g < ACCOUNTS; g += GROUP) {
            const lines = accounts.slice(g, g + GROUP).map((accountId, i) => {
              const cents = ((postings + Math.floor(i / 2)) % 97) + 1;
              return { accountId, entryType: i % 2 === 0 ? ('DEBIT' as const) : ('CREDIT' as const), monetaryEntry: { type: 'FIAT' as const, amount: new JsonNumber((cents / 100).toFixed(2)), currency: 'USD' as const, rail: 'ACH' as const } };
            });
            await opened.ledger.transactions.post(tenantId, actor, `seed-${postings++}`, { lines, metadata: {} });
          }
        }
      } finally {
        await opened.close();
      }
    };
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
    await seed(1);
    await measure(1);
    await seed(ENTRIES_PER_ACCOUNT_BIG - 1);
    await measure(ENTRIES_PER_ACCOUNT_BIG);
    const [small, large] = [sizes[0]!, sizes[1]!];
    const checks = [
      { what: 'whole report over HTTP', ratio: large.reportMs / small.reportMs },
      { what: 'whole report by the CLI', ratio: large.cliMs / small.cliMs },
      { what: `history of ${HISTORY_POINTS} points`, ratio: large.historyMs / small.historyMs },
    ];
    let ok = true;
    for (const { what, ratio } of checks) {
      const met = ratio <= 2;
      ok &&= met;
      console.error(`  ${what}: ${ratio.toFixed(2)}x from ${small.entries.toLocaleString('en')} to ${large.entries.toLocaleString('en')} entries (target at most 2x) ${met ? 'met' : 'NOT MET'}`);
    }
    return ok;
  } finally {
    await stopChild(server?.child);
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The tenant and its accounts, of every type in turn. */
async function setUp(db: string, clock: Clock): Promise<{ tenantId: string; accounts: string[] }> {
  const opened = await openLedger(db, { writer: 'local', clock });
  try {
    const { tenantId } = await opened.ledger.tenants.create('Reports', actor);
    const types = ['ASSET', 'LIABILITY', 'EQUITY', 'REVENUE', 'EXPENSE'] as const;
    const accounts: string[] = [];
    for (let n = 0; n < ACCOUNTS; n += 500) {
      const made = await Promise.all(
        Array.from({ length: Math.min(500, ACCOUNTS - n) }, (_, i) =>
          opened.ledger.accounts.create(tenantId, { name: `account ${String(n + i).padStart(6, '0')}`, currency: 'USD', type: types[(n + i) % types.length]! }, actor),
        ),
      );
      accounts.push(...made.map((a) => a.id));
    }
    return { tenantId, accounts };
  } finally {
    await opened.close();
  }
}

/** A key of the tenant with ACCOUNTS_READ, made on the database while the server runs (as `ledger keys create` does). */
async function ledgerKey(db: string, tenantId: string): Promise<{ rawKey: string }> {
  const { stdout } = await run(process.execPath, ['bin/ledger.js', '--db', db, 'keys', 'create', '--tenant', tenantId, '--scopes', 'ACCOUNTS_READ', '--json']);
  return JSON.parse(stdout) as { rawKey: string };
}
