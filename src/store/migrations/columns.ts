// The few column types that differ between the engines; every migration takes its types from here.
import { PostgresAdapter, sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';

type DataTypeExpression = Parameters<CreateTableBuilder<string, never>['addColumn']>[1];

// SQLite: `integer primary key` is the rowid (numbers are 64-bit anyway), and text compares byte by byte. PostgreSQL:
// an identity column; 64-bit integers; NUMERIC amounts, so an operator can sum them in SQL; text in the "C"
// collation, so times, ids and keyset positions sort byte by byte, as on SQLite.
export interface ColumnTypes {
  /** The commit-order sequence: the table's primary key. */
  seqType: DataTypeExpression;
  seq: (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
  text: DataTypeExpression;
  int: DataTypeExpression;
  /** Minor units of an asset: integers of any size, exact. */
  amount: DataTypeExpression;
}

export const isPostgres = (db: Kysely<any>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

export function columnTypes(db: Kysely<any>): ColumnTypes {
  if (isPostgres(db)) {
    return {
      seqType: 'bigint',
      seq: (c) => c.primaryKey().generatedByDefaultAsIdentity(),
      text: sql`text collate "C"`,
      int: 'bigint',
      amount: 'numeric',
    };
  }
  return { seqType: 'integer', seq: (c) => c.primaryKey(), text: 'text', int: 'integer', amount: 'text' };
}
