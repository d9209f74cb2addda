// What every use-case is given: the store to read, the writer, time, and the secrets of this database.
import type { Store } from './ports.js';
import { parseHere, type StatementParser } from './bankFiles/toImport.js';
import type { Clock } from './time.js';
import type { Scope } from './scopes.js';
import { CursorCodec } from './cursor.js';
import { SETTLEMENT_TTL_DEFAULT_SECONDS } from './limits.js';
import type { Writer } from './commands.js';
import { InFlightKeys } from './idempotency.js';

export interface Deps {
  store: Store;
  writer: Writer;
  clock: Clock;
  cursors: CursorCodec;
  /** Key of the API-key hash. */
  pepper: Buffer;
  /** How long a new settlement stays PENDING. */
  settlementTtlMs: number;
  /** The Idempotency-Keys this process's requests hold while they run, of every endpoint (once, idempotency.ts). */
  inFlight: InFlightKeys;
  /** Reads a bank statement's file: on this thread, or (the server) on a thread of its own. */
  parseStatement: StatementParser;
}

export interface LedgerOptions {
  settlementTtlSeconds?: number;
  /** Where bank statements' files are parsed (the server: off its HTTP thread); on the calling thread unless said. */
  parseStatement?: StatementParser;
}

export const PEPPER_SECRET = 'api_key_pepper';
const CURSOR_SECRET = 'cursor_signing_key';

export async function makeDeps(store: Store, writer: Writer, clock: Clock, options: LedgerOptions = {}): Promise<Deps> {
  return {
    store,
    writer,
    clock,
    cursors: new CursorCodec(await store.secret(CURSOR_SECRET)),
    pepper: await store.secret(PEPPER_SECRET),
    settlementTtlMs: (options.settlementTtlSeconds ?? SETTLEMENT_TTL_DEFAULT_SECONDS) * 1000,
    inFlight: new InFlightKeys(),
    parseStatement: options.parseStatement ?? parseHere,
  };
}

/** The caller of a request: a live key of one tenant. */
export interface Principal {
  tenantId: string;
  keyId: string;
  scopes: readonly Scope[];
}
