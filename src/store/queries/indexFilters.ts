// A list's filters, each an index led by (tenant, its columns, a sequence): the rows one holds in a range, and a page
// led by one filter with the others checked per row (sql/scan.ts).
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../schema.js';
import { param, type Preparer, type Statement } from '../sql/statement.js';
import { query } from './query.js';
import { linkedTransactions } from './transactions.js';

/** A filter as the index that serves it: a table, its sequence column, and the columns it matches to parameters. */
export interface IndexFilter {
  table: 'transactions' | 'transaction_metadata' | 'transaction_accounts' | 'accounts' | 'account_metadata' | 'holds' | 'hold_accounts';
  seq: 'seq' | 'tx_seq' | 'account_seq' | 'hold_seq';
  /** Each column and the parameter it equals. */
  equals: ReadonlyArray<readonly [column: string, param: string]>;
}

/** Parameters of metadata filters: `k0`, `v0`, `k1`, `v1`, … */
export const metadataParams = (entries: ReadonlyArray<readonly [string, string]>): Record<string, string> =>
  Object.fromEntries(entries.flatMap(([key, value], i) => [[`k${i}`, key], [`v${i}`, value]]));

/** `count` metadata filters (`metadata[key]=value`) on the table that keeps a list's entries by its rows' sequence. */
export const metadataFilters = (table: 'transaction_metadata' | 'account_metadata', seq: 'tx_seq' | 'account_seq', count: number): IndexFilter[] =>
  Array.from({ length: count }, (_, i) => ({ table, seq, equals: [['key', `k${i}`], ['value', `v${i}`]] as const }));

/** The lists a search answers, each read by its rows' sequences. */
export type SearchedList = 'transactions' | 'accounts' | 'holds';

type Seqs = SelectQueryBuilder<Database, any, { seq: bigint }>;

const name = (f: IndexFilter) => `${f.table}.${f.seq}(${f.equals.map(([column, p]) => `${column}=${p}`).join(',')})`;

/** The filter's rows from its index within [fromSeq, toSeq], as `lead`. */
function leadRows(q: Kysely<Database>, f: IndexFilter): Seqs {
  const seq = `lead.${f.seq}`;
  return f.equals
    .reduce((rows: any, [column, p]) => rows.where(`lead.${column}`, '=', param(p)), (q as Kysely<any>).selectFrom(`${f.table} as lead`).select(`${seq} as seq`).where('lead.tenant_id', '=', param('tenantId')))
    .where(sql.ref(seq), '>=', param<bigint>('fromSeq'))
    .where(sql.ref(seq), '<=', param<bigint>('toSeq')) as Seqs;
}

/** Whether the row at `seq` (another index's) is also in the filter's: one seek of its index. */
const checkedOn = (f: IndexFilter, alias: string, seq: string) => (eb: any) =>
  eb.exists(
    f.equals.reduce(
      (rows: any, [column, p]) => rows.where(`${alias}.${column}`, '=', param(p)),
      eb.selectFrom(`${f.table} as ${alias}`).select(sql.lit(1).as('one')).where(`${alias}.tenant_id`, '=', param('tenantId')).whereRef(`${alias}.${f.seq}`, '=', sql.ref(seq)),
    ),
  );

/** The page's sequences, newest first: the leading filter's rows in range, each other filter checked on them. */
function pageSeqs(q: Kysely<Database>, filters: readonly IndexFilter[], lead: number): Seqs {
  const seq = `lead.${filters[lead]!.seq}`;
  return filters
    .reduce((rows: any, f, i) => (i === lead ? rows : rows.where(checkedOn(f, `c${i}`, seq))), leadRows(q, filters[lead]!))
    .orderBy(sql.ref(seq), 'desc')
    .limit(param<number>('limit')) as Seqs;
}

/** Each list's rows at the page's sequences, newest first. */
const rowsOf: Record<SearchedList, (q: Kysely<Database>, seqs: Seqs) => SelectQueryBuilder<Database, any, any>> = {
  transactions: (q, seqs) => linkedTransactions(q).where('t.seq', 'in', seqs).orderBy('t.seq', 'desc'),
  accounts: (q, seqs) => q.selectFrom('accounts').selectAll().where('tenant_id', '=', param('tenantId')).where('seq', 'in', seqs).orderBy('seq', 'desc'),
  holds: (q, seqs) => q.selectFrom('holds').selectAll().where('tenant_id', '=', param('tenantId')).where('seq', 'in', seqs).orderBy('seq', 'desc'),
};

export function indexFilterStatements(prepare: Preparer) {
  const p = query(prepare);
  const tops = new Map<string, Statement<{ n: number | bigint | string; floor: number | bigint | string | null }>>();
  const pages = new Map<string, Statement<any>>();
  return {
    /**
     * How many of the filter's rows lie in [fromSeq, toSeq], up to `cap`, and the lowest sequence among those counted
     * (from the top): with `cap` rows, the page's range may be cut there. Prepared on first use for each filter's shape.
     */
    filterTop(f: IndexFilter) {
      const key = name(f);
      let statement = tops.get(key);
      if (!statement) {
        statement = p((q) =>
          q
            .selectFrom(leadRows(q, f).orderBy(sql.ref(`lead.${f.seq}`), 'desc').limit(param<number>('cap')).as('top'))
            .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('top.seq').as('floor')]),
        ) as never;
        tops.set(key, statement!);
      }
      return statement!;
    },
    /** A page of the list's rows, newest first, that `filters[lead]` leads to and every other filter holds. */
    filteredPage<Row>(list: SearchedList, filters: readonly IndexFilter[], lead: number): Statement<Row> {
      const key = `${list}|${lead}|${filters.map(name).join('|')}`;
      let statement = pages.get(key);
      if (!statement) {
        statement = p((q) => rowsOf[list](q, pageSeqs(q, filters, lead)));
        pages.set(key, statement);
      }
      return statement as Statement<Row>;
    },
  };
}
