// Live event streams (GET /api/v1/events/stream, SSE): one watcher of commits serves every stream of the process,
// each tenant's streams share one tail of its newest events, and a stream behind the tail reads the database itself.
import type { Ledger } from '../core/ledger.js';
import { eventText, type OutboxEvent } from '../core/webhook.js';
import type { Logger } from './errors.js';
import { StreamSlots, type StreamCaps } from './streamSlots.js';
import { EVENT_STREAMS_WOKEN_PER_TURN_MAX, EVENT_STREAM_BUSY_AFTER_POLLS, EVENT_STREAM_HEARTBEAT_MS, EVENT_STREAM_POLL_BUSY_MS, EVENT_STREAM_POLL_IDLE_MS, EVENT_STREAM_READ_BATCH, EVENT_STREAM_RETRY_MS, EVENT_STREAM_STALL_MS, EVENT_STREAM_WRITE_BYTES_MAX, EVENT_TAIL_BYTES_MAX, EVENT_TAIL_EVENTS_MAX } from '../core/limits.js';

/** An event as a stream sends it: `id`, `event` and `data` lines (the JSON has no line breaks; any would be split). */
export const sseFrame = (event: OutboxEvent): string => {
  const data = eventText(event).split('\n').join('\ndata: ');
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${data}\n\n`;
};

interface TailEvent {
  seq: number;
  type: string;
  /** Encoded once, shared by every stream of the tenant (a stream copies the frames it sends into one write). */
  frame: Buffer;
}

// Memory is bounded: the tails by count and bytes, a stream by the answer's buffer (a client that takes nothing for
// the stall time is dropped, and resumes by id).
/** A tenant's newest events, shared by its streams: it holds every event after `baseSeq`, up to `lastSeq`. */
class Tail {
  readonly events: TailEvent[] = [];
  bytes = 0;
  streams = 0;
  readonly waiters = new Set<() => void>();

  constructor(
    readonly tenantId: string,
    public baseSeq: number,
    public lastSeq: number,
  ) {}

  /** The index of the first event after a position. */
  indexAfter(position: number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.seq <= position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  append(event: OutboxEvent): void {
    const frame = Buffer.from(sseFrame(event));
    this.events.push({ seq: event.seq, type: event.type, frame });
    this.bytes += frame.length;
    this.lastSeq = event.seq;
    let drop = 0;
    while (this.events.length - drop > EVENT_TAIL_EVENTS_MAX || (this.bytes > EVENT_TAIL_BYTES_MAX && this.events.length - drop > 1)) {
      this.bytes -= this.events[drop]!.frame.length;
      this.baseSeq = this.events[drop]!.seq;
      drop++;
    }
    if (drop > 0) this.events.splice(0, drop);
  }

  /**
   * Wakes the streams a few at a time, a turn of the event loop apart: each writes its share of events at once, and
   * requests are answered between them rather than after all of them.
   */
  wake(): void {
    const waiting = [...this.waiters];
    const next = (from: number) => {
      for (let i = from; i < Math.min(from + EVENT_STREAMS_WOKEN_PER_TURN_MAX, waiting.length); i++) waiting[i]!();
      if (from + EVENT_STREAMS_WOKEN_PER_TURN_MAX < waiting.length) setImmediate(next, from + EVENT_STREAMS_WOKEN_PER_TURN_MAX);
    };
    next(0);
  }
}

/** What one stream is given: where it starts, what it wants, and how its connection is watched and dropped. */
export interface StreamRequest {
  tenantId: string;
  /** The last event the client has (0: none). */
  position: number;
  types: readonly string[] | null;
  signal: AbortSignal;
  /** Ends the connection at once (a stalled client). */
  drop(): void;
}

interface Watched {
  /** Since when the stream has waited for its client to take what it sent (0: not waiting). */
  blockedSince: number;
  drop(): void;
}

export class EventStreams {
  private readonly tails = new Map<string, Tail>();
  private readonly streams = new Set<Watched>();
  private poller: NodeJS.Timeout | undefined;
  private stallCheck: NodeJS.Timeout | undefined;
  private version: string | null = null;
  private generation = 0;
  /** Polls in a row that found a commit. */
  private streak = 0;
  private closed = false;
  private readonly slots: StreamSlots;

  constructor(
    private readonly ledger: Ledger,
    private readonly log: Logger,
    private readonly options: { heartbeatMs?: number; stallMs?: number; caps?: StreamCaps } = {},
  ) {
    this.slots = new StreamSlots(options.caps);
  }

  /**
   * A slot for a new stream of the tenant, or 429 past a cap (server/streamSlots.ts). The caller gives it back once
   * the stream's answer is over, however it ends (or never starts: a HEAD request).
   */
  admit(tenantId: string, client: string): () => void {
    return this.slots.take(tenantId, client);
  }

  /** Frames for the client, produced as it takes them; ends when the client leaves, or the server stops. */
  async *follow(request: StreamRequest): AsyncGenerator<Buffer | string> {
    const { tenantId, types, signal } = request;
    const tail = await this.open(tenantId);
    const watched: Watched = { blockedSince: 0, drop: request.drop };
    this.streams.add(watched);
    this.startStallCheck();
    let position = request.position;
    const wanted = (type: string) => types === null || types.includes(type);
    // Before each frame: waiting for the client to take it counts toward the stall time.
    const send = async function* (text: Buffer | string) {
      watched.blockedSince = Date.now();
      yield text;
      watched.blockedSince = 0;
    };
    try {
      yield* send(`retry: ${EVENT_STREAM_RETRY_MS}\n\n`);
      while (!signal.aborted && !this.closed) {
        if (position < tail.baseSeq) {
          // Behind the tail: from the database, a batch at a time.
          await this.ledger.events.assertKept(tenantId, position, 'An event before this stream\'s position');
          const known = tail.lastSeq;
          let text = '';
          let read = 0;
          for await (const event of this.ledger.store.eventsPage(tenantId, position, EVENT_STREAM_READ_BATCH, types)) {
            text += sseFrame(event);
            position = event.seq;
            read++;
          }
          // A short batch read everything up to what the tail knew then, of the kinds asked for.
          if (read < EVENT_STREAM_READ_BATCH) position = Math.max(position, known);
          if (text !== '') yield* send(text);
          continue;
        }
        const frames: Buffer[] = [];
        let bytes = 0;
        for (let i = tail.indexAfter(position); i < tail.events.length && bytes < EVENT_STREAM_WRITE_BYTES_MAX; i++) {
          const event = tail.events[i]!;
          if (wanted(event.type)) {
            frames.push(event.frame);
            bytes += event.frame.length;
          }
          position = event.seq;
        }
        if (bytes > 0) {
          // One write of bytes already encoded: copying them is far cheaper than encoding a string per stream.
          yield* send(frames.length === 1 ? frames[0]! : Buffer.concat(frames, bytes));
          continue;
        }
        if (position >= tail.lastSeq && !(await this.changed(tail, signal))) yield* send(': heartbeat\n\n');
      }
    } catch (error) {
      // A stream ends, never fails the server: a read that failed (or a pruned position) ends it, and the client
      // reconnects from its last id (and is told 410 if that event is gone).
      this.log(`event stream of ${tenantId} ended: ${error instanceof Error ? error.message : String(error)}`, 'debug');
    } finally {
      this.streams.delete(watched);
      this.release(tail);
    }
  }

  /** Ends every stream (their answers end cleanly), and stops watching the database. */
  close(): void {
    this.closed = true;
    for (const tail of this.tails.values()) tail.wake();
    this.stop();
  }

  /** Resolves true on a new event of the tenant (or the server stopping, or the client leaving), false after the heartbeat time. */
  private changed(tail: Tail, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(timer);
        tail.waiters.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve(woken);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), this.options.heartbeatMs ?? EVENT_STREAM_HEARTBEAT_MS);
      tail.waiters.add(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
  }

  private async open(tenantId: string): Promise<Tail> {
    let tail = this.tails.get(tenantId);
    if (!tail) {
      const last = await this.ledger.store.lastOutboxSeq(tenantId);
      tail = this.tails.get(tenantId) ?? new Tail(tenantId, last, last);
      this.tails.set(tenantId, tail);
    }
    tail.streams++;
    if (!this.poller) this.schedule(0);
    return tail;
  }

  private release(tail: Tail): void {
    if (--tail.streams > 0) return;
    this.tails.delete(tail.tenantId);
    if (this.tails.size === 0) this.stop();
  }

  private stop(): void {
    clearTimeout(this.poller);
    this.generation++;
    clearInterval(this.stallCheck);
    this.poller = undefined;
    this.stallCheck = undefined;
    this.version = null;
  }

  /** The watcher of the moment: one chain of polls, ended by stop() (a poll then under way schedules no other). */
  private schedule(ms: number, generation = this.generation): void {
    this.poller = setTimeout(() => void this.poll(generation), ms).unref();
  }

  /** On a commit anywhere in the database: each tail reads its tenant's new events once, and wakes its streams. */
  private async poll(generation: number): Promise<void> {
    let busy = false;
    try {
      const version = await this.ledger.store.changeVersion();
      if (version === this.version) {
        this.streak = 0;
        return;
      }
      // Busy once commits came at every poll for a while: a lone commit is still read at the idle pace.
      busy = this.version !== null && ++this.streak >= EVENT_STREAM_BUSY_AFTER_POLLS;
      for (const tail of [...this.tails.values()]) {
        for (let batch = 0; batch < EVENT_TAIL_EVENTS_MAX / EVENT_STREAM_READ_BATCH; batch++) {
          let read = 0;
          for await (const event of this.ledger.store.eventsPage(tail.tenantId, tail.lastSeq, EVENT_STREAM_READ_BATCH, null)) {
            tail.append(event);
            read++;
          }
          if (read < EVENT_STREAM_READ_BATCH) break;
        }
        tail.wake();
      }
      this.version = version;
    } catch (error) {
      this.log(`event streams: could not read new events (tried again in ${EVENT_STREAM_POLL_IDLE_MS} ms): ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      if (generation === this.generation && !this.closed) this.schedule(busy ? EVENT_STREAM_POLL_BUSY_MS : EVENT_STREAM_POLL_IDLE_MS, generation);
    }
  }

  private startStallCheck(): void {
    const stallMs = this.options.stallMs ?? EVENT_STREAM_STALL_MS;
    this.stallCheck ??= setInterval(
      () => {
        const now = Date.now();
        for (const stream of this.streams) if (stream.blockedSince > 0 && now - stream.blockedSince > stallMs) stream.drop();
      },
      Math.min(1000, Math.max(10, stallMs / 4)),
    ).unref();
  }
}
