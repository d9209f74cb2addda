// Two-phase holds: reserve now, capture (whole or in part) or void later, or let expire.
import { agentSessionIdSchema, captureHoldBody, createHoldBody, holdsQuery } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import { defineRoute, IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf } from '../route.js';

const optionalKey = { ...IDEMPOTENCY_KEY_HEADER, required: false, description: 'At most 255 characters; a retry with the same key returns the first answer' };

export const holdRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v1/holds',
    summary: 'Reserve a balanced set of lines: it counts in pending and available and against limits, and posts nothing until captured',
    operationId: 'createHold',
    scope: 'TRANSACTIONS_WRITE',
    body: createHoldBody,
    headers: {
      'Idempotency-Key': IDEMPOTENCY_KEY_HEADER,
      'X-Agent-Session-Id': { schema: agentSessionIdSchema, required: false, description: "An agent key's session, counted by the session limits of the policy rules (at most 255 characters)" },
    },
    responses: {
      201: { description: 'The hold, PENDING', schema: 'Hold' },
      400: 'Missing or invalid Idempotency-Key, malformed body, expiresAt not in the future or too far',
      409: 'A request with the same Idempotency-Key is in progress',
      422: 'Unknown account, currency mismatch, unbalanced, a balance limit it would pass, a policy rule an agent key breaks (POLICY_VIOLATION), or key reused with another body',
    },
    handle: async ({ ledger, principal, body, header, rawKey }) => {
      const key = idempotencyKeyOf(header);
      // A key that lists AGENTS_EXECUTE is an agent's: its hold is judged by the policy rules and recorded as AGENT.
      const agent = principal.scopes.includes('AGENTS_EXECUTE');
      const actor = { type: agent ? ('AGENT' as const) : ('HUMAN' as const), keyId: principal.keyId };
      const session = header('x-agent-session-id');
      const holder = agent ? { rawKey, sessionId: session === null ? '' : parseWith(agentSessionIdSchema, session, 'X-Agent-Session-Id header', 'X-Agent-Session-Id') } : null;
      const stored = await ledger.holds.create(principal.tenantId, actor, key, body, holder);
      return { status: stored.status, raw: stored.body };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/holds',
    summary: 'List holds, newest first, by status and account',
    operationId: 'listHolds',
    scope: 'TRANSACTIONS_READ',
    query: holdsQuery,
    responses: { 200: { description: 'A page of holds, newest first', schema: 'HoldsPage' }, 400: 'Invalid status, accountId, limit or cursor' },
    handle: async ({ ledger, principal, query }) => ({ status: 200, body: await ledger.holds.list(principal.tenantId, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/holds/:holdId',
    summary: 'Get a hold',
    operationId: 'getHold',
    scope: 'TRANSACTIONS_READ',
    responses: { 200: { description: 'The hold', schema: 'Hold' }, 404: 'Not found' },
    handle: async ({ ledger, principal, params }) => ({ status: 200, body: await ledger.holds.get(principal.tenantId, params.holdId!) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/holds/:holdId/capture',
    summary: 'Post a PENDING hold as a transaction (metadata captureOfHoldId): whole, or for one debit and one credit in one asset, a smaller amount (the rest is released)',
    operationId: 'captureHold',
    scope: 'TRANSACTIONS_WRITE',
    body: captureHoldBody,
    headers: { 'Idempotency-Key': optionalKey },
    responses: {
      200: { description: 'The hold, CAPTURED, with capturedAmount and transactionId', schema: 'Hold' },
      400: 'Malformed amount, or a part of a hold that is not one debit and one credit in one asset',
      404: 'Not found',
      409: 'The hold is no longer PENDING (CONFLICT, unchanged), or is past its expiresAt (HOLD_EXPIRED: it is released, EXPIRED, whether or not the sweeper had come by)',
      422: 'More than the hold holds (HOLD_AMOUNT_EXCEEDED), a balance limit the posting would pass, or key reused with another body',
    },
    handle: async ({ ledger, principal, actor, params, body, header }) => {
      const stored = await ledger.holds.capture(principal.tenantId, actor, params.holdId!, body, idempotencyKeyOf(header, 'optional'));
      return { status: stored.status, raw: stored.body };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/v1/holds/:holdId/void',
    summary: 'Release a PENDING hold without posting',
    operationId: 'voidHold',
    scope: 'TRANSACTIONS_WRITE',
    headers: { 'Idempotency-Key': optionalKey },
    responses: {
      200: { description: 'The hold, VOIDED', schema: 'Hold' },
      404: 'Not found',
      409: 'The hold is no longer PENDING (CONFLICT, unchanged), or is past its expiresAt (HOLD_EXPIRED: it is released, EXPIRED, whether or not the sweeper had come by)',
    },
    handle: async ({ ledger, principal, actor, params, header }) => {
      const stored = await ledger.holds.void(principal.tenantId, actor, params.holdId!, idempotencyKeyOf(header, 'optional'));
      return { status: stored.status, raw: stored.body };
    },
  }),
];
