// Accounts, their metadata entries (what the list's filters find them by), and each tenant's clearing account
// (credited for on-chain receipts no posting recorded).
import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../schema.js';
import { param, type Preparer, type Statement } from '../sql/statement.js';
import { query } from './query.js';
import { jsonRows } from './jsonRows.js';
import { metadataMatch } from './metadataMatch.js';

/** The filters an account search statement is built for: how many metadata entries, and which columns. */
export interface AccountSearchShape {
  metadata: number;
  columns: ReadonlyArray<'type' | 'currency' | 'name'>;
}

type Driver = SelectQueryBuilder<Database, any, { seq: bigint }>;

/**
 * The sequences of the page's accounts, newest first: from the first metadata entry's index when there is one
 * (the other entries and the columns checked on each of its rows), else from the accounts' index of the first column.
 */
function matchingSeqs(q: Kysely<Database>, shape: AccountSearchShape): Driver {
  const tenant = param('tenantId');
  const columnsOn = (driver: Driver, seq: string): Driver => {
    if (shape.columns.length === 0) return driver;
    return driver.where((eb: any) =>
      eb.exists(
        shape.columns.reduce(
          (accounts: any, column) => accounts.where(`c.${column}`, '=', param(column)),
          eb.selectFrom('accounts as c').select(sql.lit(1).as('one')).where('c.tenant_id', '=', tenant).whereRef('c.seq', '=', sql.ref(seq)),
        ),
      ),
    );
  };
  const page = (driver: Driver, seq: string): Driver =>
    driver.where(sql.ref(seq), '<', param<bigint>('before')).orderBy(sql.ref(seq), 'desc').limit(param<number>('limit')) as Driver;
  if (shape.metadata > 0) {
    const driver = metadataMatch(q, 'account_metadata', 'account_seq', shape.metadata) as unknown as Driver;
    return page(columnsOn(driver, 'm0.account_seq'), 'm0.account_seq');
  }
  const driver = shape.columns.reduce(
    (accounts: any, column) => accounts.where(`d.${column}`, '=', param(column)),
    q.selectFrom('accounts as d').select('d.seq').where('d.tenant_id', '=', tenant),
  ) as Driver;
  return page(driver, 'd.seq');
}

export function accountsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  const account = param('accountId');
  const searches = new Map<string, Statement<Selectable<Database['accounts']>>>();
  return {
    account: p((q) => q.selectFrom('accounts').selectAll().where('tenant_id', '=', tenant).where('id', '=', account)),
    accountsPage: p((q) =>
      q
        .selectFrom('accounts')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('seq', '<', param<bigint>('before'))
        .orderBy('seq', 'desc')
        .limit(param<number>('limit')),
    ),
    /** The statement for a combination of filters, prepared on first use. */
    accountSearch(shape: AccountSearchShape) {
      const name = `${shape.metadata}|${shape.columns.join(',')}`;
      let statement = searches.get(name);
      if (!statement) {
        statement = p((q) => q.selectFrom('accounts').selectAll().where('tenant_id', '=', tenant).where('seq', 'in', matchingSeqs(q, shape)).orderBy('seq', 'desc')) as never;
        searches.set(name, statement!);
      }
      return statement!;
    },
    insertAccount: p((q) =>
      q.insertInto('accounts').values({
        tenant_id: tenant,
        id: param('id'),
        name: param('name'),
        description: param('description'),
        currency: param('currency'),
        type: param('type'),
        created_at: param('createdAt'),
        metadata: param('metadata'),
      }),
    ),
    updateAccount: p((q) =>
      q
        .updateTable('accounts')
        .set({ name: param('name'), description: param('description'), metadata: param('metadata') })
        .where('tenant_id', '=', tenant)
        .where('id', '=', account),
    ),
    /** The account's metadata entries, as its map says: the old ones deleted, the new ones written. */
    deleteAccountMetadata: p((q) =>
      q
        .deleteFrom('account_metadata')
        .where('tenant_id', '=', tenant)
        .where('account_seq', '=', (eb) => eb.selectFrom('accounts').select('seq').where('tenant_id', '=', tenant).where('id', '=', account)),
    ),
    insertAccountMetadata: p((q) =>
      q
        .insertInto('account_metadata')
        .columns(['tenant_id', 'key', 'value', 'account_seq'])
        .expression(
          q
            .selectFrom(['accounts as a', jsonRows(q, param('metadata'), 'entries').as('j')])
            .select(['a.tenant_id', sql<string>`j.key`.as('key'), sql<string>`j.value`.as('value'), 'a.seq'])
            .where('a.tenant_id', '=', tenant)
            .where('a.id', '=', account),
        ),
    ),
    clearingAccount: p((q) => q.selectFrom('clearing_accounts').select('account_id').where('tenant_id', '=', tenant)),
    setClearingAccount: p((q) => q.insertInto('clearing_accounts').values({ tenant_id: tenant, account_id: param('accountId') })),
  };
}
