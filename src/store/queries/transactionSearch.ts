// Finding transactions (GET /api/v1/transactions with filters): each filter is served by an index, on both engines.
// The one that leads (the first metadata entry, else the account) is read from its index in commit order from the
// page's position, the others are checked on each of its rows, and a time bound is a range of sequences: a page reads
// about as many index rows as it answers, whatever the tenant's size. Transactions are then read by their sequence.
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../schema.js';
import { jsonRows } from './jsonRows.js';
import { metadataMatch } from './metadataMatch.js';
import { param, type Preparer, type Statement } from '../sql/statement.js';
import { deferrable, query } from './query.js';
import { linkedTransactions, type LinkedTransactionRow } from './transactions.js';

/** The filters a search statement is built for: how many metadata entries, and whether an account. */
export interface SearchShape {
  metadata: number;
  account: boolean;
}

type Driver = SelectQueryBuilder<Database, any, { tx_seq: bigint }>;

/** The sequences of the page's transactions, newest first, from the leading filter's index. */
function matchingSeqs(q: Kysely<Database>, shape: SearchShape): Driver {
  const tenant = param('tenantId');
  // One upper bound (the page's position and the time bound's, whichever is lower): an index range needs it whole.
  const bounded = <D extends Driver>(driver: D, column: string): D =>
    driver
      .where(sql.ref(column), '>=', param<bigint>('fromSeq'))
      .where(sql.ref(column), '<=', param<bigint>('toSeq'))
      .orderBy(sql.ref(column), 'desc')
      .limit(param<number>('limit')) as D;
  const hasAccount = (seq: string) => (eb: any) =>
    eb.exists(
      eb
        .selectFrom('transaction_accounts as a')
        .select(sql.lit(1).as('one'))
        .where('a.tenant_id', '=', tenant)
        .where('a.account_id', '=', param('accountId'))
        .whereRef('a.tx_seq', '=', sql.ref(seq)),
    );
  if (shape.metadata > 0) {
    let driver = metadataMatch(q, 'transaction_metadata', 'tx_seq', shape.metadata) as unknown as Driver;
    if (shape.account) driver = driver.where(hasAccount('m0.tx_seq'));
    return bounded(driver, 'm0.tx_seq');
  }
  if (shape.account) {
    const driver = q.selectFrom('transaction_accounts as a0').select('a0.tx_seq').where('a0.tenant_id', '=', tenant).where('a0.account_id', '=', param('accountId')) as unknown as Driver;
    return bounded(driver, 'a0.tx_seq');
  }
  const driver = q.selectFrom('transactions as d').select('d.seq as tx_seq').where('d.tenant_id', '=', tenant) as unknown as Driver;
  return bounded(driver, 'd.seq');
}


export function transactionSearchStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  const searches = new Map<string, Statement<LinkedTransactionRow>>();
  return {
    /** The statement for a combination of filters, prepared on first use (a dozen combinations at most). */
    transactionSearch(shape: SearchShape): Statement<LinkedTransactionRow> {
      const name = `${shape.metadata}|${shape.account}`;
      let statement = searches.get(name);
      if (!statement) {
        statement = p((q) => linkedTransactions(q).where('t.seq', 'in', matchingSeqs(q, shape)).orderBy('t.seq', 'desc')) as Statement<LinkedTransactionRow>;
        searches.set(name, statement);
      }
      return statement;
    },
    /** The first and the last of a tenant's transactions within a time bound (its times rise with its sequence). */
    firstSeqFrom: p((q) =>
      q.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).where('created_at', '>=', param('at')).orderBy('created_at', 'asc').orderBy('seq', 'asc').limit(1),
    ),
    lastSeqTo: p((q) =>
      q.selectFrom('transactions').select('seq').where('tenant_id', '=', tenant).where('created_at', '<=', param('at')).orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(1),
    ),
    insertTransactionMetadata: p(
      (q) =>
        q
          .insertInto('transaction_metadata')
          .columns(['tenant_id', 'key', 'value', 'tx_seq'])
          .expression(
            q
              .selectFrom(['transactions as t', jsonRows(q, param('metadata'), 'entries').as('j')])
              .select(['t.tenant_id', sql<string>`j.key`.as('key'), sql<string>`j.value`.as('value'), 't.seq'])
              .where('t.tenant_id', '=', tenant)
              .where('t.id', '=', param('transactionId')),
          ),
      deferrable,
    ),
    insertTransactionAccounts: p(
      (q) =>
        q
          .insertInto('transaction_accounts')
          .columns(['tenant_id', 'account_id', 'tx_seq'])
          .expression(
            q
              .selectFrom(['transactions as t', jsonRows(q, param('accountIds'), 'elements').as('j')])
              .select(['t.tenant_id', sql<string>`j.value`.as('account_id'), 't.seq'])
              .where('t.tenant_id', '=', tenant)
              .where('t.id', '=', param('transactionId')),
          ),
      deferrable,
    ),
  };
}
