// Agent-originated transactions: their record (held, posted, rejected, rolled back) and its API shape.
import type { LineInput, TransactionInput } from './types.js';
import { requestedLineView } from './views.js';
import type { Out, agentTransaction as agentTransactionOut } from './responses.js';

export const agentStatuses = ['POSTED', 'PENDING_APPROVAL', 'REJECTED', 'ROLLED_BACK'] as const;
export type AgentStatus = (typeof agentStatuses)[number];

export interface AgentTransaction {
  id: string;
  tenantId: string;
  seq: number;
  status: AgentStatus;
  sessionId: string;
  actorKeyId: string;
  input: TransactionInput;
  createdAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  reversalTransactionId: string | null;
}


export const agentTransactionView = (a: Omit<AgentTransaction, 'seq'>): Out<typeof agentTransactionOut> => ({
  id: a.id,
  status: a.status,
  sessionId: a.sessionId,
  actorKeyId: a.actorKeyId,
  lines: a.input.lines.map(requestedLineView),
  metadata: a.input.metadata,
  createdAt: a.createdAt,
  decidedAt: a.decidedAt,
  reversalTransactionId: a.reversalTransactionId,
});

/** The input as stored: bigint amounts as decimal digits. */
export const inputToJson = (input: TransactionInput): string =>
  JSON.stringify({ ...input, lines: input.lines.map((l) => ({ ...l, amountMinor: l.amountMinor.toString() })) });

export function inputFromJson(text: string): TransactionInput {
  const parsed = JSON.parse(text) as { lines: Array<Omit<LineInput, 'amountMinor'> & { amountMinor: string }>; metadata: Record<string, string> };
  return { metadata: parsed.metadata, lines: parsed.lines.map((l) => ({ ...l, amountMinor: BigInt(l.amountMinor) })) };
}

