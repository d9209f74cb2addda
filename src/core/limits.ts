// Every limit the service enforces, in one place. Loops over outside input are bounded by these.

export const LINES_PER_TRANSACTION_MIN = 2;
export const LINES_PER_TRANSACTION_MAX = 1000;
/** POST /api/v1/transactions/batch: postings a batch, lines in all, and lines of an atomic batch (one write). */
export const BATCH_TRANSACTIONS_MAX = 500;
export const BATCH_LINES_MAX = 10_000;
export const ATOMIC_BATCH_LINES_MAX = LINES_PER_TRANSACTION_MAX;
/** Postings of a batch queued for the writer at once, before the HTTP thread reads other requests again. */
export const BATCH_QUEUE_SLICE = 50;
export const METADATA_ENTRIES_MAX = 50;
export const METADATA_KEY_LENGTH_MAX = 128;
export const METADATA_VALUE_LENGTH_MAX = 1024;
export const IDEMPOTENCY_KEY_LENGTH_MAX = 255;
export const PAGE_SIZE_MIN = 1;
export const PAGE_SIZE_MAX = 200;
export const PAGE_SIZE_DEFAULT = 50;
export const ACCOUNT_NAME_LENGTH_MAX = 255;
export const DESCRIPTION_LENGTH_MAX = 1024;
/** `metadata[key]=value` filters on one list request. */
export const METADATA_FILTERS_MAX = 5;
/**
 * Index rows one page of a filtered list reads at most, its filters' own counts aside: on SQLite a read runs on the
 * HTTP thread, which every other request waits for. Of a list's filters the one with the fewest rows leads and the
 * others are checked on its rows; a page whose leading filter has more rows than this answers what it found among
 * this many (fewer items than `limit`, or none) with a `nextCursor` that continues the scan from where it stopped. A
 * client pages on while `nextCursor` is not null. This many keep a page's read to a few milliseconds.
 */
export const SCAN_ROWS_MAX = 2000;
/** A reversal's description, which replaces every reversing line's. */
export const REVERSAL_DESCRIPTION_LENGTH_MAX = 500;
export const TENANT_NAME_LENGTH_MAX = 255;
export const REFERENCE_LENGTH_MAX = 255;
export const SCOPES_PER_KEY_MAX = 12;
/** Request bodies above this are refused with 413 before they are parsed. */
export const BODY_SIZE_MAX_BYTES = 2 * 1024 * 1024;
/**
 * A body this large or larger (a posting of some hundred lines; 1000 lines with 1 KiB descriptions are 1.2 MB) is
 * parsed in its turn: one at a time on the HTTP thread, with every other request's ready work between two of them
 * (server/turns.ts). A smaller one parses too quickly to hold anyone up and goes at once.
 */
export const LARGE_BODY_BYTES = 64 * 1024;
/**
 * Requests with such a body under way at once, from their turn to their answer; the others wait unparsed. The writer
 * takes large writes one at a time, so two keep it fed (one written, one ready) while the heaps hold two parsed
 * requests, not sixty (megabytes each for 1000 lines). With more, the writer thread spent the start of a burst
 * taking in postings it could not yet write, and another tenant's posting waited behind them.
 */
export const LARGE_BODIES_IN_FLIGHT_MAX = 2;
/** JSON nesting deeper than this is refused; no valid request comes close. */
export const JSON_DEPTH_MAX = 16;
/**
 * The instants the ledger takes, judged once their offset is applied: those whose ISO text has a four-digit year, so
 * that text order is time order (year 10000 is written `+010000-…` and sorts below every other).
 */
export const INSTANT_MIN = '0001-01-01T00:00:00Z';
export const INSTANT_MAX = '9999-12-31T23:59:59.999Z';
/** The earliest instant a posting may be dated to (`effectiveAt`). */
export const EFFECTIVE_AT_MIN = '2000-01-01T00:00:00.000Z';
/** An `effectiveAt` at most this far past the commit is taken as the commit time, as clocks disagree; later is 400. */
export const EFFECTIVE_AT_AHEAD_MAX_MS = 5 * 60_000;
/** A cursor stops working this long after it was issued. */
export const CURSOR_TTL_MS = 24 * 60 * 60 * 1000;
export const CURSOR_LENGTH_MAX = 1024;
/** Amounts are kept exactly up to this many whole units (contract: at least 10^15). */
export const AMOUNT_WHOLE_DIGITS_MAX = 18;
/** Postings gathered into one durable commit at most. */
export const GROUP_COMMIT_BATCH_MAX = 512;
/**
 * Rows one group commit writes at most, of every table alike (core/writeRows.ts): a write larger than this commits
 * alone. A 2-line posting writes 10 (its transaction, 2 entries, 2 kept balances, its 2 accounts kept for the search,
 * its audit record, event and idempotency record): a group holds 500 of them, as it did when it was 1,000 lines.
 */
