// Agent-originated transactions (contract, Agents and policy rules). Everything these endpoints record is of type AGENT.
import { agentSessionIdSchema, agentTransactionsQuery, pageQuery, postTransactionBody } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import type { Actor } from '../../core/audit.js';
import { defineRoute, IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf } from '../route.js';

const asAgent = (actor: Actor): Actor => ({ ...actor, type: 'AGENT' });

const decision = (verb: 'approve' | 'reject', decisionOf: 'APPROVE' | 'REJECT') =>
  defineRoute({
    method: 'POST',
    path: `/api/v1/agent/transactions/:transactionId/${verb}`,
    summary: verb === 'approve' ? 'Approve and post a held agent transaction' : 'Reject a held agent transaction',
    operationId: verb === 'approve' ? 'approveAgentTransaction' : 'rejectAgentTransaction',
    scope: 'TRANSACTIONS_WRITE',
    responses: {
      200: { description: verb === 'approve' ? 'Posted' : 'Rejected', schema: 'AgentTransactionStatus' },
      403: 'Forbidden, an agent key (AGENTS_EXECUTE), or the key that executed it',
      404: 'Not found',
      409: 'Not PENDING_APPROVAL',
    },
    handle: async ({ ledger, principal, actor, params }) => ({
      status: 200,
      body: await ledger.agents.decide(principal.tenantId, asAgent(actor), principal.scopes, params.transactionId!, decisionOf),
    }),
  });

export const agentRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v1/agent/transactions',
    summary: 'Execute an agent-originated transaction under the policy rules',
    operationId: 'executeAgentTransaction',
    scope: 'AGENTS_EXECUTE',
    body: postTransactionBody,
    headers: {
      'Idempotency-Key': IDEMPOTENCY_KEY_HEADER,
      'X-Agent-Session-Id': { schema: agentSessionIdSchema, required: true, description: "The agent's session, at most 255 characters" },
    },
    responses: {
      201: { description: 'Posted', schema: 'AgentTransactionStatus' },
      202: { description: 'Held for a human\'s approval', schema: 'AgentTransactionStatus' },
      400: 'Missing or invalid Idempotency-Key or X-Agent-Session-Id, malformed body',
      409: 'A request with the same Idempotency-Key is in progress',
      422: 'POLICY_VIOLATION (with ruleId), unknown account, unbalanced, or key reused with another body',
    },
    handle: async ({ ledger, principal, actor, rawKey, body, header }) => {
      const key = idempotencyKeyOf(header);
      const sessionId = parseWith(agentSessionIdSchema, header('x-agent-session-id') ?? undefined, 'X-Agent-Session-Id header', 'X-Agent-Session-Id');
      const stored = await ledger.agents.execute(principal.tenantId, asAgent(actor), rawKey, sessionId, key, body);
      return { status: stored.status, raw: stored.body };
    },
  }),
  decision('approve', 'APPROVE'),
  decision('reject', 'REJECT'),
  defineRoute({
    method: 'POST',
    path: '/api/v1/agent/transactions/:transactionId/rollback',
    summary: 'Post the exact reverse of a POSTED agent transaction, once',
    operationId: 'rollbackAgentTransaction',
    scope: 'AGENTS_ROLLBACK',
    responses: { 201: { description: 'The reversal\'s id, and the transaction it reverses', schema: 'Reversal' }, 404: 'Not found', 409: 'Already rolled back, or not POSTED' },
    handle: async ({ ledger, principal, actor, params }) => ({
      status: 201,
      body: await ledger.agents.rollback(principal.tenantId, asAgent(actor), params.transactionId!),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/agent/transactions',
    summary: 'Agent transaction records, newest first',
    operationId: 'listAgentTransactions',
    scope: 'AGENTS_AUDIT_READ',
    query: agentTransactionsQuery,
    responses: { 200: { description: 'A page of agent transactions, newest first', schema: 'AgentTransactionsPage' }, 400: 'Invalid status, limit or cursor' },
    handle: async ({ ledger, principal, query }) => ({ status: 200, body: await ledger.agents.list(principal.tenantId, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/agent/transactions/:transactionId',
    summary: 'One agent transaction record',
    operationId: 'getAgentTransaction',
    scope: 'AGENTS_AUDIT_READ',
    responses: { 200: { description: 'The agent transaction', schema: 'AgentTransaction' }, 404: 'Not found' },
    handle: async ({ ledger, principal, params }) => ({ status: 200, body: await ledger.agents.get(principal.tenantId, params.transactionId!) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/agent/audit',
    summary: 'Agent audit records, newest first',
    operationId: 'listAgentAudit',
    scope: 'AGENTS_AUDIT_READ',
    query: pageQuery,
    responses: { 200: { description: 'A page of AGENT audit records, newest first', schema: 'AgentAuditPage' }, 400: 'Invalid limit or cursor' },
    handle: async ({ ledger, principal, query }) => ({ status: 200, body: await ledger.agents.audit(principal.tenantId, query) }),
  }),
];
