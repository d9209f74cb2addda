// What the store gives the policy rules domain: each tenant's rules.
import type { PolicyRule } from '../policy.js';

/** ReadStore's part for policy rules. */
export interface PolicyRuleReads {
  /** The tenant's rules, oldest first. */
  policyRules(tenantId: string): Promise<PolicyRule[]>;
}

/** WriteTx's part for policy rules. */
export interface PolicyRuleWrites {
  insertPolicyRule(rule: PolicyRule): Promise<void>;
  deletePolicyRule(tenantId: string, ruleId: string): Promise<boolean>;
}