export const GROUP_COMMIT_WEIGHT_MAX = 5000;
/**
 * Lines of large writes one group commit holds at most (one large write of more goes alone): a posting of 1000 lines
 * with 1 KiB descriptions is 1,006 rows but 2.4 MB, so several of them in one group would hold PostgreSQL's writer
 * far longer than a group should; atomic batches of 100 2-line postings (1,000 rows, 200 lines each) still share a
 * group five at a time.
 */
export const GROUP_COMMIT_LARGE_LINES_MAX = 1000;
/**
 * How many times a write group that the database refused for a conflict with another writer (a serialization failure,
 * a deadlock) runs again before its commands answer 503; each try waits a little longer (WRITE_CONFLICT_BACKOFF_MS × n).
 */
export const WRITE_CONFLICT_RETRIES = 5;
export const WRITE_CONFLICT_BACKOFF_MS = 10;
/**
 * How long a wait on the database lasts before the request answers 503 UNAVAILABLE (retry shortly), one contract for
 * every such wait on either engine: a free PostgreSQL connection or a new one (the pool's acquire), the writer lock
 * another process holds (PostgreSQL's lock_timeout), a SQLite file another connection is writing (busy_timeout), and
 * a snapshot's wait for a checkpoint.
 */
export const STORAGE_WAIT_MS = 5_000;

/** PostgreSQL connections a process opens for reads, by default and at most (`--db-pool`). */
export const DB_POOL_DEFAULT = 10;
export const DB_POOL_MAX = 1000;
/** Accounts whose balances one statement reads ahead for a write group (on engines where each read is a round trip). */
export const BALANCE_READ_AHEAD_ACCOUNTS = 64;
/**
 * A write of this many rows or more is large: a group holds GROUP_COMMIT_LARGE_LINES_MAX of their lines at most, and
 * while small writes are being made, large ones get at most a share of the writer. A non-atomic batch this large is large as a whole: its postings take that
 * share together, LARGE_TURN_ROWS_MAX rows of them a turn (a posting of 500 lines writes about 510 rows).
 */
export const LARGE_WRITE_WEIGHT = 500;
/**
 * Rows of a large batch's postings that one turn of the large writes takes while small writes are being made: as
 * large as the smallest large write: a larger turn made another tenant's posting wait behind large batches.
 */
export const LARGE_TURN_ROWS_MAX = LARGE_WRITE_WEIGHT;
/** A posting of this many lines or more is rendered by its write (its share of the writer), not on the HTTP thread. */
export const LARGE_POSTING_LINES = 500;
/** After a large write that held the writer D ms, the next waits this many times D (so large writes take at most 1/(1+5) of it). */
export const LARGE_WRITE_SHARE_FACTOR = 5;
/**
 * Small writes committed this recently (or queued) mean the writer is contended. Small writes reach the writer after
 * the HTTP thread, which a burst of large bodies keeps busy for a while: with a short window the next large write ran
 * while the small ones were still on their way (another tenant's posting waiting for both).
 */
export const LARGE_WRITE_CONTENDED_MS = 500;
/** Completed idempotency records are kept at least this long. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** How long a graceful shutdown waits for in-flight requests. */
export const SHUTDOWN_DRAIN_MS = 10_000;
/** A statement lists at most this many movements; a longer period is refused with 400. */
export const STATEMENT_MOVEMENTS_MAX = 10_000;
/** Points of a balance history (GET /accounts/{id}/balance-history): more is 400. */
export const BALANCE_HISTORY_POINTS_MAX = 1000;
/** Balances a report reads in one statement; between two, other requests run. */
export const REPORT_READ_PART_ROWS = 1000;
/** Transaction ids in one batch reconciliation request. */
export const RECONCILIATION_BATCH_MIN = 1;
export const RECONCILIATION_BATCH_MAX = 100;
/** How long a new settlement stays PENDING unless `--settlement-ttl` says otherwise. */
export const SETTLEMENT_TTL_DEFAULT_SECONDS = 86_400;
/** The longest TTL accepted: ten years. */
export const SETTLEMENT_TTL_MAX_SECONDS = 10 * 365 * 86_400;
/** How often the server looks for PENDING settlements past their expiry. */
export const SETTLEMENT_SWEEP_INTERVAL_MS = 250;
/** How often events past `--event-retention` are pruned (and once at start). */
export const EVENT_PRUNE_INTERVAL_MS = 60_000;
/** `--event-retention` in days: at most a hundred years. */
export const EVENT_RETENTION_DAYS_MAX = 36_500;
/** How often the sweeper reads the earliest expiry again, for settlements registered by another process. */
export const SETTLEMENT_DUE_REREAD_MS = 2_000;
/** Settlements turned UNMATCHED by one sweep at most; the next sweep takes the rest. */
export const SETTLEMENT_SWEEP_BATCH_MAX = 500;
/** PENDING settlements considered for one line at most (same account, token, amount, chain and wallet), oldest first. */
export const SETTLEMENT_CANDIDATES_MAX = 1000;
/**
 * Audit records read from the database per page of an export or a verification. 250 rather than 1,000: the same
 * speed, and a lower peak of the server's memory during a large export (`BENCH_ONLY=export`).
 */
