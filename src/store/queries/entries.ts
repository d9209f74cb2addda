// Entries and kept balances: a balance row per account and asset, and on every entry the running balance after it.
import { sql, type Kysely } from 'kysely';
import { tokens } from '../../core/money.js';
import { BALANCE_READ_AHEAD_ACCOUNTS } from '../../core/limits.js';
import type { Database } from '../schema.js';
import { param, type Preparer } from '../sql/statement.js';
import { deferrable, query } from './query.js';

export function entriesStatements(prepare: Preparer) {
  const p = query(prepare);
  const tenant = param('tenantId');
  const account = param('accountId');
  /**
   * Entries of one account in one asset within a time range and before a keyset position, newest first, each with the
   * bank statement line it is matched to, where a visible (READY) statement's line is.
   */
  const entriesWindow = (q: Kysely<Database>) =>
    q
      .selectFrom('entries as e')
      .leftJoin('bank_matches as m', (j) => j.onRef('m.tenant_id', '=', 'e.tenant_id').onRef('m.entry_seq', '=', 'e.seq'))
      .leftJoin('bank_statements as s', (j) => j.onRef('s.tenant_id', '=', 'm.tenant_id').onRef('s.id', '=', 'm.statement_id').on('s.state', '=', 'READY'))
      .where('e.tenant_id', '=', tenant)
      .where('e.account_id', '=', account)
      .where('e.asset', '=', param('asset'))
      // The keyset bound is folded into the range on created_at, so the index seeks straight to the cursor
      // (a row-value comparison alone is not used as a range, and page 10,000 would scan 500,000 rows).
      .where('e.created_at', '>=', param('from'))
      .where('e.created_at', '<=', param('upTo'))
      .where((eb) => eb.or([eb('e.created_at', '<', param('beforeTime')), eb('e.seq', '<', param<bigint>('beforeSeq'))]))
      .orderBy('e.created_at', 'desc')
      .orderBy('e.seq', 'desc');
  /** The running balance after the last entry of an asset before (or at) an instant: one index seek. */
  const balanceAt = (op: '<' | '<=') =>
    p((q) =>
      q
        .selectFrom('entries')
        .select('balance_after')
        .where('tenant_id', '=', tenant)
        .where('account_id', '=', account)
        .where('asset', '=', param('asset'))
        .where('created_at', op, param('at'))
        .orderBy('created_at', 'desc')
        .orderBy('seq', 'desc')
        .limit(1),
    );
  /** Kept balances of `width` accounts, every asset; the accounts are parameters a0, a1, … (repeat one to fill). */
  const balancesOf = (width: number) =>
    p((q) =>
      q
        .selectFrom('balances')
        .select(['account_id', 'asset', 'balance', 'limit_min', 'limit_max', 'pending_out', 'pending_in'])
        .where('tenant_id', '=', tenant)
        .where(
          'account_id',
          'in',
          Array.from({ length: width }, (_, i) => param(`a${i}`)),
        ),
    );
  /** An account's back-dated entries in an asset (0029's partial indexes). */
  const backdatedOf = (q: Kysely<Database>) =>
    q.selectFrom('entries').where('tenant_id', '=', tenant).where('account_id', '=', account).where('asset', '=', param('asset')).where('effective_at', 'is not', null);
  /** An account's buckets in an asset (docs/design.md, "Effective dates"). */
  const bucketsOf = (q: Kysely<Database>) => q.selectFrom('effective_buckets').where('tenant_id', '=', tenant).where('account_id', '=', account).where('asset', '=', param('asset'));
  return {
    balances: p((q) => q.selectFrom('balances').select(['asset', 'balance', 'limit_min', 'limit_max', 'pending_out', 'pending_in']).where('tenant_id', '=', tenant).where('account_id', '=', account)),
    // Limits: every limit of the account cleared, then each given asset's set (a row of balance 0 where none is yet).
    clearLimits: p((q) => q.updateTable('balances').set({ limit_min: null, limit_max: null }).where('tenant_id', '=', tenant).where('account_id', '=', account)),
    setLimits: p((q) =>
      q
        .insertInto('balances')
        .values({ tenant_id: tenant, account_id: account, asset: param('asset'), balance: '0', limit_min: param('min'), limit_max: param('max') })
        .onConflict((oc) =>
          oc.columns(['tenant_id', 'account_id', 'asset']).doUpdateSet({ limit_min: (eb) => eb.ref('excluded.limit_min'), limit_max: (eb) => eb.ref('excluded.limit_max') }),
        ),
    ),
    /** The kept balances of two accounts (the same one twice for one), every asset: a posting's usual two in one read. */
    balancesOfPair: balancesOf(2),
    /** The same for up to BALANCE_READ_AHEAD_ACCOUNTS accounts: what a write group will read, read at its start. */
    balancesOfMany: balancesOf(BALANCE_READ_AHEAD_ACCOUNTS),
    balance: p((q) =>
      q.selectFrom('balances').select('balance').where('tenant_id', '=', tenant).where('account_id', '=', account).where('asset', '=', param('asset')),
    ),
    setBalance: p((q) =>
      q
        .insertInto('balances')
        .values({ tenant_id: tenant, account_id: account, asset: param('asset'), balance: param('balance') })
        .onConflict((oc) => oc.columns(['tenant_id', 'account_id', 'asset']).doUpdateSet({ balance: (eb) => eb.ref('excluded.balance') })),
      deferrable,
    ),
    // What open holds reserve on a balance, set as a whole (the writer holds the value it had).
    setPending: p((q) =>
      q
        .insertInto('balances')
        .values({ tenant_id: tenant, account_id: account, asset: param('asset'), balance: '0', pending_out: param('out'), pending_in: param('in') })
        .onConflict((oc) =>
          oc.columns(['tenant_id', 'account_id', 'asset']).doUpdateSet({ pending_out: (eb) => eb.ref('excluded.pending_out'), pending_in: (eb) => eb.ref('excluded.pending_in') }),
        ),
    ),
    /** The running total of an account's back-dated entries in an asset, as its last one committed by `at` keeps it. */
    backdatedTotalAt: p((q) =>
      backdatedOf(q).select('backdated_after').where('created_at', '<=', param('at')).orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(1),
    ),
    /** The back-dated entries of an account in an asset effective in [from, to]. */
    backdatedBetween: p((q) => backdatedOf(q).select(['entry_type', 'amount']).where('effective_at', '>=', param('from')).where('effective_at', '<=', param('to'))),
    /** The buckets of slots in [from, to). */
    bucketsBetween: p((q) => bucketsOf(q).select(['slot', 'net']).where('slot', '>=', param('from')).where('slot', '<', param('to'))),
    bucket: p((q) => bucketsOf(q).select('net').where('slot', '=', param('slot'))),
    setBucket: p((q) =>
      q
        .insertInto('effective_buckets')
        .values({ tenant_id: tenant, account_id: account, asset: param('asset'), slot: param('slot'), net: param('net') })
        .onConflict((oc) => oc.columns(['tenant_id', 'account_id', 'asset', 'slot']).doUpdateSet({ net: (eb) => eb.ref('excluded.net') })),
      deferrable,
    ),
    balanceAtInclusive: balanceAt('<='),
    balanceAtExclusive: balanceAt('<'),
    /**
     * A page of one asset's entries, each as one text: `<seq>,<created_at>,<line id or nothing>,<view>` (its keyset
     * position, by which an account's assets are merged and the cursor is made, the statement line it is matched to,
     * then its view): one string a row costs the driver less than a row of four columns (docs/benchmarks.md).
     */
    entryViews: prepare<string>(
      (q) =>
        entriesWindow(q)
          .select(
            sql<string>`${sql.ref('e.seq')} || ',' || ${sql.ref('e.created_at')} || ',' || coalesce(case when ${sql.ref('s.id')} is null then null else ${sql.ref('m.line_id')} end, '') || ',' || ${sql.ref('e.view')}`.as('positioned'),
          )
          .limit(param<number>('limit')),
      { pluck: true },
    ),
    entriesBetween: p((q) =>
      q
        .selectFrom('entries')
        .select(['seq', 'tenant_id', 'transaction_id', 'account_id', 'line_no', 'entry_type', 'asset', 'amount', 'description', 'created_at', 'balance_after', 'effective_at'])
        .where('tenant_id', '=', tenant)
        .where('account_id', '=', account)
        .where('asset', '=', param('asset'))
        .where('created_at', '>=', param('from'))
        .where('created_at', '<=', param('to'))
        // After a keyset position (the part before's last entry), its time folded into the range's lower bound.
        .where((eb) => eb.or([eb('created_at', '>', param('from')), eb('seq', '>', param<bigint>('afterSeq'))]))
        .orderBy('created_at', 'asc')
        .orderBy('seq', 'asc')
        .limit(param<number>('limit')),
    ),
    insertEntry: p((q) =>
      q.insertInto('entries').values({
        tenant_id: tenant,
        transaction_id: param('transactionId'),
        account_id: account,
        line_no: param<bigint>('lineNo'),
        entry_type: param('entryType'),
        asset: param('asset'),
        amount: param('amount'),
        details: param('details'),
        description: param('description'),
        created_at: param('createdAt'),
        balance_after: param('balanceAfter'),
        view: param('view'),
        bank_reference: param<string | null>('bankReference'),
        effective_at: param<string | null>('effectiveAt'),
        backdated_after: param<string | null>('backdatedAfter'),
      }),
      deferrable,
    ),
    // The same literal token list as the partial index (0006), so that SQLite can use it.
    onchainEntries: p((q) =>
      q
        .selectFrom('entries')
        .selectAll()
        .where('tenant_id', '=', tenant)
        .where('transaction_id', '=', param('transactionId'))
        .where('asset', 'in', tokens.map((token) => sql.lit(token)))
        .orderBy('line_no', 'asc'),
    ),
  };
}
