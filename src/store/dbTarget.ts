// What a `--db` value names: a SQLite file or a PostgreSQL URL, and how messages show it (a URL without its secrets).
import { invalid } from '../core/errors.js';
import { redactedUrl } from './postgres/url.js';

/** Which engine a `--db` value names: a file means SQLite; a postgres:// or postgresql:// URL means PostgreSQL. */
export type DbTarget = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

const POSTGRES_SCHEMES = ['postgres:', 'postgresql:'];

/**
 * Reads a `--db` value; any other URL scheme is refused rather than taken for a file name, and so is a PostgreSQL URL
 * mistyped (`postgres:/…`, a space or a quote before it), without echoing it: as a file name it would be printed, and
 * its password with it.
 */
export function parseDbTarget(value: string): DbTarget {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(value)?.[1];
  if (scheme === undefined) {
    if (value.trim() === '') throw invalid('--db is empty: give a file path (SQLite) or a postgres:// URL.');
    if (/postgres(ql)?:/i.test(value)) {
      throw invalid('--db reads like a PostgreSQL URL but is not one (not shown: it may hold a password): write it postgres://… or postgresql://…, with nothing before it.');
    }
    return { engine: 'sqlite', path: value };
  }
  if (POSTGRES_SCHEMES.includes(`${scheme.toLowerCase()}:`)) return { engine: 'postgres', url: value };
  throw invalid(`--db ${scheme}:// is not a database this ledger runs on: give a file path (SQLite) or a postgres:// URL.`);
}

/** A `--db` value as messages and logs show it: a file's path, or a URL without its secrets (postgres/url.ts). */
export const shownDb = (target: DbTarget): string => (target.engine === 'sqlite' ? target.path : redactedUrl(target.url));