export const AUDIT_PAGE_ROWS = 250;
/** Longest webhook URL accepted. */
export const WEBHOOK_URL_LENGTH_MAX = 2048;
/** X-Agent-Session-Id length. */
export const AGENT_SESSION_ID_LENGTH_MAX = 255;
/** The trailing window of MAX_DEBIT_PER_HOUR. */
export const AGENT_HOUR_MS = 60 * 60 * 1000;
/** Request headers above this are refused with 431 (Node's own default, set explicitly). */
export const HEADERS_SIZE_MAX_BYTES = 16 * 1024;
/**
 * A new connection's first request headers must arrive within this long of its opening (its TLS handshake included),
 * a later request's within this long of its first byte; then 408, or for a handshake never finished, the connection is
 * closed (`--headers-timeout`).
 */
export const HEADERS_TIMEOUT_MS = 20_000;
/** An idle keep-alive connection is closed after this long (`--keep-alive-timeout`). */
export const KEEP_ALIVE_TIMEOUT_DEFAULT_MS = 5_000;
/** The longest `--headers-timeout` and `--keep-alive-timeout`. */
export const CONNECTION_TIMEOUT_MAX_MS = 600_000;
/**
 * Open connections at most (`--max-connections`); past it, a new connection is answered 503 UNAVAILABLE and closed
 * (closed at once on TLS), as past `--max-connections-per-client`.
 */
export const MAX_CONNECTIONS_DEFAULT = 4096;
export const MAX_CONNECTIONS_MAX = 1_000_000;
/**
 * Open connections from one client address at most (`--max-connections-per-client`); past it, a new connection from
 * that address is answered 503 UNAVAILABLE with `Retry-After: 1` and closed, unread (on TLS closed at once: an answer
 * there costs a handshake). Behind a proxy every connection has the proxy's address: raise it there.
 */
export const MAX_CONNECTIONS_PER_CLIENT_DEFAULT = 256;
/**
 * Connections past a cap being answered at once, at most; past it, one is closed at once without an answer, as they
 * all were before issue 41, so that a flood of them holds no more than this many sockets for its answers. Node itself
 * closes what is past `--max-connections` and these.
 */
export const CONNECTION_REFUSALS_MAX = 256;
/**
 * A connection answered 503 for a cap is half-closed, and what its client still sends is read and dropped, until the
 * client closes, for at most this long and this much: closed with its request unread, Linux would send a reset, which
 * can reach the client before it has read the answer.
 */
export const CONNECTION_REFUSAL_LINGER_MS = 1_000;
export const CONNECTION_REFUSAL_LINGER_BYTES_MAX = 64 * 1024;
/** Event streams one tenant may hold open at once (`--max-streams-per-tenant`); past it, 429 RATE_LIMITED. */
export const MAX_STREAMS_PER_TENANT_DEFAULT = 100;
/**
 * Event streams of all tenants together hold at most `--max-connections` divided by this (half), rounded down: the
 * other half stays for ordinary requests. Past it, 429 RATE_LIMITED.
 */
export const STREAMS_CONNECTIONS_DIVISOR = 2;
/**
 * What a stream refused for a cap is told to wait (Retry-After). Streams end when their clients leave, at no known
 * time, and a client that left without closing is noticed no sooner than the heartbeat (15 s): asking again sooner
 * mostly costs the server another refusal, and each wave of refusals is a queue other tenants wait behind
 * (bench/bounds.ts: with a short wait, refused streams asking again held another tenant's postings for seconds).
 */
