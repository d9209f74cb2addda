// `ledger db check`: proves a ledger whole, on either engine, reading everything once with flat memory (one sum per
// account and asset, one open transaction per tenant; bank statements, lines and matches a batch at a time). Each
// kind of check counts its problems and names the first.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { openSchema } from '../migrate.js';
import { openLedger } from '../open.js';
import { parseDbTarget, shownDb } from '../dbTarget.js';
import { rowsOf, type Table } from '../ledgerTables.js';
import { invalid } from '../../core/errors.js';
import { auditResources, type AuditResourceKind } from '../../core/audit.js';
import { checkReversals, type Tallied } from './checkReversals.js';
import { tenantNames } from '../tenantNames.js';
import { lineDirections, sideOf, type LineDirection } from '../../core/bankStatement.js';
import { statementLineStatuses } from '../../core/enums.js';

/** A tenant's public id by the key its rows hold (tenantNames.ts). */
type TenantName = (key: unknown) => string;

export const CHECK_KINDS = [
  'engine',
  'balances',
  'trial balances',
  'running balances',
  'transactions',
  'reversals',
  'audit chains',
  'audit resources',
  'settlements',
  'bank statements',
  'bank statement lines',
  'bank matches',
  'bank line matches',
] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

/** What each check counts as checked. */
export const CHECKED: Record<CheckKind, string> = {
  engine: 'integrity check',
  balances: 'kept balances',
  'trial balances': 'tenant assets',
  'running balances': 'entries',
  transactions: 'transactions',
  reversals: 'reversals',
  'audit chains': 'audit records',
  'audit resources': 'records named',
  settlements: 'settlements',
  'bank statements': 'READY statements',
  'bank statement lines': 'statement lines',
  'bank matches': 'matches',
  'bank line matches': 'lines against their entries',
};

export interface CheckResult {
  kind: CheckKind;
  /** What was looked at: pages, balances, entries, transactions, records, settlements. */
  checked: number;
  problems: number;
  /** The first problem, in words; null when there is none. */
  first: string | null;
}

export interface CheckReport {
  database: string;
  ok: boolean;
  results: CheckResult[];
}

class Tally implements Tallied {
  checked = 0;
  problems = 0;
  first: string | null = null;
  constructor(readonly kind: CheckKind) {}
  problem(message: string): void {
    this.problems++;
    this.first ??= message;
  }
  result(): CheckResult {
    return { kind: this.kind, checked: this.checked, problems: this.problems, first: this.first };
  }
}

const slotName = (tenant: string, account: unknown, asset: unknown) => `account ${String(account)} of tenant ${tenant} in ${String(asset)}`;
/** An entry's id, which only its view holds (migration 0021); `?` where the view cannot be read. */
function entryIdOf(view: unknown): string {
  try {
    return String((JSON.parse(String(view)) as { entryId?: unknown }).entryId ?? '?');
  } catch {
    return '?';
  }
}

const signed = (entryType: unknown, amount: unknown): bigint => (entryType === 'DEBIT' ? BigInt(String(amount)) : -BigInt(String(amount)));

/** SQLite's own check of the file (every page, index and constraint); PostgreSQL's data checksum failures. */
async function checkEngine(k: Kysely<Database>, engine: 'sqlite' | 'postgres', tally: Tally): Promise<void> {
  if (engine === 'sqlite') {
    const { rows } = await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(k);
    tally.checked = 1;
    for (const row of rows) if (row.integrity_check !== 'ok') tally.problem(`SQLite integrity_check: ${row.integrity_check}`);
    return;
  }
  const { rows } = await sql<{ failures: string | number | bigint | null }>`
    SELECT checksum_failures AS failures FROM pg_stat_database WHERE datname = current_database()`.execute(k);
  tally.checked = 1;
  const failures = Number(rows[0]?.failures ?? 0);
  if (failures > 0) tally.problem(`PostgreSQL reports ${failures} data checksum failure(s) in this database`);
}

