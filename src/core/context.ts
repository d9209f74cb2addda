// What every use-case is given: the store, time, ids, and the secrets of this database.
import type { Clock, IdGenerator, Store } from './ports.js';
import { CommitClock } from './time.js';
import { CursorCodec } from './cursor.js';

export interface Deps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  /** Commit times, never decreasing along commit order. */
  commitClock: CommitClock;
  cursors: CursorCodec;
  /** Key of the API-key hash. */
  pepper: Buffer;
}

export function makeDeps(store: Store, clock: Clock, ids: IdGenerator): Deps {
  return {
    store,
    clock,
    ids,
    commitClock: new CommitClock(clock, store.lastCommitTime()),
    cursors: new CursorCodec(store.secret('cursor_signing_key')),
    pepper: store.secret('api_key_pepper'),
  };
}

/** The caller of a request: a live key of one tenant. */
export interface Principal {
  tenantId: string;
  keyId: string;
  scopes: readonly import('./scopes.js').Scope[];
}
