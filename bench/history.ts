// Reads on the seeded server after the throughput loads: the same reads on the big account (BENCH_BIG_ENTRIES) and on
// the small one (10 entries), 16 connections; and batch reconciliation of 100 on-chain transaction ids a request.
import { load, pct, SECONDS, type LoadRow } from './load.js';
import type { Scenario, Table } from './scenario.js';
import { seededServer } from './seeded.js';

const BATCH_IDS = 100;

const HISTORY: Table = {
  title: 'Large history (1,000,000 entries vs 10 entries, 16 connections)',
  columns: ['read', 'big req/s', 'big p99 ms', 'small req/s', 'small p99 ms', 'big/small'],
  align: 'lrrrrr',
};

/** Batch reconciliation's row, and the audit export's (bench/export.ts). */
export const RECONCILIATION_AND_EXPORT: Table = { title: 'Reconciliation and audit export', columns: ['scenario', 'figure'], align: 'lr' };

async function walkTo(url: string, headers: Record<string, string>, account: string, pages: number, limit: number): Promise<string> {
  let cursor = '';
  for (let i = 0; i < pages; i++) {
    const res = await fetch(`${url}/api/v1/accounts/${account}/entries?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers });
    const body = (await res.json()) as { nextCursor: string };
    cursor = body.nextCursor;
  }
  return cursor;
}

export const history: Scenario<Array<[string, LoadRow, LoadRow]>> = {
  name: 'history',
  family: 'history',
  setup: [seededServer],
  async run(ctx) {
    const { url, auth, s, pids } = await ctx.use(seededServer);
    console.error('large history: the same reads on an account with 1,000,000 entries and one with 10');
    const short = { duration: Math.max(2, Math.round(SECONDS / 3)), connections: 16 };
    // Each account's last day: about ten movements on either.
    const dayBefore = (account: string) => new Date(Date.parse(s.last[account]!) - 86_400_000 + 1).toISOString();
    const deepCursor = await walkTo(url, auth, s.big, 10_000, 50).catch(() => '');
    const rows: Array<[string, LoadRow, LoadRow]> = [];
    for (const [label, path] of [
      ['balance', (a: string) => `/api/v1/accounts/${a}/balance`],
      ['asOf balance', (a: string) => `/api/v1/accounts/${a}/balance?asOf=${encodeURIComponent(dayBefore(a))}`],
      ['one-day statement', (a: string) => `/api/v1/accounts/${a}/statement?from=${encodeURIComponent(dayBefore(a))}&to=${encodeURIComponent(s.last[a]!)}`],
      // Five of ten: both accounts have a next page, so both sign a nextCursor.
      ['entries, first page of 5', (a: string) => `/api/v1/accounts/${a}/entries?limit=5`],
    ] as const) {
      const big = await load(ctx, `${label} (big)`, { ...short, url: `${url}${path(s.big)}`, headers: auth }, pids);
      const small = await load(ctx, `${label} (small)`, { ...short, url: `${url}${path(s.small)}`, headers: auth }, pids);
      rows.push([label, big, small]);
    }
    if (deepCursor) {
      const first = await load(ctx, 'entries, page 1 of 50 (big)', { ...short, url: `${url}/api/v1/accounts/${s.big}/entries?limit=50`, headers: auth }, pids);
      const deep = await load(ctx, 'entries, page 10,001 of 50 (big)', { ...short, url: `${url}/api/v1/accounts/${s.big}/entries?limit=50&cursor=${encodeURIComponent(deepCursor)}`, headers: auth }, pids);
      rows.push(['entries of 50: page 10,001 vs page 1 (both big)', deep, first]);
    }
    return rows;
  },
  print: (rows) => rows.map(([label, big, small]) => ({ table: HISTORY, cells: [label, big.rps, big.p99, small.rps, small.p99, pct(big, small)] })),
};

export const reconciliation: Scenario<LoadRow> = {
  name: 'reconciliation',
  family: 'reconciliation',
  setup: [seededServer],
  async run(ctx) {
    const { url, json, s, pids } = await ctx.use(seededServer);
    console.error('batch reconciliation: 100 on-chain transaction ids per request');
    const batchRequest = {
      method: 'POST' as const,
      path: '/api/v1/reconciliation/batch',
      setupRequest: (req: any) => {
        const start = Math.floor(Math.random() * (s.onchainIds.length - BATCH_IDS));
        req.headers = json;
        req.body = JSON.stringify({ transactionIds: s.onchainIds.slice(start, start + BATCH_IDS) });
        return req;
      },
    };
    return load(ctx, 'POST /api/v1/reconciliation/batch (100 ids)', { url, requests: [batchRequest], connections: 8 }, pids);
  },
  print: (r) => [
    { table: RECONCILIATION_AND_EXPORT, cells: ['batch reconciliation, 100 ids a request (8 connections)', `${r.rps} batches/s = ${r.rps * BATCH_IDS} transactions/s, p99 ${r.p99} ms`] },
  ],
};
