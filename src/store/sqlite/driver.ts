// The SQLite driver for this runtime: better-sqlite3 12 on Node 20, better-sqlite3 13 on Node 22 and later (same
// API).
import { createRequire } from 'node:module';
import type BetterSqlite3Type from 'better-sqlite3';

const require = createRequire(import.meta.url);
const major = Number(process.versions.node.split('.')[0]);

// 13 needs Node 22 (on 20 it crashes on the first query). 12 is built on Node's ObjectWrap, whose destructor from
// Node 24.19 on aborts the process (`(env) != nullptr` in RemoveEnvironmentCleanupHook) when the collector frees a
// statement while no JavaScript runs; 13 is built on node-addon-api.
/** The better-sqlite3 Database class this runtime loads. */
export const BetterSqlite3: typeof BetterSqlite3Type = require(major >= 22 ? 'better-sqlite3-13' : 'better-sqlite3');
export type { Database as SqliteDatabase, Statement as SqliteStatement } from 'better-sqlite3';
