// The SQL store's agent transactions.
import type { Rows, StoredAuditRecord } from '../../../core/ports.js';
import { inputToJson, type AgentTransaction } from '../../../core/agent.js';
import { part, SEQ_MAX, lazy } from '../part.js';
import * as m from '../mappers.js';
import type { AgentStatus } from '../../../core/enums.js';
import type { AgentReads, AgentWrites } from '../../../core/ports/agents.js';

export const agentsPart = part({
  async agentTransaction(tenantId: string, id: string): Promise<AgentTransaction | undefined> {
    const r = await this.s.agentTransaction.get({ tenantId, id });
    return r && m.toAgentTransaction(r);
  },

  async agentLineCount(tenantId: string, id: string): Promise<number | undefined> {
    const r = await this.s.agentLineCount.get({ tenantId, id });
    return r && Number(r.line_count);
  },

  agentTransactionsPage(tenantId: string, status: AgentStatus | null, before: number | null, limit: number): Rows<AgentTransaction> {
    const window = { tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit };
    const rows = status ? this.s.agentTransactionsPageByStatus.iterate({ ...window, status }) : this.s.agentTransactionsPage.iterate(window);
    return lazy(rows, m.toAgentTransaction);
  },

  async agentDebits(tenantId: string, keyId: string, scope: { sessionId: string } | { since: string }): Promise<Array<Record<string, string>>> {
    const rows =
      'sessionId' in scope
        ? (await this.s.agentDebitsOfSession.all({ tenantId, keyId, sessionId: scope.sessionId }))
        : (await this.s.agentDebitsSince.all({ tenantId, keyId, since: scope.since }));
    return rows.map((r) => JSON.parse(r.debits) as Record<string, string>);
  },

  agentAuditPage(tenantId: string, before: number | null, limit: number): Rows<StoredAuditRecord> {
    return lazy(this.s.agentAuditPage.iterate({ tenantId, before: before === null ? SEQ_MAX : BigInt(before), limit }), m.toStoredAudit);
  },

  async insertAgentTransaction(record: Omit<AgentTransaction, 'seq'>, debits: Record<string, string>): Promise<void> {
    await this.s.insertAgentTransaction.run({
      tenantId: record.tenantId,
      id: record.id,
      status: record.status,
      sessionId: record.sessionId,
      actorKeyId: record.actorKeyId,
      input: inputToJson(record.input),
      lineCount: BigInt(record.input.lines.length),
      debits: JSON.stringify(debits),
      createdAt: record.createdAt,
      decidedAt: record.decidedAt,
      decidedBy: record.decidedBy,
      reversalTransactionId: record.reversalTransactionId,
    });
  },

  async decideAgentTransaction(
    tenantId: string,
    id: string,
    from: AgentStatus,
    to: { status: AgentStatus; decidedAt: string | null; decidedBy: string | null; reversalTransactionId: string | null },
  ): Promise<boolean> {
    return (await this.s.decideAgentTransaction.run({ tenantId, id, from, to: to.status, decidedAt: to.decidedAt, decidedBy: to.decidedBy, reversalTransactionId: to.reversalTransactionId })) === 1;
  },
}) satisfies AgentReads & AgentWrites;
