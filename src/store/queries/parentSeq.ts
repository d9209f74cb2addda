// A child row keyed by its parent's sequence, written from the parent's id as a VALUES row joined to the parent, so
// that many such inserts join in one statement on PostgreSQL.
import type { Kysely, RawBuilder } from 'kysely';
import type { Database } from '../schema.js';

/** The VALUES list's rows, each with its parent's tenant and sequence around its own `columns` (`v.column3`, …). */
export const withParentSeq = (q: Kysely<Database>, parent: 'transactions' | 'holds', values: RawBuilder<unknown>, columns: string[]) =>
  (q as Kysely<any>)
    .selectFrom(values.as('v'))
    .innerJoin(`${parent} as p`, (join: any) => join.onRef('p.tenant_id', '=', 'v.column1').onRef('p.id', '=', 'v.column2'))
    .select(['p.tenant_id', ...columns, 'p.seq']);
