// Newest-first lists paged by a signed keyset cursor: page N costs what page 1 costs, and no answer passes its size cap.
import type { Deps } from './context.js';
import type { FoundRows } from './ports.js';
import { ScanStop } from './scan.js';
import { ANSWER_SIZE_MAX_BYTES, PAGE_ENVELOPE_BYTES, PAGE_SIZE_DEFAULT } from './limits.js';
import { RawJson, toJsonText } from './json.js';
import type { CursorScope } from './cursor.js';

/** An item of a page: rendered once (to measure it), written as that text, and still readable as its view. */
export class Rendered<V> extends RawJson {
  constructor(
    text: string,
    readonly value: V,
  ) {
    super(text);
  }
}

export interface PageQuery {
  limit?: number;
  cursor?: string;
}

const isSeq = (p: unknown): p is number => Number.isSafeInteger(p) && (p as number) > 0;

/**
 * Takes rendered items while they fit one answer: the first always (no single item is larger than the cap), the next
 * only while the sum stays within ANSWER_SIZE_MAX_BYTES. Returns how many fit.
 */
export function countWithinAnswer(texts: readonly string[]): number {
  let bytes = PAGE_ENVELOPE_BYTES;
  for (let i = 0; i < texts.length; i++) {
    bytes += Buffer.byteLength(texts[i]!) + 1;
    if (i > 0 && bytes > ANSWER_SIZE_MAX_BYTES) return i;
  }
  return texts.length;
}

/** The position a cursor of the list holds: the sequence of the last item its page gave. */
export const cursorSeq = (deps: Deps, scope: CursorScope, cursor: string): number => deps.cursors.decode(scope, cursor, deps.clock.now().getTime(), isSeq);

/**
 * A list ordered by commit sequence; `scope` names the list and its query, so a cursor cannot be moved to another
 * list, nor to the same list filtered otherwise. Rows are
 * rendered as they are read, and the page ends early, before the row that would pass the answer cap, with a cursor
 * that continues exactly there; the rows after it are never read. `fetch` reads from a position (the last sequence
 * of the page before; null for the first page, or `start`), in the list's own order: newest first for most lists,
 * oldest first for the event feed. A filtered list's page may end sooner, where its scan reached SCAN_ROWS_MAX rows
 * (a ScanStop): with fewer items than `limit`, or none, and a cursor that continues the scan below where it stopped.
 */
export async function pageBySeq<T extends { seq: number }, V>(
  deps: Deps,
  scope: CursorScope,
  query: PageQuery,
  fetch: (position: number | null, limit: number) => FoundRows<T>,
  view: (row: T) => V,
  start: number | null = null,
): Promise<{ items: Array<Rendered<V>>; nextCursor: string | null }> {
  const now = deps.clock.now().getTime();
  const position = query.cursor ? cursorSeq(deps, scope, query.cursor) : start;
  const limit = query.limit ?? PAGE_SIZE_DEFAULT;
  const items: Array<Rendered<V>> = [];
  let bytes = PAGE_ENVELOPE_BYTES;
  let lastSeq = 0;
  let more = false;
  for await (const row of fetch(position, limit + 1)) {
    // A filtered list's scan stopped at its bound (core/scan.ts): the page ends, and the next continues below.
    if (row instanceof ScanStop) {
      more = true;
      lastSeq = row.seq;
      break;
    }
    if (items.length === limit) {
      more = true;
      break;
    }
    const rendered = view(row);
    const text = rendered instanceof RawJson ? rendered.text : toJsonText(rendered);
    bytes += Buffer.byteLength(text) + 1;
    if (items.length > 0 && bytes > ANSWER_SIZE_MAX_BYTES) {
      more = true;
      break;
    }
    items.push(new Rendered(text, rendered));
    lastSeq = row.seq;
  }
  return { items, nextCursor: more ? deps.cursors.encode(scope, lastSeq, now) : null };
}
