// What a database refusal of a request's own data answers, the same on every engine; 503 is kept for the machine's
// own conditions (a lock held elsewhere, a lost connection, a full disk).
import { LedgerError } from '../core/errors.js';

/**
 * - `value`: a value the database cannot take (a data exception, a NOT NULL or CHECK constraint): 400.
 * - `conflict`: a row that clashes with one the database holds (a unique key, a reference): 409.
 */
export type RefusalKind = 'value' | 'conflict';

export function refusedByDatabase(kind: RefusalKind, engine: string, reason: string): LedgerError {
  const why = `${engine}: ${reason}`;
  return kind === 'value'
    ? new LedgerError('VALIDATION_FAILED', `The database refused a value of this request (${why}); nothing was written.`)
    : new LedgerError('CONFLICT', `The request conflicts with what the database holds (${why}); nothing was written.`);
}
