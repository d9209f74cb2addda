// Posting rules: exact amounts per asset, and debits equal credits for every fiat currency and every token.
import { invalid, LedgerError, assert } from './errors.js';
import { formatMinor, parseAmount, type Asset } from './money.js';
import type { PostTransactionBody } from './schemas.js';
import type { LineInput, TransactionInput } from './types.js';
import { sortedEntries } from './idempotency.js';
import { EFFECTIVE_AT_AHEAD_MAX_MS } from './limits.js';
import { toIso } from './time.js';

/** Converts validated request lines to exact minor units; a 400 names the first line whose amount does not fit its asset. */
export function toTransactionInput(body: PostTransactionBody): TransactionInput {
  const lines = body.lines.map((line, index): LineInput => {
    const m = line.monetaryEntry;
    const asset: Asset = m.type === 'FIAT' ? m.currency : m.token;
    const amount = parseAmount(m.amount, asset);
    if (!amount.ok) {
      const path = `lines.${index}.monetaryEntry.amount`;
      throw invalid(`Invalid request body: ${path} ${amount.message}.`, [{ path, message: amount.message }]);
    }
    return {
      accountId: line.accountId,
      entryType: line.entryType,
      asset,
      amountMinor: amount.minor,
      description: line.description ?? null,
      details:
        m.type === 'FIAT'
          ? { kind: 'FIAT', rail: m.rail, bankReference: m.bankReference ?? null }
          : {
              kind: 'ONCHAIN',
              chainId: m.chainId,
              txHash: m.txHash,
              blockNumber: m.blockNumber,
              walletAddress: m.walletAddress,
              tokenContract: m.tokenContract,
            },
    };
  });
  return { lines, metadata: body.metadata ?? {}, ...(body.effectiveAt === undefined ? {} : { effectiveAt: body.effectiveAt }) };
}

/** Signed effect of a line on its account: debits add, credits subtract (debits minus credits). */
export const signedAmount = (line: Pick<LineInput, 'entryType' | 'amountMinor'>): bigint =>
  line.entryType === 'DEBIT' ? line.amountMinor : -line.amountMinor;

/** Throws 422 UNBALANCED unless, per asset, the debit sum equals the credit sum. */
export function assertBalanced(lines: readonly LineInput[]): void {
  const net = new Map<Asset, bigint>();
  for (const line of lines) {
    assert(line.amountMinor > 0n, 'line amounts are positive');
    net.set(line.asset, (net.get(line.asset) ?? 0n) + signedAmount(line));
  }
  const off = [...net].filter(([, sum]) => sum !== 0n);
  if (off.length > 0) {
    const list = off.map(([asset, sum]) => `${asset} debits ${sum > 0n ? 'exceed' : 'fall short of'} credits by ${formatMinor(sum < 0n ? -sum : sum, asset)}`);
    throw new LedgerError('UNBALANCED', `The transaction is not balanced: ${list.join('; ')}.`, {
      details: off.map(([asset]) => ({ path: 'lines', message: `${asset} does not balance` })),
    });
  }
}

/** What makes two requests the same request: amounts compare by value ("2.5" and 2.50 are equal), metadata by content. */
export const fingerprint = (input: TransactionInput): string =>
  JSON.stringify([
    sortedEntries(input.metadata),
    input.lines.map((l) => [l.accountId, l.entryType, l.asset, l.amountMinor.toString(), l.description, l.details]),
    // Only when given: a body without it keeps the fingerprint it had before effective dates.
    ...(input.effectiveAt === undefined ? [] : [input.effectiveAt]),
  ]);

/**
 * The instant a posting belongs to, settled at its commit: the commit's without one; one at most
 * EFFECTIVE_AT_AHEAD_MAX_MS past it is the commit's, as clocks disagree; later is 400 at `effectiveAt`.
 */
export function effectiveAtOf(asked: number | undefined, createdAt: string): string {
  if (asked === undefined) return createdAt;
  const commit = Date.parse(createdAt);
  if (asked <= commit) return toIso(asked);
  if (asked - commit <= EFFECTIVE_AT_AHEAD_MAX_MS) return createdAt;
  const message = `must not be later than the commit time (${createdAt}) by more than ${EFFECTIVE_AT_AHEAD_MAX_MS / 60_000} minutes: a posting is not dated in the future`;
  throw invalid(`Invalid request body: effectiveAt ${message}.`, [{ path: 'effectiveAt', message }]);
}