/**
 * One pass over every entry in commit order: the sums per account and asset (against the kept balances), each
 * entry's running balance (from the one before it on its account and asset), and each transaction's sum per asset
 * (a tenant's transactions are written one after another, so its entries of one transaction are contiguous).
 */
async function checkEntries(k: Kysely<Database>, tenantName: TenantName, balances: Tally, trial: Tally, running: Tally, transactions: Tally): Promise<GroupsByTenant> {
  const groups: GroupsByTenant = new Map();
  const kept = new Map<string, { balance: bigint; tenant: string; account: unknown; asset: unknown }>();
  for await (const batch of rowsOf(k, 'balances', ['tenant_id', 'account_id', 'asset'])) {
    for (const r of batch) kept.set(`${r.tenant_id}|${r.account_id}|${r.asset}`, { balance: BigInt(String(r.balance)), tenant: tenantName(r.tenant_id), account: r.account_id, asset: r.asset });
  }
  checkTrialBalances(kept.values(), trial);
  const last = new Map<string, bigint>();
  const open = new Map<string, { id: string; sums: Map<string, bigint> }>();
  const close = (tenant: string, tx: { id: string; sums: Map<string, bigint> }) => {
    transactions.checked++;
    groups.set(tenant, (groups.get(tenant) ?? 0) + 1);
    for (const [asset, sum] of tx.sums) {
      if (sum !== 0n) transactions.problem(`transaction ${tx.id} of tenant ${tenantName(tenant)} does not balance in ${asset}: debits minus credits are ${sum} minor units`);
    }
  };
  for await (const batch of rowsOf(k, 'entries', ['seq'])) {
    for (const r of batch) {
      running.checked++;
      const slot = `${r.tenant_id}|${r.account_id}|${r.asset}`;
      const amount = signed(r.entry_type, r.amount);
      const expected = (last.get(slot) ?? 0n) + amount;
      const stored = BigInt(String(r.balance_after));
      if (stored !== expected) {
        running.problem(`entry ${entryIdOf(r.view)} (transaction ${String(r.transaction_id)}, ${slotName(tenantName(r.tenant_id), r.account_id, r.asset)}) keeps a running balance of ${stored}; the entry before it and its own amount give ${expected}`);
      }
      last.set(slot, stored);
      const tenant = String(r.tenant_id);
      const previous = open.get(tenant);
      let tx = previous;
      if (!tx || tx.id !== r.transaction_id) {
        if (previous) close(tenant, previous);
        tx = { id: String(r.transaction_id), sums: new Map<string, bigint>() };
        open.set(tenant, tx);
      }
      tx.sums.set(String(r.asset), (tx.sums.get(String(r.asset)) ?? 0n) + amount);
    }
  }
  for (const [tenant, tx] of open) close(tenant, tx);

  // The running balance of an account's last entry is the sum of its entries; the kept balance must be it.
  for (const [slot, sum] of last) {
    balances.checked++;
    const row = kept.get(slot);
    const [tenant, account, asset] = slot.split('|');
    if (!row) balances.problem(`${slotName(tenantName(tenant), account, asset)} has entries summing to ${sum} but no kept balance`);
    else if (row.balance !== sum) balances.problem(`the kept balance of ${slotName(tenantName(tenant), account, asset)} is ${row.balance}; its entries sum to ${sum}`);
  }
  for (const [slot, row] of kept) {
    if (last.has(slot)) continue;
    balances.checked++;
    if (row.balance !== 0n) balances.problem(`the kept balance of ${slotName(row.tenant, row.account, row.asset)} is ${row.balance} with no entries`);
  }
  return groups;
}

/**
 * Each tenant's trial balance, asset by asset: its kept balances (debits minus credits) sum to zero, so the debit
 * balances equal the credit balances, as GET /api/v1/reports/trial-balance shows them.
 */
