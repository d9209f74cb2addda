// Policy rules (ADMIN): create with the fields its type needs, list, delete. Each change is audited.
import type { Deps } from '../context.js';
import type { Actor } from '../audit.js';
import type { CreatePolicyRuleBody } from '../schemas.js';
import { policyRuleView } from '../views.js';
import { paramsFor } from '../commands/policyRules.js';

export class PolicyRuleService {
  constructor(private readonly deps: Deps) {}

  async create(tenantId: string, actor: Actor, body: CreatePolicyRuleBody) {
    // Checked before the write too, so a bad body never waits for the writer.
    paramsFor(body);
    return this.deps.writer.run('createPolicyRule', { tenantId, actor, body });
  }

  async list(tenantId: string) {
    return (await this.deps.store.policyRules(tenantId)).map(policyRuleView);
  }

  delete(tenantId: string, actor: Actor, ruleId: string) {
    return this.deps.writer.run('deletePolicyRule', { tenantId, actor, ruleId });
  }
}
