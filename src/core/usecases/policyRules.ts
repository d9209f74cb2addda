// Policy rules (ADMIN): create with the fields its type needs, list, delete. Each change is audited.
import type { Deps } from '../context.js';
import type { Actor } from '../audit.js';
import type { CreatePolicyRuleBody } from '../schemas.js';
import { policyRuleView } from '../views.js';
import { paramsFor } from '../commands/policyRules.js';

export const createPolicyRule = async (deps: Deps, tenantId: string, actor: Actor, body: CreatePolicyRuleBody) => {
  // Checked before the write too, so a bad body never waits for the writer.
  paramsFor(body);
  return deps.writer.run('createPolicyRule', { tenantId, actor, body });
};

export const listPolicyRules = async (deps: Deps, tenantId: string) => (await deps.store.policyRules(tenantId)).map(policyRuleView);

export const deletePolicyRule = (deps: Deps, tenantId: string, actor: Actor, ruleId: string) =>
  deps.writer.run('deletePolicyRule', { tenantId, actor, ruleId });
