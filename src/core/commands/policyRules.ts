// What runs inside a write group for an agent's policy rules: creating and deleting one.
import type { WriteContext } from '../ports.js';
import { invalid, notFound } from '../errors.js';
import { appendAudit, type Actor } from '../audit.js';
import type { CreatePolicyRuleBody } from '../schemas.js';
import { paramsOfType, type PolicyParams, type PolicyRule } from '../policy.js';
import { policyRuleView } from '../views.js';

const PARAM_FIELDS = ['amount', 'debitAccountId', 'creditAccountId', 'tokens', 'chains'] as const;

/** The resolved parameters of a rule: every field its type needs, and none it does not (400 naming the field). */
export function paramsFor(body: CreatePolicyRuleBody): PolicyParams {
  const needed = paramsOfType[body.type];
  const missing = needed.filter((f) => body[f] === undefined);
  if (missing.length > 0) {
    throw invalid(`Invalid request body: ${body.type} needs ${missing.join(' and ')}.`, missing.map((path) => ({ path, message: `is required for ${body.type}` })));
  }
  const extra = PARAM_FIELDS.filter((f) => body[f] !== undefined && !needed.includes(f));
  if (extra.length > 0) {
    throw invalid(`Invalid request body: ${extra.join(' and ')} does not apply to ${body.type}.`, extra.map((path) => ({ path, message: `does not apply to ${body.type}` })));
  }
  return Object.fromEntries(needed.map((f) => [f, body[f]])) as PolicyParams;
}

export async function createPolicyRuleCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; body: CreatePolicyRuleBody }) {
  const { tx, ids, commitClock } = ctx;
  const at = commitClock.next();
  const rule: PolicyRule = {
    id: ids.next(),
    tenantId: args.tenantId,
    type: args.body.type,
    agentKeyPrefix: args.body.agentKeyPrefix ?? null,
    params: paramsFor(args.body),
    createdAt: at,
  };
  await tx.insertPolicyRule(rule);
  await appendAudit(tx, ids, args.tenantId, args.actor, 'CREATE_POLICY_RULE', at, { ruleId: rule.id, type: rule.type, agentKeyPrefix: rule.agentKeyPrefix, params: rule.params });
  return policyRuleView(rule);
}

export async function deletePolicyRuleCommand(ctx: WriteContext, args: { tenantId: string; actor: Actor; ruleId: string }): Promise<void> {
  const { tx, ids, commitClock } = ctx;
  if (!await tx.deletePolicyRule(args.tenantId, args.ruleId)) throw notFound(`Policy rule ${args.ruleId}`);
  await appendAudit(tx, ids, args.tenantId, args.actor, 'DELETE_POLICY_RULE', commitClock.next(), { ruleId: args.ruleId });
}
