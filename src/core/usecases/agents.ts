// Agent-originated transactions: judged by the policy rules inside the write that posts them, held for a person when
// a rule says so, approved or rejected by someone else, rolled back once. Every step is an AGENT audit record.
import type { Deps } from '../context.js';
import { LedgerError, notFound } from '../errors.js';
import type { Actor } from '../audit.js';
import { toTransactionInput, fingerprint } from '../posting.js';
import type { AgentTransactionsQuery, PostTransactionBody } from '../schemas.js';
import { once, requestHash, type StoredResponse } from '../idempotency.js';
import { pageBySeq, type PageQuery } from '../paging.js';
import { CursorScope } from '../cursor.js';
import { RawJson } from '../json.js';
import type { Scope } from '../scopes.js';
import { uuidV7 } from '../ids.js';
import { agentTransactionView } from '../views.js';
import { AGENT_EXECUTE_ENDPOINT } from '../commands/agents.js';
import { renderAhead } from '../commands/posting.js';

/** The answer to a refused agent request: 422 POLICY_VIOLATION naming the rule. */
export const policyViolation = (refused: { ruleId: string; message: string }) => new LedgerError('POLICY_VIOLATION', refused.message, { extra: { ruleId: refused.ruleId } });

const auditRecordView = (r: { id: string; type: string; action: string; actorKeyId: string; occurredAt: string; payloadJson: string; hash: string; prevHash: string | null }) => ({
  id: r.id,
  type: r.type,
  action: r.action,
  actorKeyId: r.actorKeyId,
  occurredAt: r.occurredAt,
  payload: new RawJson(r.payloadJson),
  hash: r.hash,
  prevHash: r.prevHash,
});

export class AgentService {

  constructor(private readonly deps: Deps) {}

  async execute(tenantId: string, actor: Actor, rawKey: string, sessionId: string, key: string, body: PostTransactionBody): Promise<StoredResponse> {
    const input = toTransactionInput(body);
    const hash = requestHash(`${fingerprint(input)}\u0000${sessionId}`);
    const outcome = await once(this.deps.inFlight, { tenantId, endpoint: AGENT_EXECUTE_ENDPOINT, key, hash }, async () => {
      const rendered = renderAhead(input, uuidV7);
      const result = await this.deps.writer.run('executeAgentTransaction', { tenantId, actor, rawKey, sessionId, input, rendered, key, hash });
      if ('refused' in result) {
        throw policyViolation(result.refused);
      }
      return result;
    });
    return outcome;
  }

  /** Approving and rejecting are for people: a key whose own scopes list AGENTS_EXECUTE is refused (ADMIN may). */
  async decide(tenantId: string, actor: Actor, scopes: readonly Scope[], id: string, decision: 'APPROVE' | 'REJECT') {
    if (scopes.includes('AGENTS_EXECUTE')) throw new LedgerError('FORBIDDEN', 'An agent key (one with AGENTS_EXECUTE) cannot approve or reject.');
    return this.deps.writer.run('decideAgentTransaction', { tenantId, actor, id, decision, lines: await this.linesOf(tenantId, id) });
  }

  async rollback(tenantId: string, actor: Actor, id: string) {
    return this.deps.writer.run('rollbackAgentTransaction', { tenantId, actor, id, lines: await this.linesOf(tenantId, id) });
  }

  /** What approving or rolling back the transaction posts, read before the write is queued (see Command.weight). */
  private async linesOf(tenantId: string, id: string): Promise<number> {
    const lines = await this.deps.store.agentLineCount(tenantId, id);
    if (lines === undefined) throw notFound(`Agent transaction ${id}`);
    return lines;
  }

  async get(tenantId: string, id: string) {
    const record = await this.deps.store.agentTransaction(tenantId, id);
    if (!record) throw notFound(`Agent transaction ${id}`);
    return agentTransactionView(record);
  }

  list(tenantId: string, query: AgentTransactionsQuery) {
    const status = query.status ?? null;
    return pageBySeq(this.deps, new CursorScope(`agent-transactions:${tenantId}`, { status }), query, (before, limit) => this.deps.store.agentTransactionsPage(tenantId, status, before, limit), (a) => agentTransactionView(a));
  }

  audit(tenantId: string, query: PageQuery) {
    return pageBySeq(this.deps, new CursorScope(`agent-audit:${tenantId}`), query, (before, limit) => this.deps.store.agentAuditPage(tenantId, before, limit), (r) => auditRecordView(r));
  }
}