export const STREAM_RETRY_AFTER_SECONDS = 30;
/** A request body that sends nothing for this long is refused with 408, unless `--body-timeout` says otherwise. */
export const BODY_IDLE_TIMEOUT_DEFAULT_MS = 10_000;
export const BODY_IDLE_TIMEOUT_MAX_MS = 300_000;
/** The whole body must arrive within this many idle time-outs (60 s by default), so a trickle cannot hold a socket. */
export const BODY_TOTAL_TIMEOUT_IDLE_MULTIPLE = 6;
/**
 * After refusing a body it will not read (413, 408), the server reads and discards what the client still sends, up to
 * this much and this long, and only then closes (RFC 9112 §9.6), so a client that writes its whole body first still
 * reads the answer.
 */
export const LINGER_BYTES_MAX = 16 * 1024 * 1024;
export const LINGER_MS = 5_000;
/** No list answer (and no page of an export held in memory) is larger than this; a page ends early to stay under it. */
export const ANSWER_SIZE_MAX_BYTES = 4 * 1024 * 1024;
/** `--rate-limit` at most (requests a second per key). */
export const RATE_LIMIT_MAX_PER_SECOND = 1_000_000;
/** Rate-limit buckets kept before the full ones (idle keys) are forgotten. */
export const RATE_LIMIT_BUCKETS_PRUNE_AT = 10_000;
/** A bank statement's file (camt.053 or CSV): the one route that takes bodies above BODY_SIZE_MAX_BYTES. */
export const BANK_STATEMENT_BYTES_MAX = 20 * 1024 * 1024;
/** Booked lines in one bank statement. */
export const BANK_STATEMENT_LINES_MAX = 50_000;
/** A statement's lines are written and matched on the writer this many at a time, each part its own write. */
export const BANK_STATEMENT_PART_LINES = 500;
/** How long an import holds its statement between two parts; past it, importing the file again starts over. */
export const BANK_STATEMENT_LEASE_MS = 60_000;
/** How often the sweeper looks for statements an import or a removal left unfinished (its lease over), and how many it reads at a time. */
export const BANK_STATEMENT_SWEEP_INTERVAL_MS = 30_000;
export const BANK_STATEMENT_SWEEP_BATCH_MAX = 100;
/** The AMOUNT_DATE rule's window: days either side of a line's booking date (per account, 0 to the maximum). */
export const RECONCILIATION_DATE_WINDOW_DAYS_DEFAULT = 3;
export const RECONCILIATION_DATE_WINDOW_DAYS_MAX = 31;
/** The SUM rule takes all of a reference's unmatched entries when they are this many (2 at least). */
export const RECONCILIATION_SUM_ENTRIES_MAX = 100;
/** Candidates named on an ambiguous line. */
export const RECONCILIATION_CANDIDATES_SHOWN_MAX = 10;
/** A manual match names at most this many entries. */
export const STATEMENT_MATCH_ENTRIES_MAX = 100;
/** A note on a statement line's match, unmatch or ignore. */
export const STATEMENT_NOTE_LENGTH_MAX = 500;

/** Lines with candidate settlements decided in one write of a batch reconciliation; a larger batch is written in parts. */
export const RECONCILIATION_CANDIDATE_LINES_PER_WRITE = 1000;

/** Rows `ledger db copy` reads and writes at a time (a batch a transaction), and fewer for tables whose rows hold whole documents (up to about 1.3 MB each). */
export const COPY_BATCH_ROWS = 500;
export const COPY_BATCH_DOCUMENT_ROWS = 25;
/** Limits an account may have: one per asset it can hold (its currency and every token). */
export const ACCOUNT_LIMITS_MAX = 8;
/** A hold expires this long after it is made unless it says when (`expiresAt`), and at most this long after. */
export const HOLD_EXPIRY_DEFAULT_MS = 7 * 86_400_000;
export const HOLD_EXPIRY_MAX_MS = 30 * 86_400_000;
/** How often the sweeper looks for PENDING holds past their expiry (one is released within 5 s of it). */
export const HOLD_SWEEP_INTERVAL_MS = 1000;
/** Holds past their expiry the sweeper reads at a time (their ids and line counts); it reads again while it finds this many. */
export const HOLD_SWEEP_BATCH_MAX = 500;
/**
 * Rows one expiry write of holds writes at most (a hold with more goes alone): about what releasing 1,000 lines
 * writes, a large write, so that holds expiring together take turns with other writes.
 */
export const HOLD_SWEEP_ROWS_MAX = 1000;

// Event streams (GET /events/stream) and their shared tails.
/**
 * How often the database is asked whether anything was committed: at rest every 25 ms (a commit reaches a client
 * within that); once commits have come at every poll for four polls, every 100 ms, so that each stream sends more
 * events in fewer writes, which leaves more of the machine to the postings beside many streams.
 */
