// Every table of a ledger and how to read one whole with flat memory: `ledger db copy` moves them, `ledger db check`
// and the copy's verification read them.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';
import { COPY_BATCH_DOCUMENT_ROWS, COPY_BATCH_ROWS } from '../core/limits.js';

export type Table = keyof Database;

/** Every table of a ledger, parents before children, with the columns that order its rows uniquely. */
export const LEDGER_TABLES: ReadonlyArray<{ table: Table; key: readonly string[] }> = [
  { table: 'instance_secrets', key: ['name'] },
  { table: 'tenants', key: ['seq'] },
  { table: 'api_keys', key: ['seq'] },
  { table: 'accounts', key: ['seq'] },
  { table: 'account_metadata', key: ['tenant_id', 'key', 'value', 'account_seq'] },
  { table: 'clearing_accounts', key: ['tenant_id'] },
  { table: 'transactions', key: ['seq'] },
  { table: 'entries', key: ['seq'] },
  { table: 'transaction_reversals', key: ['tenant_id', 'transaction_id'] },
  { table: 'transaction_metadata', key: ['tenant_id', 'key', 'value', 'tx_seq'] },
  { table: 'transaction_accounts', key: ['tenant_id', 'account_id', 'tx_seq'] },
  { table: 'balances', key: ['tenant_id', 'account_id', 'asset'] },
  { table: 'idempotency', key: ['tenant_id', 'endpoint', 'key'] },
  { table: 'audit_log', key: ['seq'] },
  { table: 'outbox', key: ['seq'] },
  { table: 'settlements', key: ['seq'] },
  { table: 'reconciliation_results', key: ['seq'] },
  { table: 'webhooks', key: ['tenant_id'] },
  { table: 'webhook_deliveries', key: ['seq'] },
  { table: 'policy_rules', key: ['seq'] },
  { table: 'agent_transactions', key: ['seq'] },
  { table: 'chain_checkpoints', key: ['chain'] },
  { table: 'chain_transfers', key: ['seq'] },
  { table: 'onchain_lines', key: ['tenant_id', 'transaction_id', 'line_no'] },
  { table: 'event_retention', key: ['tenant_id'] },
  { table: 'holds', key: ['seq'] },
  { table: 'hold_accounts', key: ['tenant_id', 'account_id', 'hold_seq'] },
  { table: 'bank_statements', key: ['seq'] },
  { table: 'bank_statement_lines', key: ['seq'] },
  { table: 'bank_matches', key: ['tenant_id', 'entry_seq'] },
  { table: 'reconciliation_settings', key: ['tenant_id', 'account_id'] },
  { table: 'effective_buckets', key: ['tenant_id', 'account_id', 'asset', 'slot'] },
];

export const countOf = async (k: Kysely<Database>, table: Table): Promise<number> =>
  Number((await k.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

/** Tables whose rows carry a whole document: a transaction, an event body, an agent's request, a hold's. */
const DOCUMENT_TABLES: ReadonlySet<Table> = new Set(['transactions', 'outbox', 'agent_transactions', 'holds']);

/** The rows of a table after a key position, in key order, a batch at a time. */
export async function* rowsOf(k: Kysely<Database>, table: Table, key: readonly string[]): AsyncGenerator<Array<Record<string, unknown>>> {
  const size = DOCUMENT_TABLES.has(table) ? COPY_BATCH_DOCUMENT_ROWS : COPY_BATCH_ROWS;
  let after: unknown[] | null = null;
  for (;;) {
    let query = k.selectFrom(table).selectAll() as unknown as SelectQueryBuilder<any, any, Record<string, unknown>>;
    if (after) {
      const position = after;
      query = query.where((eb) => eb(eb.refTuple(...(key as [string, string])), '>', eb.tuple(...(position as [unknown, unknown]))));
    }
    for (const column of key) query = query.orderBy(column);
    const batch = await query.limit(size).execute();
    if (batch.length === 0) return;
    yield batch;
    const last = batch[batch.length - 1]!;
    after = key.map((column) => last[column]);
    if (batch.length < size) return;
  }
}

/** A row as people find it: by its sequence (and id), or by the columns of its key. */
export function rowName(table: Table, key: readonly string[], row: Record<string, unknown>): string {
  const by = key.map((column) => `${column} ${String(row[column])}`).join(', ');
  return `${table} row ${by}${row.id !== undefined && !key.includes('id') ? ` (id ${String(row.id)})` : ''}`;
}
