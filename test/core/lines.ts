// A posting line as core reads it (amounts already in minor units): the unit tests' one builder.
import type { LineInput } from '../../src/core/types.js';

/** A USD line on the ACH rail, 1.00 unless told. */
export const usdLine = (accountId: string, entryType: 'DEBIT' | 'CREDIT', amountMinor = 100n, extra: Partial<LineInput> = {}): LineInput => ({
  accountId,
  entryType,
  asset: 'USD',
  amountMinor,
  description: null,
  details: { kind: 'FIAT', rail: 'ACH', bankReference: null },
  ...extra,
});
