// Walks a `{items, nextCursor}` list to its end, checking every page's shape on the way.
import { expect } from 'vitest';
import type { Client, HttpResult } from './server.js';

export interface Walked<T> {
  items: T[];
  pages: number;
}

export interface WalkOptions {
  /** Sent as `limit`; every page must then hold at most this many items. */
  limit?: number;
  maxPages?: number;
  /** The page's list field: `items`, except in the entries listing (`entries`). */
  itemsKey?: string;
  /** Keys a page has besides the list and `nextCursor` (the entries listing: `accountId`); none by default. */
  extraKeys?: string[];
  /** Called with each page's answer, after its shape was checked and before the next page is asked for. */
  onPage?: (res: HttpResult, index: number) => void | Promise<void>;
}

/**
 * Follows `nextCursor` from `path` (which may already carry a query) until it is null. Every page must be 200 with
 * exactly the keys `{items, nextCursor}` (or `itemsKey` and `extraKeys`), with at most `limit` items when a limit is
 * given; a cursor never repeats.
 */
export async function walkPages<T = any>(c: Client, path: string, options: WalkOptions = {}): Promise<Walked<T>> {
  const items: T[] = [];
  const seen = new Set<string>();
  const itemsKey = options.itemsKey ?? 'items';
  const keys = [...(options.extraKeys ?? []), itemsKey, 'nextCursor'].sort();
  const join = path.includes('?') ? '&' : '?';
  const base = options.limit === undefined ? path : `${path}${join}limit=${options.limit}`;
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = base.includes('?') ? '&' : '?';
    const res = await c.get(cursor === null ? base : `${base}${sep}cursor=${encodeURIComponent(cursor)}`);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort(), res.text).toEqual(keys);
    expect(Array.isArray(res.body[itemsKey]), res.text).toBe(true);
    if (options.limit !== undefined) expect(res.body[itemsKey].length).toBeLessThanOrEqual(options.limit);
    items.push(...(res.body[itemsKey] as T[]));
    if (options.onPage) await options.onPage(res, pages);
    pages++;
    cursor = res.body.nextCursor as string | null;
    if (cursor !== null) {
      expect(typeof cursor).toBe('string');
      expect(seen.has(cursor), `cursor repeated: ${cursor}`).toBe(false);
      seen.add(cursor);
    }
    if (pages > (options.maxPages ?? 10_000)) throw new Error(`more than ${options.maxPages ?? 10_000} pages at ${path}`);
  } while (cursor !== null);
  return { items, pages };
}
