// The SQL store's policy rules.
import type { PolicyRule } from '../../../core/policy.js';
import { part } from '../part.js';
import * as m from '../mappers.js';
import type { PolicyRuleReads, PolicyRuleWrites } from '../../../core/ports/policyRules.js';

export const policyRulesPart = part({
  async policyRules(tenantId: string): Promise<PolicyRule[]> {
    return (await this.s.policyRules.all({ tenantId })).map(m.toPolicyRule);
  },

  async insertPolicyRule(rule: PolicyRule): Promise<void> {
    await this.s.insertPolicyRule.run({
      tenantId: rule.tenantId,
      id: rule.id,
      type: rule.type,
      agentKeyPrefix: rule.agentKeyPrefix,
      params: JSON.stringify(rule.params),
      createdAt: rule.createdAt,
    });
  },

  async deletePolicyRule(tenantId: string, ruleId: string): Promise<boolean> {
    return (await this.s.deletePolicyRule.run({ tenantId, ruleId })) === 1;
  },
}) satisfies PolicyRuleReads & PolicyRuleWrites;
