// Policy rules of the tenant (ADMIN).
import { createPolicyRuleBody } from '../../core/schemas.js';
import { defineRoute } from '../route.js';


export const policyRuleRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/v1/admin/policy-rules',
    summary: 'Create a policy rule for agent-originated transactions',
    operationId: 'createPolicyRule',
    scope: 'ADMIN',
    body: createPolicyRuleBody,
    responses: { 201: { description: 'The rule', schema: 'PolicyRule' }, 400: 'Invalid type, unrecognized values, fields missing for the type' },
    handle: async ({ ledger, principal, actor, body }) => ({ status: 201, body: await ledger.policyRules.create(principal.tenantId, actor, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/admin/policy-rules',
    summary: 'The policy rules of the tenant, oldest first',
    operationId: 'listPolicyRules',
    scope: 'ADMIN',
    responses: { 200: { description: 'The tenant\'s rules, oldest first', schema: 'PolicyRules' } },
    handle: async ({ ledger, principal }) => ({ status: 200, body: await ledger.policyRules.list(principal.tenantId) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/v1/admin/policy-rules/:ruleId',
    summary: 'Delete a policy rule, effective at once',
    operationId: 'deletePolicyRule',
    scope: 'ADMIN',
    responses: { 204: 'Deleted', 404: 'No such rule in the tenant' },
    handle: async ({ ledger, principal, actor, params }) => {
      await ledger.policyRules.delete(principal.tenantId, actor, params.ruleId!);
      return { status: 204 };
    },
  }),
];
