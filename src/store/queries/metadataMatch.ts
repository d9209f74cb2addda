// A list filtered by metadata entries (`metadata[key]=value`, all of them): the first entry's index leads, in the
// list's order, and each other entry is checked on its rows. Transactions and accounts keep their entries alike,
// by the sequence of what they belong to.
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../schema.js';
import { param } from '../sql/statement.js';

/** Parameters of a metadata filter: `k0`, `v0`, `k1`, `v1`, … */
export const metadataParams = (entries: ReadonlyArray<readonly [string, string]>): Record<string, string> =>
  Object.fromEntries(entries.flatMap(([key, value], i) => [[`k${i}`, key], [`v${i}`, value]]));

/** The sequences that carry every one of `count` entries, from the table's index of the first (`m0`). */
export function metadataMatch(
  q: Kysely<Database>,
  table: 'transaction_metadata' | 'account_metadata',
  seq: 'tx_seq' | 'account_seq',
  count: number,
): SelectQueryBuilder<Database, any, { seq: bigint }> {
  const tenant = param('tenantId');
  let driver = (q as Kysely<any>)
    .selectFrom(`${table} as m0`)
    .select(`m0.${seq} as seq`)
    .where('m0.tenant_id', '=', tenant)
    .where('m0.key', '=', param('k0'))
    .where('m0.value', '=', param('v0'));
  for (let i = 1; i < count; i++) {
    const m = `m${i}`;
    driver = driver.where((eb: any) =>
      eb.exists(
        eb
          .selectFrom(`${table} as ${m}`)
          .select(sql.lit(1).as('one'))
          .where(`${m}.tenant_id`, '=', tenant)
          .where(`${m}.key`, '=', param(`k${i}`))
          .where(`${m}.value`, '=', param(`v${i}`))
          .whereRef(`${m}.${seq}`, '=', `m0.${seq}`),
      ),
    );
  }
  return driver as never;
}
