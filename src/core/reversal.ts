// A reversal: the exact mirror of a posted transaction (every line on the other side, same account, amount and
// monetary details), linked to it by `reversesTransactionId` in its metadata and by the one reversal record.
import { parseJson, type JsonNumber } from './json.js';
import { toTransactionInput } from './posting.js';
import type { PostTransactionBody } from './schemas.js';
import type { TransactionInput } from './types.js';
import { REVERSES_KEY } from './enums.js';

/** What a reversal may say of itself: metadata of its own, and a description for every line (else each keeps its own). */
export interface ReversalNote {
  metadata?: Record<string, string>;
  description?: string | null;
  /** The instant the reversal belongs to (ms); absent: its own commit's. */
  effectiveAt?: number;
}

/** The exact reverse: every line on the other side, with the given description if any, and the link in its metadata. */
export const reverseOf = (input: TransactionInput, transactionId: string, note: ReversalNote = {}): TransactionInput => ({
  metadata: { ...note.metadata, [REVERSES_KEY]: transactionId },
  lines: input.lines.map((l) => ({
    ...l,
    entryType: l.entryType === 'DEBIT' ? 'CREDIT' : 'DEBIT',
    description: note.description ?? l.description,
  })),
  // Its own instant, or its commit's: never the original's.
  ...(note.effectiveAt === undefined ? {} : { effectiveAt: note.effectiveAt }),
});

type Monetary = PostTransactionBody['lines'][number]['monetaryEntry'];

/** A stored transaction document's line, as the API shows it (core/views.ts, lineText): its numbers as read. */
interface DocumentLine {
  accountId: string;
  type: 'DEBIT' | 'CREDIT';
  monetary: Omit<Monetary, 'blockNumber'> & { blockNumber?: JsonNumber };
  description?: string;
}

const monetaryOf = (m: DocumentLine['monetary']): Monetary => (m.type === 'ONCHAIN' ? ({ ...m, blockNumber: Number(m.blockNumber!.text) } as Monetary) : (m as Monetary));

/**
 * A posted transaction as a posting's input, read from its stored document (amounts read exactly: every digit of a
 * document's number is kept). The document is written once, in the commit that posts the transaction, and never changes.
 */
export function inputOfDocument(document: string): TransactionInput {
  const parsed = parseJson(document) as { metadata: Record<string, string>; lines: DocumentLine[] };
  return toTransactionInput({
    metadata: parsed.metadata,
    lines: parsed.lines.map((l) => ({ accountId: l.accountId, entryType: l.type, monetaryEntry: monetaryOf(l.monetary), description: l.description ?? null })),
  });
}
