// The event feed: a tenant's events in commit order, from the outbox the webhooks are sent from, paged
// (GET /api/v1/events) or followed (the stream, `ledger events`), and pruned after a retention time.
import type { Deps } from '../context.js';
import { invalid, LedgerError } from '../errors.js';
import { RawJson } from '../json.js';
import { cursorSeq, pageBySeq } from '../paging.js';
import { CursorScope } from '../cursor.js';
import type { EventType } from '../enums.js';
import { eventText, type OutboxEvent } from '../webhook.js';
import { EVENT_ID_CLOCK_SLACK_MS } from '../limits.js';

export interface EventsQuery {
  /** Start after this event (by id). */
  after?: string;
  cursor?: string;
  limit?: number;
  /** Only these kinds (all when absent). */
  type?: readonly EventType[];
}

/** What a cursor of the feed is sealed with: the tenant's feed, and the query it was read with (after, the kinds). */
const scopeOf = (tenantId: string, query: EventsQuery) => new CursorScope(`events:${tenantId}`, { after: query.after?.toLowerCase(), type: query.type });

const eventPruned = (what: string) =>
  new LedgerError('EVENT_PRUNED', `${what} was pruned (--event-retention): events after it are gone; read the current state again, then follow the events from the newest.`);

/** A UUIDv7 event id's time (its first 48 bits), or null for an id of another kind. */
function idTimeMs(id: string): number | null {
  const hex = id.replace(/-/g, '');
  return hex[12] === '7' ? Number.parseInt(hex.slice(0, 12), 16) : null;
}

/** The tenant's event feed: where a reader starts, pages, the follow loop, and pruning. */
export class EventService {
  constructor(private readonly deps: Deps) {}

  /**
   * Where a reader starts: after an event of the tenant's (400 for an id that is none of its events, 410 for one that
   * was pruned), or when no event is named, before the oldest event kept.
   */
  async position(tenantId: string, after: string | undefined, field = 'after'): Promise<number> {
    const pruned = await this.deps.store.eventsPruned(tenantId);
    if (after === undefined) return pruned?.seq ?? 0;
    const id = after.toLowerCase();
    const seq = await this.deps.store.eventSeq(tenantId, id);
    if (seq !== undefined) return seq;
    const idTime = idTimeMs(id);
    if (pruned && idTime !== null && idTime <= Date.parse(pruned.at) + EVENT_ID_CLOCK_SLACK_MS) throw eventPruned(`Event ${id}`);
    throw invalid(`${field}: ${id} is not an event of this tenant.`, [{ path: field, message: 'is not an event of this tenant' }]);
  }

  /** Refuses a position before the last pruned event: the events between are gone (410), never a silent gap. */
  async assertKept(tenantId: string, position: number, what: string): Promise<void> {
    const pruned = await this.deps.store.eventsPruned(tenantId);
    if (pruned && position < pruned.seq) throw eventPruned(what);
  }

  /**
   * A page of the tenant's events, oldest first; following `nextCursor` to null reads everything committed meanwhile. A
   * cursor goes with the query it came from (`after` included): it holds the position, `after` only names the query.
   */
  async list(tenantId: string, query: EventsQuery) {
    const types = query.type ?? null;
    const scope = scopeOf(tenantId, query);
    let start: number;
    if (query.cursor !== undefined) {
      start = cursorSeq(this.deps, scope, query.cursor);
      await this.assertKept(tenantId, start, 'An event before this cursor');
    } else {
      start = await this.position(tenantId, query.after);
    }
    const page = await pageBySeq(
      this.deps,
      scope,
      { limit: query.limit },
      (position, limit) => this.deps.store.eventsPage(tenantId, position ?? 0, limit, types),
      (event: OutboxEvent & { seq: number }) => new RawJson(eventText(event)),
      start,
    );
    // Pruned while the page was read: it may have started past a gap.
    await this.assertKept(tenantId, start, 'An event before this page');
    return page;
  }

  /**
   * The tenant's events after a position, oldest first, read a batch at a time as they are taken; with `follow`, then
   * every new event as it commits (noticed through the store's change version every `pollMs`) until `signal` aborts.
   * A position that pruning passes meanwhile ends it with 410, never a silent gap.
   */
  async *follow(
    tenantId: string,
    start: number,
    options: { types?: readonly string[] | null; follow?: boolean; signal?: AbortSignal; pollMs?: number } = {},
  ): AsyncGenerator<OutboxEvent> {
    const { types = null, follow = false, signal, pollMs = 100 } = options;
    let position = start;
    let version: string | null = null;
    while (!signal?.aborted) {
      // Read before the events: a commit after it moves the version, and is read on the next turn.
      const seen = follow ? await this.deps.store.changeVersion() : null;
      await this.assertKept(tenantId, position, 'An event before this position');
      let read = 0;
      for await (const event of this.deps.store.eventsPage(tenantId, position, FOLLOW_BATCH, types)) {
        yield event;
        position = event.seq;
        read++;
      }
      if (read === FOLLOW_BATCH) continue;
      if (!follow) return;
      version = seen;
      while (!signal?.aborted && (await this.deps.store.changeVersion()) === version) await sleep(pollMs, signal);
    }
  }

  /** Prunes one batch of the tenant's events created before `before`; answers how many went. */
  prune(tenantId: string, before: string) {
    return this.deps.writer.run('pruneEvents', { tenantId, before });
  }
}

const FOLLOW_BATCH = 200;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
