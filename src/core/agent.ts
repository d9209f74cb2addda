// Agent-originated transactions: their record (held, posted, rejected, rolled back) and its API shape.
import type { LineInput, TransactionInput } from './types.js';
import type { AgentStatus } from './enums.js';

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

/** The input as stored: bigint amounts as decimal digits. */
export const inputToJson = (input: TransactionInput): string =>
  JSON.stringify({ ...input, lines: input.lines.map((l) => ({ ...l, amountMinor: l.amountMinor.toString() })) });

export function inputFromJson(text: string): TransactionInput {
  const parsed = JSON.parse(text) as { lines: Array<Omit<LineInput, 'amountMinor'> & { amountMinor: string }>; metadata: Record<string, string>; effectiveAt?: number };
  const input: TransactionInput = { metadata: parsed.metadata, lines: parsed.lines.map((l) => ({ ...l, amountMinor: BigInt(l.amountMinor) })) };
  return parsed.effectiveAt === undefined ? input : { ...input, effectiveAt: parsed.effectiveAt };
}

