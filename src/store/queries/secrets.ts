// Secrets of the database (cursor signing, key hashing), made on first use; a race keeps the first.
import { param, type Preparer } from '../sql/statement.js';
import { query } from './query.js';

export function secretsStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  return {
    secret: p((q) => q.selectFrom('instance_secrets').select('value').where('name', '=', param('name'))),
    insertSecret: p((q) =>
      q
        .insertInto('instance_secrets')
        .values({ name: param('name'), value: param('value') })
        .onConflict((oc) => oc.column('name').doNothing()),
    ),
  };
}
