// The list shapes every domain's port answers with: rows read as they are taken.
import type { ScanStop } from '../scan.js';

/**
 * Rows of a list in its order, up to the limit asked for, read from the database as they are taken: the caller reads
 * what fits its page and stops (core/paging.ts). Take them at once, with no other await in between: a synchronous
 * engine holds its connection until the iteration ends or is stopped.
 */
export type Rows<T> = AsyncIterable<T>;
/** The rows of a filtered list's page, and a ScanStop where its scan reached SCAN_ROWS_MAX first (core/scan.ts). */
export type FoundRows<T> = AsyncIterable<T | ScanStop>;
