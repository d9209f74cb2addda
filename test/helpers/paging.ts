// Walks a `{items, nextCursor}` list to its end, checking every page's shape on the way.
import { expect } from 'vitest';
import type { Client } from './server.js';

export interface Walked<T> {
  items: T[];
  pages: number;
}

/**
 * Follows `nextCursor` from `path` (which may already carry a query) until it is null. Every page must be 200
 * `{items, nextCursor}` with at most `limit` items when a limit is given; a cursor never repeats.
 */
export async function walkPages<T = any>(c: Client, path: string, options: { limit?: number; maxPages?: number } = {}): Promise<Walked<T>> {
  const items: T[] = [];
  const seen = new Set<string>();
  const join = path.includes('?') ? '&' : '?';
  const base = options.limit === undefined ? path : `${path}${join}limit=${options.limit}`;
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = base.includes('?') ? '&' : '?';
    const res = await c.get(cursor === null ? base : `${base}${sep}cursor=${encodeURIComponent(cursor)}`);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort(), res.text).toEqual(['items', 'nextCursor']);
    expect(Array.isArray(res.body.items), res.text).toBe(true);
    if (options.limit !== undefined) expect(res.body.items.length).toBeLessThanOrEqual(options.limit);
    items.push(...(res.body.items as T[]));
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
