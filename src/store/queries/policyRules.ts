// Policy rules: what a tenant's agents may do, in the order they were added.
import { param, type Preparer } from '../sql/statement.js';
import { query } from './query.js';

export function policyRulesStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    policyRules: p((q) => q.selectFrom('policy_rules').selectAll().where('tenant_id', '=', tenant).orderBy('seq', 'asc')),
    insertPolicyRule: p((q) =>
      q.insertInto('policy_rules').values({
        tenant_id: tenant,
        id: param('id'),
        type: param('type'),
        agent_key_prefix: param<string | null>('agentKeyPrefix'),
        params: param('params'),
        created_at: param('createdAt'),
      }),
    ),
    deletePolicyRule: p((q) => q.deleteFrom('policy_rules').where('tenant_id', '=', tenant).where('id', '=', param('ruleId'))),
  };
}
