// How the PostgreSQL store names what went wrong (src/store/postgres/connect.ts, asPgStoreError): a connection lost
// in any of the words pg uses is 503 UNAVAILABLE with nothing written, never a 500.
import { describe, expect, it } from 'vitest';
import { asPgStoreError } from '../../src/store/postgres/connect.js';
import { LedgerError } from '../../src/core/errors.js';

describe('PostgreSQL errors as the store names them', () => {
  it('a lost connection, in each of pg\'s words for it, is UNAVAILABLE', () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'Client has encountered a connection error and is not queryable',
      'Client was closed and is not queryable',
    ]) {
      const mapped = asPgStoreError(new Error(message));
      expect(mapped, message).toBeInstanceOf(LedgerError);
      expect((mapped as LedgerError).code, message).toBe('UNAVAILABLE');
    }
  });

  it('a network code or a shutting-down server is UNAVAILABLE; anything else is left as it is', () => {
    expect((asPgStoreError(Object.assign(new Error('x'), { code: 'ECONNRESET' })) as LedgerError).code).toBe('UNAVAILABLE');
    expect((asPgStoreError(Object.assign(new Error('x'), { code: '57P01' })) as LedgerError).code).toBe('UNAVAILABLE');
    const other = new Error('a bug');
    expect(asPgStoreError(other)).toBe(other);
  });
});