export const EVENT_STREAM_POLL_IDLE_MS = 25;
export const EVENT_STREAM_POLL_BUSY_MS = 100;
export const EVENT_STREAM_BUSY_AFTER_POLLS = 4;
/** Events read a batch at a time, by a tail or a stream catching up. */
export const EVENT_STREAM_READ_BATCH = 200;
/** A tail keeps at most this many events, and at most this many bytes of their frames. */
export const EVENT_TAIL_EVENTS_MAX = 2000;
export const EVENT_TAIL_BYTES_MAX = 4 * 1024 * 1024;
/** Streams woken in one turn of the event loop at most. */
export const EVENT_STREAMS_WOKEN_PER_TURN_MAX = 8;
/** Frames sent in one write at most (a stream catching up from its tail). */
export const EVENT_STREAM_WRITE_BYTES_MAX = 256 * 1024;
/** A stream with nothing to send sends a comment this often, so that proxies keep it open. */
export const EVENT_STREAM_HEARTBEAT_MS = 15_000;
/** A stream whose writes have waited this long on a client that does not read is dropped. */
export const EVENT_STREAM_STALL_MS = 30_000;
/** What the client's EventSource waits before it reconnects (the `retry:` field, sent first). */
export const EVENT_STREAM_RETRY_MS = 1000;

// The webhook sender.
/** How often the sender looks for deliveries that are due. */
export const WEBHOOK_POLL_MS = 100;
/** Tenants are read again at least this often even when nothing seems to have changed. */
export const WEBHOOK_TENANT_RESCAN_MS = 5_000;
/** Deliveries in flight at once, across tenants. */
export const WEBHOOK_IN_FLIGHT_MAX = 32;
/** Characters of a failed attempt's error kept with the delivery. */
export const WEBHOOK_ERROR_TEXT_MAX = 500;
/** One delivery attempt ends after this long, answered or not. */
export const WEBHOOK_DELIVERY_TIMEOUT_MS = 10_000;
/** Of a receiver's answer at most this much is read; the rest is dropped. */
export const WEBHOOK_RESPONSE_READ_BYTES_MAX = 64 * 1024;

// The chain watchers.
/** A watcher scans its chain again this long after a scan that found it caught up. */
export const CHAIN_POLL_MS = 1_000;
/** After failures a watcher waits twice as long each time, up to this. */
export const CHAIN_BACKOFF_MAX_MS = 30_000;
/** Blocks per getLogs call, and wallets per topic filter: bounded, as providers refuse large ones. */
export const EVM_BLOCK_RANGE_MAX = 2_000;
export const EVM_WALLETS_PER_QUERY_MAX = 500;

// Validation and answers.
/** Field details one 400 answer lists at most. */
export const ERROR_DETAILS_MAX = 20;
/** Room kept in the answer cap for what surrounds the items: `{"items":[`, the commas, `],"nextCursor":"…"}`. */
export const PAGE_ENVELOPE_BYTES = 4096;
/** A streamed answer (an export) buffers this much before it waits for the client to read. */
export const RESPONSE_STREAM_BUFFER_BYTES = 256 * 1024;
/** The watchdog of bodies being read looks at them at least this often. */
export const BODY_WATCH_MS_MAX = 1000;
/** While draining at shutdown, idle connections are looked for and closed this often. */
export const DRAIN_SWEEP_MS = 20;
/** Ids are made a moment before their event's time: an id this much past the last pruned event may still be one. */
export const EVENT_ID_CLOCK_SLACK_MS = 1000;

// The storage engines.
/** A list is read a few rows at a time, more each time: a page of heavy rows stops after a handful, a page of small ones takes a few round trips. */
export const PG_CURSOR_FIRST_ROWS = 4;
export const PG_CURSOR_ROWS_MAX = 128;
/** SQLite checkpoints on its own past this many WAL pages, should the checkpoint thread fall behind. */
export const SQLITE_AUTOCHECKPOINT_FALLBACK_PAGES = 20_000;
/** After a checkpoint the WAL file is truncated to at most this (journal_size_limit). */
export const SQLITE_WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/** How often the checkpoint thread looks at the WAL's size. */
export const SQLITE_CHECKPOINT_CHECK_MS = 100;
/** Below this the WAL is left alone: a checkpoint's own fsync would cost light traffic more than it saves. */
export const SQLITE_WAL_CHECKPOINT_BYTES = 4 * 1024 * 1024;