function checkTrialBalances(kept: Iterable<{ balance: bigint; tenant: unknown; asset: unknown }>, tally: Tally): void {
  const sums = new Map<string, { sum: bigint; tenant: unknown; asset: unknown }>();
  for (const row of kept) {
    const key = `${row.tenant}|${row.asset}`;
    const slot = sums.get(key) ?? { sum: 0n, tenant: row.tenant, asset: row.asset };
    slot.sum += row.balance;
    sums.set(key, slot);
  }
  for (const { sum, tenant, asset } of sums.values()) {
    tally.checked++;
    if (sum !== 0n) {
      tally.problem(`the trial balance of tenant ${String(tenant)} in ${String(asset)} does not balance: debit balances exceed credit balances by ${sum} minor units`);
    }
  }
}

/** SETTLED settlements point at an on-chain line of their token and amount, one settlement a line; the others at none. */
async function checkSettlements(k: Kysely<Database>, tenantName: TenantName, tally: Tally): Promise<void> {
  const lines = new Set<string>();
  for await (const batch of rowsOf(k, 'settlements', ['seq'])) {
    for (const s of batch) {
      tally.checked++;
      const name = `settlement ${String(s.id)} of tenant ${tenantName(s.tenant_id)}`;
      const matched = s.matched_transaction_id !== null || s.matched_line_no !== null;
      if (s.status !== 'SETTLED') {
        if (matched) tally.problem(`${name} is ${String(s.status)} but matched to transaction ${String(s.matched_transaction_id)}`);
        continue;
      }
      if (s.matched_transaction_id === null || s.matched_line_no === null) {
        tally.problem(`${name} is SETTLED but matched to no transaction line`);
        continue;
      }
      const line = `${s.tenant_id}|${s.matched_transaction_id}|${s.matched_line_no}`;
      if (lines.has(line)) tally.problem(`${name} is matched to line ${String(s.matched_line_no)} of transaction ${String(s.matched_transaction_id)}, which settles another settlement too`);
      lines.add(line);
      const entry = await k
        .selectFrom('entries')
        .select(['asset', 'amount'])
        .where('tenant_id', '=', String(s.tenant_id))
        .where('transaction_id', '=', String(s.matched_transaction_id))
        .where('line_no', '=', s.matched_line_no as bigint)
        .executeTakeFirst();
      if (!entry) tally.problem(`${name} is SETTLED by line ${String(s.matched_line_no)} of transaction ${String(s.matched_transaction_id)}, which does not exist`);
      else if (entry.asset !== s.token || BigInt(String(entry.amount)) !== BigInt(String(s.amount))) {
        tally.problem(`${name} expects ${String(s.amount)} minor units of ${String(s.token)} but is SETTLED by a line of ${String(entry.amount)} ${entry.asset}`);
      }
    }
  }
}

// Bank reconciliation (migration 0025): statements, their lines, and each line's matches to entries.

/** A whole number of minor units as a column holds it (text on SQLite, numeric on PostgreSQL); null when it is not one. */
function minorOf(value: unknown): bigint | null {
  try {
    return BigInt(String(value));
  } catch {
    return null;
  }
}

/** An entry's id where its view begins (`{"entryId":"<36 characters>"`): what a match names it by (queries/bankStatements.ts). */
const ENTRY_ID = sql<string>`substr(view, 13, 36)`;

const ENTRY_LOOKUP_ROWS = 500;

interface EntryOfMatch {
  tenant: string;
  id: string;
  account: string;
  asset: string;
  side: string;
  amount: bigint | null;
}

