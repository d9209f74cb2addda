// The webhook options that `ledger serve` and `ledger webhooks run` share.
import type { Command } from 'commander';
import type { WebhookSettings } from '../workers/index.js';
import { parseList } from './common.js';

export interface WebhookFlags {
  webhookAllowPrivate?: boolean;
  webhookDenyDomains?: string;
}

export const addWebhookOptions = (command: Command): Command =>
  command
    .option(
      '--webhook-allow-private',
      'test and development only: webhooks may point at loopback or private addresses, still over HTTPS (LEDGER_WEBHOOK_ALLOW_PRIVATE=1)',
      process.env.LEDGER_WEBHOOK_ALLOW_PRIVATE === '1',
    )
    .option('--webhook-deny-domains <list>', 'comma-separated domains webhooks may not point at (LEDGER_WEBHOOK_DENY_DOMAINS)', process.env.LEDGER_WEBHOOK_DENY_DOMAINS);

export const webhookSettingsOf = (flags: WebhookFlags): WebhookSettings => ({
  allowPrivate: Boolean(flags.webhookAllowPrivate),
  denyDomains: flags.webhookDenyDomains ? parseList(flags.webhookDenyDomains) : [],
});
