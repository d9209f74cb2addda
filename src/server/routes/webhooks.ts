// The tenant's webhook: set it (a new secret each time) and read it.
import { setWebhookBody } from '../../core/schemas.js';
import { checkWebhookUrl } from '../../workers/webhooks/urlPolicy.js';
import { defineRoute } from '../route.js';

export const webhookRoutes = [
  defineRoute({
    method: 'PUT',
    path: '/api/v1/tenant/webhook',
    summary: 'Set the webhook URL; a new signing secret is issued and the previous one stops working',
    operationId: 'setWebhook',
    scope: 'WEBHOOK_MANAGE',
    body: setWebhookBody,
    responses: {
      200: { description: 'The webhook, its URL as the WHATWG URL parser writes it (what the sender calls), with its signing secret (shown once)', schema: 'WebhookSet' },
      400: 'Missing, empty, invalid or blocked URL, or one with control, invisible or bidirectional-control characters',
    },
    handle: async ({ ledger, settings, principal, actor, body }) => {
      // Stored, answered and called as the URL parser writes it: what is shown is what is called.
      const url = await checkWebhookUrl(body.webhookUrl, settings.urlPolicy);
      return { status: 200, body: await ledger.webhooks.set(principal.tenantId, actor, url.href) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/tenant/webhook',
    summary: 'The webhook URL and the first characters of its secret',
    operationId: 'getWebhook',
    scope: 'WEBHOOK_MANAGE',
    responses: { 200: { description: 'The webhook, with the first characters of its secret', schema: 'WebhookConfig' }, 404: 'No webhook configured' },
    handle: async ({ ledger, principal }) => ({ status: 200, body: await ledger.webhooks.get(principal.tenantId) }),
  }),
];