/** The entries of some sequences, by sequence (the entries' key): one lookup for a batch of matches. */
async function entriesBySeq(k: Kysely<Database>, seqs: unknown[]): Promise<Map<string, EntryOfMatch>> {
  const found = new Map<string, EntryOfMatch>();
  const unique = [...new Map(seqs.map((seq) => [String(seq), seq])).values()];
  // A batch of lines may have up to a hundred matches each: looked up in parts, within every engine's parameter limit.
  for (let i = 0; i < unique.length; i += ENTRY_LOOKUP_ROWS) {
    const rows = await k
      .selectFrom('entries')
      .select(['seq', 'tenant_id', 'account_id', 'asset', 'entry_type', 'amount', ENTRY_ID.as('entry_id')])
      .where('seq', 'in', unique.slice(i, i + ENTRY_LOOKUP_ROWS) as never)
      .execute();
    for (const r of rows) {
      found.set(String(r.seq), { tenant: String(r.tenant_id), id: String(r.entry_id), account: String(r.account_id), asset: String(r.asset), side: String(r.entry_type), amount: minorOf(r.amount) });
    }
  }
  return found;
}

/** Rows of a table by tenant and id (its unique index), for a batch: keyed `tenant|id`. */
async function byTenantAndId(
  k: Kysely<Database>,
  table: 'bank_statements' | 'bank_statement_lines',
  wanted: ReadonlyArray<readonly [tenant: string, id: string]>,
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  const unique = [...new Map(wanted.map(([tenant, id]) => [`${tenant}|${id}`, [tenant, id] as const])).values()];
  if (unique.length === 0) return found;
  const rows = (await k
    .selectFrom(table as 'bank_statements')
    .selectAll()
    .where((eb) => eb(eb.refTuple('tenant_id', 'id'), 'in', unique.map(([tenant, id]) => eb.tuple(tenant, id))))
    .execute()) as unknown as Array<Record<string, unknown>>;
  for (const r of rows) found.set(`${r.tenant_id}|${r.id}`, r);
  return found;
}

/** A READY statement's counts (lines, MATCHED, IGNORED) are those of its lines; a statement is IMPORTING or READY. */
async function checkBankStatements(k: Kysely<Database>, tenantName: TenantName, tally: Tally): Promise<void> {
  for await (const batch of rowsOf(k, 'bank_statements', ['seq'])) {
    const ready = batch.filter((s) => s.state === 'READY');
    for (const s of batch) {
      if (s.state !== 'READY' && s.state !== 'IMPORTING') tally.problem(`bank statement ${String(s.id)} of tenant ${tenantName(s.tenant_id)} is ${String(s.state)}, neither IMPORTING nor READY`);
    }
    if (ready.length === 0) continue;
    const counts = new Map<string, { lines: number; matched: number; ignored: number }>();
    const rows = await k
      .selectFrom('bank_statement_lines')
      .select(['tenant_id', 'statement_id', 'status', (eb) => eb.fn.countAll().as('n')])
      .where((eb) => eb(eb.refTuple('tenant_id', 'statement_id'), 'in', ready.map((s) => eb.tuple(String(s.tenant_id), String(s.id)))))
      .groupBy(['tenant_id', 'statement_id', 'status'])
      .execute();
    for (const r of rows) {
      const key = `${r.tenant_id}|${r.statement_id}`;
      const c = counts.get(key) ?? { lines: 0, matched: 0, ignored: 0 };
      const n = Number(r.n);
      c.lines += n;
      if (r.status === 'MATCHED') c.matched += n;
      if (r.status === 'IGNORED') c.ignored += n;
      counts.set(key, c);
    }
    for (const s of ready) {
      tally.checked++;
      const c = counts.get(`${s.tenant_id}|${s.id}`) ?? { lines: 0, matched: 0, ignored: 0 };
      const kept = { lines: Number(s.line_count), matched: Number(s.matched), ignored: Number(s.ignored) };
      if (kept.lines !== c.lines || kept.matched !== c.matched || kept.ignored !== c.ignored) {
        tally.problem(
          `bank statement ${String(s.id)} of tenant ${tenantName(s.tenant_id)} (account ${String(s.account_id)}) keeps ${kept.lines} lines, ${kept.matched} matched and ${kept.ignored} ignored; ` +
            `its lines are ${c.lines}, ${c.matched} MATCHED and ${c.ignored} IGNORED`,
        );
      }
    }
  }
}

