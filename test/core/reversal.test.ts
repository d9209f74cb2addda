// A reversal's parts (issue 30): the original's lines read back exactly from its stored document, and the mirror
// check `ledger db check` makes of a reversal against its original.
import { describe, expect, it } from 'vitest';
import { inputOfDocument, reverseOf } from '../../src/core/reversal.js';
import { mirrorBreak } from '../../src/store/tools/checkReversals.js';
import { entryViewHead, lineText, transactionText } from '../../src/core/views.js';
import { parseJson } from '../../src/core/json.js';
import type { TransactionInput } from '../../src/core/types.js';

const AT = '2026-11-27T10:00:00.000Z';
const input: TransactionInput = {
  metadata: { order: '1001' },
  lines: [
    { accountId: 'a', entryType: 'DEBIT', asset: 'USD', amountMinor: 12550n, description: 'sale', details: { kind: 'FIAT', rail: 'PIX', bankReference: 'E2E' } },
    { accountId: 'b', entryType: 'CREDIT', asset: 'USD', amountMinor: 12550n, description: null, details: { kind: 'FIAT', rail: 'PIX', bankReference: null } },
    {
      accountId: 'c',
      entryType: 'DEBIT',
      asset: 'BRZ',
      amountMinor: 123456789012345678901234567n,
      description: null,
      details: { kind: 'ONCHAIN', chainId: 'SOLANA', txHash: 'sig', blockNumber: 123456789012345, walletAddress: 'w', tokenContract: 'm' },
    },
    {
      accountId: 'b',
      entryType: 'CREDIT',
      asset: 'BRZ',
      amountMinor: 123456789012345678901234567n,
      description: null,
      details: { kind: 'ONCHAIN', chainId: 'SOLANA', txHash: 'sig', blockNumber: 123456789012345, walletAddress: 'w', tokenContract: 'm' },
    },
  ],
};

/** The document a posting of the input stores, made by the functions the write uses. */
const documentOf = (id: string, posted: TransactionInput) =>
  transactionText(
    id,
    posted.metadata,
    posted.lines.map((line, i) => lineText(entryViewHead(line, `e${i}`, id), AT, AT, line.accountId)),
    AT,
    AT,
  );

describe('reversals', () => {
  it("reads a transaction's lines back from its document exactly: every digit, the rail's reference, the chain fields", () => {
    expect(inputOfDocument(documentOf('t1', input))).toEqual(input);
  });

  it('a reversal made from the document mirrors it, and the mirror check agrees; a line changed anyhow is named', () => {
    const original = parseJson(documentOf('t1', input)) as never;
    const reversalOf = (posted: TransactionInput) => parseJson(documentOf('r1', posted)) as never;
    const mirror = reverseOf(inputOfDocument(documentOf('t1', input)), 't1', { description: 'undo' });
    expect(mirrorBreak(original, reversalOf(mirror), 't1')).toBeNull();

    const on = (i: number, change: Partial<TransactionInput['lines'][number]>) => ({ ...mirror, lines: mirror.lines.map((l, j) => (j === i ? { ...l, ...change } : l)) });
    expect(mirrorBreak(original, reversalOf(on(2, { amountMinor: 1n })), 't1')).toMatch(/^line 2 moves \{"type":"ONCHAIN","amount":0\.000000000000000001,/);
    expect(mirrorBreak(original, reversalOf(on(0, { entryType: 'DEBIT' })), 't1')).toBe('line 0 is a DEBIT, as the original\'s is: it is not on the other side');
    expect(mirrorBreak(original, reversalOf(on(1, { accountId: 'z' })), 't1')).toBe("line 1 is on account z; the original's is on b");
    expect(mirrorBreak(original, reversalOf({ ...mirror, lines: mirror.lines.slice(0, 2) }), 't1')).toBe("it has 2 lines; the original has 4");
    expect(mirrorBreak(original, reversalOf({ ...mirror, metadata: {} }), 't1')).toBe('its metadata names null as the transaction it reverses');
  });
});
