// A query of one domain file, prepared by the engine's Preparer (its row type inferred from the Kysely builder).
import type { Compilable, Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { PrepareOptions, Preparer } from '../sql/statement.js';

export const query =
  (prepare: Preparer) =>
  <R>(build: (qb: Kysely<Database>) => Compilable<R>, options?: PrepareOptions) =>
    prepare<R>(build, options);

/** The options of a command's insert whose answer nobody reads (see PrepareOptions). */
export const deferrable: PrepareOptions = { deferrable: true };
