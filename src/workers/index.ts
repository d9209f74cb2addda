// What runs beside the API: the expiry sweepers (with the event pruner), the webhook sender and the chain watchers.
// Each calls use-cases of the ledger only; the server (or a CLI command) wires them to an opened ledger.
import type { Ledger } from '../core/ledger.js';
import type { Leases, Logger } from '../core/ports.js';
import type { RetryPolicy } from '../core/webhook.js';
import { bankStatementSweeper, holdSweeper, settlementSweeper } from './sweepers.js';
import { EventPruner } from './eventPruner.js';
import { WebhookSender } from './webhooks/sender.js';
import { systemResolver, type Resolver, type UrlPolicy } from './webhooks/urlPolicy.js';
import { startWatchers, type ChainSettings } from './chains/start.js';
import { WORKER_NAMES, type WorkerName } from './names.js';

export { startWatchers, type ChainSettings, WORKER_NAMES, type WorkerName, WebhookSender };

/** Where webhooks may go and how they are sent. */
export interface WebhookSettings {
  /** Test and development only: loopback and private destinations are allowed. */
  allowPrivate?: boolean;
  denyDomains?: string[];
  /** Tests: a resolver standing in for DNS, certificates to trust, a faster retry schedule. */
  resolve?: Resolver;
  ca?: string;
  retry?: RetryPolicy;
}

export function urlPolicyOf(settings: WebhookSettings = {}): UrlPolicy {
  return {
    allowPrivate: settings.allowPrivate ?? false,
    denyDomains: (settings.denyDomains ?? []).map((d) => d.toLowerCase().replace(/^\.+|\.+$/g, '')).filter(Boolean),
    resolve: settings.resolve ?? systemResolver,
  };
}

export interface WorkerSettings {
  /** The workers to run; all of them when absent. */
  workers?: ReadonlySet<WorkerName>;
  webhooks?: WebhookSettings;
  chains?: ChainSettings;
  /** Tests: how often expired settlements are swept after the sweep at start. */
  settlementSweepIntervalMs?: number;
  /** Tests: how often holds past their expiry are swept after the sweep at start. */
  holdSweepIntervalMs?: number;
  /** Tests: how often unfinished bank statements are swept after the sweep at start. */
  bankStatementSweepIntervalMs?: number;
  /** Events older than this many days are pruned (`--event-retention`); kept for ever when absent. */
  eventRetentionDays?: number;
  /** Tests: how often events past the retention time are pruned. */
  eventPruneIntervalMs?: number;
}

/** Starts the workers asked for; resolves to how to stop them all (each finishes what it has under way). */
export async function startWorkers(ledger: Ledger, leases: Leases, log: Logger, settings: WorkerSettings): Promise<{ close(): Promise<void> }> {
  const runs = (name: WorkerName) => settings.workers?.has(name) ?? true;
  const running = WORKER_NAMES.filter(runs);
  log(`workers: ${running.length > 0 ? running.join(', ') : 'none (API only)'}`);
  const sweepers = runs('sweeper')
    ? [settlementSweeper(ledger, log, settings.settlementSweepIntervalMs), holdSweeper(ledger, log, settings.holdSweepIntervalMs), bankStatementSweeper(ledger, log, settings.bankStatementSweepIntervalMs)]
    : [];
  const stopSweepers = () => Promise.all(sweepers.map((s) => s.close()));
  let watchers: Array<{ close(): Promise<void> }> = [];
  try {
    if (runs('watchers')) watchers = await startWatchers(ledger, leases, log, settings.chains);
  } catch (error) {
    await stopSweepers();
    throw error;
  }
  const pruner =
    runs('sweeper') && settings.eventRetentionDays !== undefined
      ? new EventPruner(ledger, log, settings.eventRetentionDays, settings.eventPruneIntervalMs)
      : undefined;
  const sender = runs('webhooks')
    ? new WebhookSender(ledger, log, { leases, policy: urlPolicyOf(settings.webhooks), ca: settings.webhooks?.ca, retry: settings.webhooks?.retry })
    : undefined;
  return {
    close: async () => {
      await Promise.all(watchers.map((w) => w.close()));
      await sender?.close();
      await pruner?.close();
      await stopSweepers();
    },
  };
}
