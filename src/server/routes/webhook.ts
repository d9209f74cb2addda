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
    responses: { 200: { description: 'The webhook, with its signing secret (shown once)', schema: 'WebhookSet' }, 400: 'Missing, empty, invalid or blocked URL', 401: 'Unauthenticated', 403: 'Forbidden' },
    handle: async ({ ledger, settings, principal, actor, body }) => {
      await checkWebhookUrl(body.webhookUrl, settings.urlPolicy);
      return { status: 200, body: await ledger.setWebhook(principal.tenantId, actor, body.webhookUrl) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/tenant/webhook',
    summary: 'The webhook URL and the first characters of its secret',
    operationId: 'getWebhook',
    scope: 'WEBHOOK_MANAGE',
    responses: { 200: { description: 'The webhook, with the first characters of its secret', schema: 'WebhookConfig' }, 401: 'Unauthenticated', 403: 'Forbidden', 404: 'No webhook configured' },
    handle: async ({ ledger, principal }) => ({ status: 200, body: await ledger.getWebhook(principal.tenantId) }),
  }),
];