/**
 * One pass over every statement line, a batch at a time with its statements, matches and their entries: each line
 * belongs to a statement of its own tenant, account and currency; a MATCHED line's entries are on its account, in its
 * currency and on its side (IN a DEBIT, OUT a CREDIT), and add up to its amount; an UNMATCHED or IGNORED line has none.
 */
async function checkStatementLines(k: Kysely<Database>, tenantName: TenantName, lines: Tally, matched: Tally): Promise<void> {
  for await (const batch of rowsOf(k, 'bank_statement_lines', ['seq'])) {
    const statements = await byTenantAndId(k, 'bank_statements', batch.map((l) => [String(l.tenant_id), String(l.statement_id)] as const));
    const matches = new Map<string, Array<Record<string, unknown>>>();
    const matchRows = (await k
      .selectFrom('bank_matches')
      .selectAll()
      .where((eb) => eb(eb.refTuple('tenant_id', 'line_id'), 'in', batch.map((l) => eb.tuple(String(l.tenant_id), String(l.id)))))
      .orderBy('entry_seq')
      .execute()) as unknown as Array<Record<string, unknown>>;
    for (const m of matchRows) {
      const key = `${m.tenant_id}|${m.line_id}`;
      matches.set(key, [...(matches.get(key) ?? []), m]);
    }
    const entries = await entriesBySeq(k, matchRows.map((m) => m.entry_seq));
    for (const l of batch) {
      const tenant = String(l.tenant_id);
      const name = `statement line ${String(l.id)} of tenant ${tenantName(tenant)}`;
      lines.checked++;
      const statement = statements.get(`${tenant}|${l.statement_id}`);
      if (!statement) lines.problem(`${name} belongs to bank statement ${String(l.statement_id)}, which is not a statement of the tenant`);
      else if (statement.account_id !== l.account_id) lines.problem(`${name} is on account ${String(l.account_id)}; its statement ${String(l.statement_id)} is of account ${String(statement.account_id)}`);
      else if (statement.currency !== l.currency) lines.problem(`${name} is in ${String(l.currency)}; its statement ${String(l.statement_id)} is in ${String(statement.currency)}`);

      matched.checked++;
      const own = matches.get(`${tenant}|${l.id}`) ?? [];
      if (!(statementLineStatuses as readonly unknown[]).includes(l.status)) {
        matched.problem(`${name} is ${String(l.status)}, none of ${statementLineStatuses.join(', ')}`);
        continue;
      }
      if (l.status !== 'MATCHED') {
        if (own.length > 0) matched.problem(`${name} is ${String(l.status)} but ${own.length} entries are matched to it (entry ${String(own[0]!.entry_id)} first)`);
        continue;
      }
      if (own.length === 0) {
        matched.problem(`${name} is MATCHED to no entry`);
        continue;
      }
      if (!(lineDirections as readonly unknown[]).includes(l.direction)) {
        matched.problem(`${name} goes ${String(l.direction)}, neither IN nor OUT`);
        continue;
      }
      const side = sideOf(l.direction as LineDirection);
      let total: bigint | null = 0n;
      for (const m of own) {
        const entry = entries.get(String(m.entry_seq));
        // A match naming no entry of the tenant is named by the check of the matches themselves.
        if (!entry || entry.tenant !== tenant || entry.amount === null) {
          total = null;
          continue;
        }
        const which = `${name} is matched to entry ${entry.id}`;
        if (entry.account !== l.account_id) matched.problem(`${which} on account ${entry.account}; the line is on account ${String(l.account_id)}`);
        if (entry.asset !== l.currency) matched.problem(`${which} in ${entry.asset}; the line is in ${String(l.currency)}`);
        if (entry.side !== side) matched.problem(`${which}, a ${entry.side}; a line ${String(l.direction)} matches ${side} entries`);
        if (total !== null) total += entry.amount;
      }
      const amount = minorOf(l.amount);
      if (total !== null && amount !== total) {
        matched.problem(`${name} is of ${String(l.amount)} minor units; its ${own.length} matched entries add up to ${total}`);
      }
    }
  }
}

