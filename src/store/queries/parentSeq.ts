// A child row keyed by its parent's sequence (a transaction's metadata entries and accounts, a hold's accounts), written
// from the parent's id in the same write: one row of a VALUES list (its tenant, the parent's id, then its own values)
// joined to the parent. On PostgreSQL the rows of many such inserts join in one statement and one plan
// (postgres/writeBuffer.ts), where an INSERT … SELECT a row went alone, or a read of the parent's sequence a row.
import type { Kysely, RawBuilder } from 'kysely';
import type { Database } from '../schema.js';

/** The VALUES list's rows, each with its parent's tenant and sequence around its own `columns` (`v.column3`, …). */
export const withParentSeq = (q: Kysely<Database>, parent: 'transactions' | 'holds', values: RawBuilder<unknown>, columns: string[]) =>
  (q as Kysely<any>)
    .selectFrom(values.as('v'))
    .innerJoin(`${parent} as p`, (join: any) => join.onRef('p.tenant_id', '=', 'v.column1').onRef('p.id', '=', 'v.column2'))
    .select(['p.tenant_id', ...columns, 'p.seq']);
