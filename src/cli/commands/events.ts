// `ledger events`: a tenant's events as NDJSON on stdout, read straight from the database (like `audit export`),
// oldest first; with --follow, new events as they commit, until SIGINT or SIGTERM.
import type { Command } from 'commander';
import { once } from 'node:events';
import { action, parseList, tenantOption, tenantIdOf, withTenantLedger } from '../common.js';
import { eventsQuery } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import { eventTypes } from '../../core/enums.js';
import { eventText } from '../../core/webhook.js';

interface EventsOptions {
  tenant: string;
  after?: string;
  type: string[];
  follow?: boolean;
}

export function registerEvents(program: Command): void {
  program
    .command('events')
    .description("print a tenant's events as NDJSON, one per line, oldest first (each as GET /api/v1/events gives it)")
    .addOption(tenantOption())
    .option('--after <eventId>', 'start after this event (default: the oldest event kept)')
    .option('--type <kinds>', `only these kinds, comma-separated (repeatable): ${eventTypes.join(', ')}`, (value: string, list: string[]) => [...list, ...parseList(value)], [])
    .option('--follow', 'then keep printing new events as they commit, until SIGINT')
    .action(
      action(async (options: EventsOptions, command: Command) => {
        const tenantId = tenantIdOf(options);
        const query = parseWith(
          eventsQuery,
          { ...(options.after !== undefined ? { after: options.after } : {}), ...(options.type.length > 0 ? { type: options.type.join(',') } : {}) },
          'options',
        );
        const stop = new AbortController();
        const onSignal = () => stop.abort();
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        try {
          await withTenantLedger(command, tenantId, async (ledger) => {
            const start = await ledger.events.position(tenantId, query.after);
            for await (const event of ledger.events.follow(tenantId, start, { types: query.type ?? null, follow: options.follow, signal: stop.signal })) {
              if (!process.stdout.write(`${eventText(event)}\n`)) await once(process.stdout, 'drain');
            }
          });
        } finally {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      }),
    );
}
