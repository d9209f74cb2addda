// Idempotency keys, scoped to tenant and endpoint: a replay answers the original response, a different body under
// the same key is refused, and a second request while the first is still running gets 409.
import { createHash } from 'node:crypto';
import { LedgerError } from './errors.js';
import type { ReadStore, StoredIdempotency } from './ports.js';

export interface StoredResponse {
  status: number;
  body: string;
}

/** A map's entries in key order: what makes two maps of the same content one request. */
export const sortedEntries = (map: Record<string, string>): Array<[string, string]> => Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export const requestHash = (fingerprint: string): string => createHash('sha256').update(fingerprint).digest('hex');

const reused = () =>
  new LedgerError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request body; use a new key for a new request.', { at: 'idempotencyKey' });

/** The stored response for a replay of the same request, or undefined when the key is unused. */
export function replayOf(stored: StoredIdempotency | undefined, hash: string): StoredResponse | undefined {
  if (!stored) return undefined;
  if (stored.requestHash !== hash) throw reused();
  return { status: stored.status, body: stored.body };
}

/**
 * Inside the write, under the write lock: the answer stored under the key by a write that committed since the
 * request was checked (another process's, or an earlier group's). A write then answers that, or refuses a different
 * body, instead of storing the key twice.
 */
export async function storedReplay(tx: ReadStore, request: IdempotentRequest): Promise<StoredResponse | undefined> {
  return replayOf(await tx.idempotency(request.tenantId, request.endpoint, request.key), request.hash);
}

/** In-flight keys of this process. */
export class InFlightKeys {
  private readonly keys = new Set<string>();

  /** Runs the request under the key, or refuses with 409 while another request holds it. */
  hold<T>(tenantId: string, endpoint: string, key: string, run: () => Promise<T>): Promise<T> {
    return this.holdAll(tenantId, endpoint, [key], run);
  }

  /** Whether a request of this process holds the key now. */
  holds(tenantId: string, endpoint: string, key: string): boolean {
    return this.keys.has(`${tenantId}\u0000${endpoint}\u0000${key}`);
  }

  /** Runs the request under every one of the keys, or refuses with 409 while another request holds any. */
  async holdAll<T>(tenantId: string, endpoint: string, keys: readonly string[], run: () => Promise<T>): Promise<T> {
    const ids = keys.map((key) => `${tenantId}\u0000${endpoint}\u0000${key}`);
    if (ids.some((id) => this.keys.has(id))) {
      throw new LedgerError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still in progress; retry after it completes.');
    }
    for (const id of ids) this.keys.add(id);
    try {
      return await run();
    } finally {
      for (const id of ids) this.keys.delete(id);
    }
  }
}

/** One idempotent request: its tenant, endpoint, key and the hash of what it asks. */
export interface IdempotentRequest {
  tenantId: string;
  endpoint: string;
  key: string;
  hash: string;
}

/**
 * Runs a write at most once per key: while it runs the key is held in this process (409 for a second request). The
 * key itself is read once, by the write, under its lock (storedReplay), where it is exact across processes: a replay
 * answers the stored response, a different request under a used key is refused, and the write stores its response in
 * its own commit. So a command checks the key before anything else it checks.
 */
export function once(inFlight: InFlightKeys, request: IdempotentRequest, write: () => Promise<StoredResponse>): Promise<StoredResponse> {
  return inFlight.hold(request.tenantId, request.endpoint, request.key, write);
}