/**
 * Every match names an entry of its own tenant by its sequence and its id, with the entry's amount, and a line of the
 * tenant on the match's statement; no entry is matched twice (the table's key holds it, where the key is there).
 */
async function checkBankMatches(k: Kysely<Database>, tenantName: TenantName, tally: Tally): Promise<void> {
  for await (const batch of rowsOf(k, 'bank_matches', ['tenant_id', 'entry_seq'])) {
    const entries = await entriesBySeq(k, batch.map((m) => m.entry_seq));
    const lines = await byTenantAndId(k, 'bank_statement_lines', batch.map((m) => [String(m.tenant_id), String(m.line_id)] as const));
    for (const m of batch) {
      tally.checked++;
      const tenant = String(m.tenant_id);
      const name = `the match of entry ${String(m.entry_id)} (seq ${String(m.entry_seq)}) to statement line ${String(m.line_id)} of tenant ${tenantName(tenant)}`;
      const entry = entries.get(String(m.entry_seq));
      if (!entry) tally.problem(`${name} names no entry: there is none at seq ${String(m.entry_seq)}`);
      else if (entry.tenant !== tenant) tally.problem(`${name} names the entry at seq ${String(m.entry_seq)}, which is tenant ${tenantName(entry.tenant)}'s`);
      else {
        if (entry.id !== m.entry_id) tally.problem(`${name} names entry ${String(m.entry_id)}, but the entry at seq ${String(m.entry_seq)} is ${entry.id}`);
        const amount = minorOf(m.amount);
        if (amount !== entry.amount) tally.problem(`${name} keeps an amount of ${String(m.amount)} minor units; the entry is of ${String(entry.amount)}`);
      }
      const line = lines.get(`${tenant}|${m.line_id}`);
      if (!line) tally.problem(`${name} names a line that is not a statement line of the tenant`);
      else if (line.statement_id !== m.statement_id) tally.problem(`${name} names bank statement ${String(m.statement_id)}; the line is on statement ${String(line.statement_id)}`);
    }
  }
  const twice = await k
    .selectFrom('bank_matches')
    .select(['tenant_id', 'entry_seq', (eb) => eb.fn.countAll().as('n')])
    .groupBy(['tenant_id', 'entry_seq'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .orderBy('tenant_id')
    .orderBy('entry_seq')
    .execute();
  for (const r of twice) tally.problem(`the entry at seq ${String(r.entry_seq)} of tenant ${tenantName(r.tenant_id)} is matched ${String(r.n)} times`);
}

/** How many transactions with entries each tenant has (checkEntries counts them as their entries stream by). */
type GroupsByTenant = Map<string, number>;

/**
 * A tenant's transactions that have no entries, in commit order, a batch at a time: each is looked for by its first
 * line's account and its time, which the entries' index leads with (a transaction's entries carry its time).
 */
async function* transactionsWithoutEntries(k: Kysely<Database>, tenant: string): AsyncGenerator<string> {
  const batchRows = 25;
  let after = 0n;
  for (;;) {
    const batch = await k
      .selectFrom('transactions')
      .select(['seq', 'id', 'document', 'created_at'])
      .where('tenant_id', '=', tenant)
      .where('seq', '>', after as never)
      .orderBy('seq')
      .limit(batchRows)
      .execute();
    if (batch.length === 0) return;
    const probes = batch.flatMap((t) => {
      try {
        const account = (JSON.parse(t.document) as { lines?: Array<{ accountId?: unknown }> }).lines?.[0]?.accountId;
        return typeof account === 'string' ? [[account, t.created_at] as const] : [];
      } catch {
        return [];
      }
    });
    const found = new Set<string>();
    if (probes.length > 0) {
      const rows = await k
        .selectFrom('entries')
        .select('transaction_id')
        .where('tenant_id', '=', tenant)
        .where((eb) => eb(eb.refTuple('account_id', 'created_at'), 'in', probes.map(([account, at]) => eb.tuple(account, at))))
        .execute();
      for (const r of rows) found.add(r.transaction_id);
    }
    for (const t of batch) if (!found.has(t.id)) yield t.id;
    after = batch[batch.length - 1]!.seq as unknown as bigint;
    if (batch.length < batchRows) return;
  }
}

/**
 * Every transaction has its entries: they are written in one commit, so a transaction without any is a part lost (a
 * copy or a restore that stopped half-way). The transactions of each tenant are counted (an index) against its
 * transactions with entries; only a tenant with fewer of these is read transaction by transaction, to name them.
 */
async function checkTransactionsHaveEntries(k: Kysely<Database>, tenantName: TenantName, groups: GroupsByTenant, tally: Tally): Promise<void> {
  const counts = await k.selectFrom('transactions').select(['tenant_id', (eb) => eb.fn.countAll().as('n')]).groupBy('tenant_id').orderBy('tenant_id').execute();
  for (const { tenant_id: tenant, n } of counts) {
    if (Number(n) <= (groups.get(tenant) ?? 0)) continue;
    for await (const id of transactionsWithoutEntries(k, tenant)) {
      tally.checked++;
      tally.problem(`transaction ${id} of tenant ${tenantName(tenant)} has no entries`);
    }
  }
}

/** A tenant that holds keys, accounts or transactions has an audit chain: each of them was recorded in it. */
async function checkTenantsHaveChains(k: Kysely<Database>, tally: Tally): Promise<void> {
  const unchained = await k
    .selectFrom('tenants')
    .select('public_id as id')
    .where(({ and, or, not, exists, selectFrom }) => {
      const owns = (table: 'api_keys' | 'accounts' | 'transactions' | 'audit_log') =>
        exists(selectFrom(table).select(sql.lit(1).as('one')).whereRef(`${table}.tenant_id`, '=', 'tenants.id'));
      return and([not(owns('audit_log')), or([owns('api_keys'), owns('accounts'), owns('transactions')])]);
    })
    .orderBy('seq')
    .execute();
  for (const { id } of unchained) tally.problem(`tenant ${id} holds keys, accounts or transactions but not one audit record: its audit chain is missing`);
}

/** Where each kind of record an audit record names is kept, and what people call it. */
const RESOURCE_TABLES: Record<AuditResourceKind, { table: Table; name: string }> = {
  tenant: { table: 'tenants', name: 'tenant' },
  apiKey: { table: 'api_keys', name: 'API key' },
  account: { table: 'accounts', name: 'account' },
  transaction: { table: 'transactions', name: 'transaction' },
  agentTransaction: { table: 'agent_transactions', name: 'agent transaction' },
  settlement: { table: 'settlements', name: 'settlement' },
  hold: { table: 'holds', name: 'hold' },
};

/** The ids of a tenant's records of one table, among those asked for (a batch at a time: one indexed lookup). */
async function existing(k: Kysely<Database>, kind: AuditResourceKind, wanted: ReadonlyArray<readonly [tenant: string, id: string]>): Promise<Set<string>> {
  if (kind === 'tenant') {
    const rows = await k.selectFrom('tenants').select('public_id as id').where('public_id', 'in', wanted.map(([, id]) => id)).execute();
    return new Set(rows.map((r) => `${r.id}|${r.id}`));
  }
  const table = RESOURCE_TABLES[kind].table as 'accounts';
  const rows = await k
    .selectFrom(table)
    .select(['tenant_id', 'id'])
    .where((eb) => eb(eb.refTuple('tenant_id', 'id'), 'in', wanted.map(([tenant, id]) => eb.tuple(tenant, id))))
    .execute();
  return new Set(rows.map((r) => `${r.tenant_id}|${r.id}`));
}

/**
 * Every record an audit record names exists (core/audit.ts, auditResources): records are never deleted, so one
 * missing is a part lost. The audit log is read once in commit order; each batch's names are looked up together.
 */
async function checkAuditResources(k: Kysely<Database>, tenantName: TenantName, tally: Tally): Promise<void> {
  for await (const batch of rowsOf(k, 'audit_log', ['seq'])) {
    const named: Array<{ record: string; tenant: string; action: string; kind: AuditResourceKind; id: string }> = [];
    for (const row of batch) {
      let payload: Record<string, unknown>;
      try {
        payload = JSON.parse(String(row.payload)) as Record<string, unknown>;
      } catch {
        continue; // An unreadable record is the audit chain's problem, named there.
      }
      const tenant = String(row.tenant_id);
      for (const { kind, id } of auditResources(String(row.action), payload)) named.push({ record: String(row.id), tenant, action: String(row.action), kind, id });
    }
    const found = new Map<AuditResourceKind, Set<string>>();
    for (const kind of new Set(named.map((n) => n.kind))) {
      const wanted = new Map(named.filter((n) => n.kind === kind).map((n) => [`${n.tenant}|${n.id}`, [n.tenant, n.id] as const]));
      found.set(kind, await existing(k, kind, [...wanted.values()]));
    }
    for (const n of named) {
      tally.checked++;
      const key = n.kind === 'tenant' ? `${n.id}|${n.id}` : `${n.tenant}|${n.id}`;
      if (!found.get(n.kind)!.has(key)) {
        tally.problem(`audit record ${n.record} of tenant ${tenantName(n.tenant)} (${n.action}) names ${RESOURCE_TABLES[n.kind].name} ${n.id}, which does not exist`);
      }
    }
  }
}

/** Every tenant's audit chain, recomputed through the ledger itself (as `ledger audit verify` does). */
async function checkChains(db: string, tenants: string[], tally: Tally): Promise<void> {
  const opened = await openLedger(db, { writer: 'local' });
  try {
    for (const tenantId of tenants) {
      const report = await opened.ledger.audit.verifyChain(tenantId);
      tally.checked += report.count;
      if (!report.ok) tally.problem(`the audit chain of tenant ${tenantId} breaks at record ${report.position} (${report.id}): ${report.reason}`);
    }
  } finally {
    await opened.close();
  }
}

export async function checkLedger(db: string): Promise<CheckReport> {
  const handle = await openSchema(db, { migrate: false });
  if (!handle) throw invalid(`--db ${shownDb(parseDbTarget(db))}: there is no such database.`);
  const tallies = Object.fromEntries(CHECK_KINDS.map((kind) => [kind, new Tally(kind)])) as Record<CheckKind, Tally>;
  let tenants: string[];
  try {
    await checkEngine(handle.kysely, handle.target.engine, tallies.engine);
    const names = await tenantNames(handle.kysely);
    tenants = names.publicIds;
    const tenantName = names.nameOf;
    const groups = await checkEntries(handle.kysely, tenantName, tallies.balances, tallies['trial balances'], tallies['running balances'], tallies.transactions);
    await checkTransactionsHaveEntries(handle.kysely, tenantName, groups, tallies.transactions);
    await checkReversals(handle.kysely, tenantName, tallies.reversals);
    await checkTenantsHaveChains(handle.kysely, tallies['audit chains']);
    await checkAuditResources(handle.kysely, tenantName, tallies['audit resources']);
    await checkSettlements(handle.kysely, tenantName, tallies.settlements);
    await checkBankStatements(handle.kysely, tenantName, tallies['bank statements']);
    await checkStatementLines(handle.kysely, tenantName, tallies['bank statement lines'], tallies['bank line matches']);
    await checkBankMatches(handle.kysely, tenantName, tallies['bank matches']);
  } finally {
    await handle.close();
  }
  await checkChains(db, tenants, tallies['audit chains']);
  const results = CHECK_KINDS.map((kind) => tallies[kind].result());
  return { database: handle.describe, ok: results.every((r) => r.problems === 0), results };
}
