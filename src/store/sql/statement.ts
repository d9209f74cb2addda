// What the queries need from an engine: a statement prepared once from a Kysely query, run with named parameters;
// SQLite answers at once, PostgreSQL with a promise, so a SQLite command runs start to end without waiting.
import type { Compilable, Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { assertStorable } from '../../core/text.js';
import { TENANT_ARG } from './tenantKeys.js';

export type MaybePromise<T> = T | Promise<T>;
export type Args = Record<string, unknown>;

export interface Statement<Row> {
  get(args?: Args): MaybePromise<Row | undefined>;
  all(args?: Args): MaybePromise<Row[]>;
  /**
   * Rows in order, read as they are taken: the caller stops where its page ends and the rest is never read. The
   * connection is held until the iteration ends or is stopped.
   */
  iterate(args?: Args): Iterable<Row> | AsyncIterable<Row>;
  /** How many rows it changed. */
  run(args?: Args): MaybePromise<number>;
}

export interface PrepareOptions {
  /** A one-column query answers its values instead of rows of one field. */
  pluck?: boolean;
  /**
   * A write whose answer nobody reads (an insert of a command): an engine that waits on the network may send it
   * later, with others, before the command's next read or at its end; its `run` then answers 1.
   */
  deferrable?: boolean;
}

/** Prepares a query built with `param('name')` placeholders. */
export type Preparer = <Row>(build: (qb: Kysely<Database>) => Compilable<unknown>, options?: PrepareOptions) => Statement<Row>;

const MARK = '\u0000param:';

/** A named placeholder in a query built for a Preparer. */
export const param = <T = string>(name: string): T => `${MARK}${name}` as unknown as T;

/**
 * The positional values of a compiled query from named arguments; a missing one is a bug, not a NULL. Text the ledger
 * cannot store (core/text.ts) is refused here, on every engine, before it reaches one: PostgreSQL would refuse a NUL
 * (or, written into a batch's text, break the connection's protocol), and SQLite would keep it where PostgreSQL could not.
 * The `tenantId` argument, a tenant's public id, binds as the tenant's key (`tenantKey`, sql/tenantKeys.ts).
 */
export function compileSlots(parameters: readonly unknown[], tenantKey: (publicId: string) => string): (args: Args) => unknown[] {
  const slots: Array<{ name: string; tenant: boolean } | { value: unknown }> = parameters.map((p) =>
    typeof p === 'string' && p.startsWith(MARK) ? { name: p.slice(MARK.length), tenant: p.slice(MARK.length) === TENANT_ARG } : { value: p },
  );
  return (args) =>
    slots.map((slot) => {
      if (!('name' in slot)) return slot.value;
      const value = args[slot.name];
      if (value === undefined) throw new Error(`Missing query parameter ${slot.name}`);
      if (typeof value === 'string') {
        assertStorable(value);
        if (slot.tenant) return tenantKey(value);
      }
      return value;
    });
}

/** Whether a statement's arguments name a tenant (whose key the engine must know before it binds them). */
export const namesTenant = (parameters: readonly unknown[]): boolean => parameters.includes(`${MARK}${TENANT_ARG}`);
