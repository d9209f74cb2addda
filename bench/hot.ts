// `BENCH_ONLY=hot`: the quick loop for working on the hot paths. /healthz, posting (64 connections and 1), balance,
// entries, and posting beside event streams and beside webhook deliveries, on the seeded SQLite server (10,000
// entries unless BENCH_BIG_ENTRIES says), each with its CPU figures; no targets judged. BENCH_HOT=posting,balance
// (for example) runs only those, for a profile of one path.
import { loadLine, type LoadRow } from './load.js';
import type { Context, Scenario } from './scenario.js';
import { seededServer } from './seeded.js';
import { besideStreams, besideWebhooks, loadOf } from './throughput.js';

const asked = (name: string) => !process.env.BENCH_HOT || process.env.BENCH_HOT.split(',').includes(name);

const hotRow = (name: string, run: (ctx: Context) => Promise<LoadRow>): Scenario<LoadRow> => ({
  name: `hot-${name}`,
  family: 'hot',
  byDefault: false,
  enabled: () => asked(name),
  setup: [seededServer],
  run,
  print: (r) => [loadLine(r)],
});

export const hot: Scenario<LoadRow>[] = [
  hotRow('healthz', (ctx) => loadOf(ctx, 'healthz')),
  hotRow('posting', (ctx) => loadOf(ctx, 'posting')),
  hotRow('posting1', (ctx) => loadOf(ctx, 'posting1')),
  hotRow('balance', (ctx) => loadOf(ctx, 'balance')),
  hotRow('entries', (ctx) => loadOf(ctx, 'entries')),
  hotRow('streams', async (ctx) => (await besideStreams(ctx)).row),
  hotRow('webhooks', async (ctx) => (await besideWebhooks(ctx)).row),
];
