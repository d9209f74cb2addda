// Newest-first lists paged by a signed keyset cursor: page N costs what page 1 costs.
import type { Deps } from './context.js';
import type { Page } from './ports.js';
import { PAGE_SIZE_DEFAULT } from './limits.js';

export interface PageQuery {
  limit?: number;
  cursor?: string;
}

const isSeq = (p: unknown): p is number => Number.isSafeInteger(p) && (p as number) > 0;

/** A list ordered by commit sequence; `scope` names the list so a cursor cannot be moved to another one. */
export function pageBySeq<T extends { seq: number }, V>(
  deps: Deps,
  scope: string,
  query: PageQuery,
  fetch: (before: number | null, limit: number) => Page<T>,
  view: (row: T) => V,
): { items: V[]; nextCursor: string | null } {
  const now = deps.clock.now().getTime();
  const before = query.cursor ? deps.cursors.decode(scope, query.cursor, now, isSeq) : null;
  const page = fetch(before, query.limit ?? PAGE_SIZE_DEFAULT);
  const last = page.rows[page.rows.length - 1];
  return { items: page.rows.map(view), nextCursor: page.more && last ? deps.cursors.encode(scope, last.seq, now) : null };
}
