// `ledger db copy`: a whole ledger from one database to another (SQLite to PostgreSQL or back), streamed table by
// table in key order so memory stays flat, then verified on the target: row counts, every tenant's audit chain,
// and every kept balance against the sum of its entries.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { openSchema, type SchemaHandle } from './migrate.js';
import { openLedger } from './open.js';
import { invalid } from '../core/errors.js';
import { COPY_BATCH_DOCUMENT_ROWS, COPY_BATCH_ROWS } from '../core/limits.js';

type Table = keyof Database;

/** Every table of a ledger, parents before children, with the columns that order its rows uniquely. */
export const LEDGER_TABLES: ReadonlyArray<{ table: Table; key: readonly string[] }> = [
  { table: 'instance_secrets', key: ['name'] },
  { table: 'tenants', key: ['seq'] },
  { table: 'api_keys', key: ['seq'] },
  { table: 'accounts', key: ['seq'] },
  { table: 'clearing_accounts', key: ['tenant_id'] },
  { table: 'transactions', key: ['seq'] },
  { table: 'entries', key: ['seq'] },
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
];

export interface CopyProgress {
  (table: string, copied: number, total: number): void;
}

export interface CopyReport {
  tables: Array<{ table: Table; rows: number }>;
  tenantsVerified: number;
  auditRecordsVerified: number;
  balancesVerified: number;
}

const countOf = async (k: Kysely<Database>, table: Table): Promise<number> =>
  Number((await k.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

/** Tables whose rows carry a whole document: a transaction, an event body, an agent's request, a hold's. */
const DOCUMENT_TABLES: ReadonlySet<Table> = new Set(['transactions', 'outbox', 'agent_transactions', 'holds']);

/** The rows of a table after a key position, in key order, a batch at a time. */
export async function* rowsOf(k: Kysely<Database>, table: Table, key: readonly string[]): AsyncGenerator<Array<Record<string, unknown>>> {
  const size = DOCUMENT_TABLES.has(table) ? COPY_BATCH_DOCUMENT_ROWS : COPY_BATCH_ROWS;
  let after: unknown[] | null = null;
  for (;;) {
    let query = k.selectFrom(table).selectAll() as unknown as import('kysely').SelectQueryBuilder<any, any, Record<string, unknown>>;
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

/** Tables whose sequence is an identity column on PostgreSQL continue after the copied rows. */
async function continueSequences(target: SchemaHandle): Promise<void> {
  if (target.target.engine !== 'postgres') return;
  for (const { table, key } of LEDGER_TABLES) {
    if (key[0] !== 'seq') continue;
    await sql`SELECT setval(pg_get_serial_sequence(${table}, 'seq'), GREATEST((SELECT COALESCE(MAX(seq), 0) FROM ${sql.table(table)}), 1))`.execute(target.kysely);
  }
}

/** Refuses a target that already holds a ledger: copying merges nothing. */
async function assertEmpty(target: SchemaHandle): Promise<void> {
  for (const { table } of LEDGER_TABLES) {
    if ((await countOf(target.kysely, table)) > 0) {
      throw invalid(`The target ${target.describe} already holds a ledger (its ${table} table has rows); copy into an empty database.`);
    }
  }
}

export async function copyLedger(from: string, to: string, progress: CopyProgress = () => {}): Promise<CopyReport> {
  if (from === to) throw invalid('--from and --to name the same database.');
  const source = await openSchema(from, { migrate: false });
  if (!source) throw invalid(`--from ${from}: there is no such database.`);
  const report: CopyReport = { tables: [], tenantsVerified: 0, auditRecordsVerified: 0, balancesVerified: 0 };
  try {
    const status = await import('./migrate.js').then((m) => m.schemaStatus(from));
    if (status.pending.length > 0) {
      throw invalid(`--from ${source.describe} is not at the latest schema (${status.pending.length} migration(s) pending): run \`ledger db migrate\` on it first.`);
    }
    const target = await openSchema(to, { migrate: true });
    if (!target) throw invalid(`--to ${to}: the database could not be created.`);
    try {
      await assertEmpty(target);
      for (const { table, key } of LEDGER_TABLES) {
        const total = await countOf(source.kysely, table);
        let copied = 0;
        progress(table, 0, total);
        for await (const batch of rowsOf(source.kysely, table, key)) {
          // One transaction a batch: a failure leaves whole batches, and the empty-target check refuses a retry over them.
          await target.kysely.transaction().execute((trx) => trx.insertInto(table).values(batch as never).execute());
          copied += batch.length;
          progress(table, copied, total);
        }
        report.tables.push({ table, rows: copied });
      }
      await continueSequences(target);
      for (const { table, rows } of report.tables) {
        const counted = await countOf(target.kysely, table);
        if (counted !== rows) throw new Error(`Verification failed: ${table} has ${counted} rows on the target, ${rows} were copied.`);
      }
      report.balancesVerified = await verifyBalances(target.kysely);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
  const verified = await verifyChains(to);
  report.tenantsVerified = verified.tenants;
  report.auditRecordsVerified = verified.records;
  return report;
}

/** Every tenant's audit chain, recomputed on the target through the ledger itself. */
async function verifyChains(db: string): Promise<{ tenants: number; records: number }> {
  const opened = await openLedger(db, { writer: 'local' });
  try {
    const handle = await openSchema(db, { migrate: false });
    const tenants = handle ? await handle.kysely.selectFrom('tenants').select('id').orderBy('seq').execute() : [];
    await handle?.close();
    let records = 0;
    for (const { id } of tenants) {
      const report = await opened.ledger.verifyAuditChain(id);
      if (!report.ok) throw new Error(`Verification failed: the audit chain of tenant ${id} breaks at record ${report.position} (${report.id}) on the target: ${report.reason}.`);
      records += report.count;
    }
    return { tenants: tenants.length, records };
  } finally {
    await opened.close();
  }
}

/**
 * Every kept balance equals the sum of its entries (debits minus credits), summed with bigint as the entries stream
 * by: memory holds one sum per account and asset, however many entries there are.
 */
export async function verifyBalances(k: Kysely<Database>): Promise<number> {
  const kept = new Map<string, bigint>();
  for await (const batch of rowsOf(k, 'balances', ['tenant_id', 'account_id', 'asset'])) {
    for (const r of batch) kept.set(`${r.tenant_id}|${r.account_id}|${r.asset}`, BigInt(r.balance as string));
  }
  const sums = new Map<string, bigint>();
  for await (const batch of rowsOf(k, 'entries', ['seq'])) {
    for (const r of batch) {
      const slot = `${r.tenant_id}|${r.account_id}|${r.asset}`;
      const amount = BigInt(r.amount as string);
      sums.set(slot, (sums.get(slot) ?? 0n) + (r.entry_type === 'DEBIT' ? amount : -amount));
    }
  }
  for (const [slot, sum] of sums) {
    const balance = kept.get(slot);
    if (balance !== sum) throw new Error(`Verification failed: the kept balance of ${slot.replaceAll('|', ' ')} is ${balance ?? 'missing'}, its entries sum to ${sum}.`);
  }
  for (const [slot, balance] of kept) {
    if (!sums.has(slot) && balance !== 0n) throw new Error(`Verification failed: ${slot.replaceAll('|', ' ')} keeps ${balance} with no entries.`);
  }
  return kept.size;
}
