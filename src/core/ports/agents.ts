// What the store gives the agents domain: agent transactions, their debits toward limits, and the AGENT audit records.
import type { AgentTransaction } from '../agent.js';
import type { AgentStatus } from '../enums.js';
import type { StoredAuditRecord } from './audit.js';
import type { Rows } from './rows.js';

/** ReadStore's part for agent transactions. */
export interface AgentReads {
  agentTransaction(tenantId: string, id: string): Promise<AgentTransaction | undefined>;
  /** An agent transaction's number of lines (what approving or rolling it back posts), or undefined when there is none. */
  agentLineCount(tenantId: string, id: string): Promise<number | undefined>;
  agentTransactionsPage(tenantId: string, status: AgentStatus | null, before: number | null, limit: number): Rows<AgentTransaction>;
  /** Debit sums (asset to minor units, as stored) of a key's agent transactions that count toward limits: in a session, or since an instant. */
  agentDebits(tenantId: string, keyId: string, scope: { sessionId: string } | { since: string }): Promise<Array<Record<string, string>>>;
  /** The tenant's AGENT audit records, newest first. */
  agentAuditPage(tenantId: string, before: number | null, limit: number): Rows<StoredAuditRecord>;
}

/** WriteTx's part for agent transactions. */
export interface AgentWrites {
  insertAgentTransaction(record: Omit<AgentTransaction, 'seq'>, debits: Record<string, string>): Promise<void>;
  /** Moves a record on (approve, reject, roll back); false when its status was no longer `from`. */
  decideAgentTransaction(
    tenantId: string,
    id: string,
    from: AgentStatus,
    to: { status: AgentStatus; decidedAt: string | null; decidedBy: string | null; reversalTransactionId: string | null },
  ): Promise<boolean>;
}
