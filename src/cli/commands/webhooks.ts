// `ledger webhooks run|deliveries|redeliver`: the sender on its own, and what it has done.
import type { Command } from 'commander';
import { action, openCommandLedger, pagedListing, tenantOption, tenantIdOf, withTenantLedger } from '../common.js';
import { uuidSchema } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import { untilSignal } from '../signals.js';
import { addWebhookOptions, webhookSettingsOf, type WebhookFlags } from '../webhookOptions.js';
import { log } from './serve.js';

export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').description('deliver webhook events and look at their deliveries');

  addWebhookOptions(
    webhooks.command('run').description('run the webhook sender alone, beside a server on the same database, until SIGINT or SIGTERM'),
  ).action(
    action(async (options: WebhookFlags, command: Command) => {
      const opened = await openCommandLedger(command);
      // Loaded when it runs, as the server is.
      const { WebhookSender, urlPolicyOf } = await import('../../workers/index.js');
      const sender = new WebhookSender(opened.ledger, log, { leases: opened.leases, policy: urlPolicyOf(webhookSettingsOf(options)) });
      // The sender's own timer does not hold the process open (beside a server it need not); here it is all there is.
      const keepOpen = setInterval(() => {}, 60_000);
      // The signals are handled before the line a supervisor waits for is printed.
      const stopped = untilSignal(
        {
          close: async () => {
            clearInterval(keepOpen);
            await sender.close();
            await opened.close();
          },
        },
        log,
      );
      process.stdout.write('webhook sender running\n');
      await stopped;
      log('stopped');
    }),
  );

  pagedListing(webhooks.command('deliveries').description("the tenant's recent deliveries, newest first"), {
    fetch: (ledger, tenantId, query) => ledger.webhooks.listDeliveries(tenantId, query),
    columns: ['event', 'type', 'attempts', 'status', 'last error', 'next attempt'],
    row: (d) => [d.eventId, d.type, d.attempts, d.status, d.lastError, d.nextAttemptAt],
  });

  webhooks
    .command('redeliver')
    .description('queue an event to be delivered again')
    .argument('<eventId>', 'the event id (X-Ledger-Event-Id)')
    .addOption(tenantOption())
    .action(
      action(async (eventId: string, options: { tenant: string }, command: Command) => {
        const tenantId = tenantIdOf(options);
        const id = parseWith(uuidSchema, eventId, 'eventId');
        const queued = await withTenantLedger(command, tenantId, async (ledger) => {
          return ledger.webhooks.redeliver(tenantId, id);
        });
        process.stdout.write(`Event ${queued.eventId} queued for delivery (${queued.status}).\n`);
      }),
    );
}
