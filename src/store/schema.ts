// Table shapes as Kysely sees them. Amounts and balances are TEXT of digits; integers come back as bigint (safeIntegers).
import type { ColumnType, Generated } from 'kysely';

export interface TenantsTable {
  seq: Generated<bigint>;
  /** The tenant's key, which every other table's `tenant_id` holds (sql/tenantKeys.ts). */
  id: string;
  /** The tenant's id as the API and the CLI show it. */
  public_id: string;
  name: string;
  created_at: string;
}

export interface ApiKeysTable {
  seq: Generated<bigint>;
  tenant_id: string;
  id: string;
  key_hash: string;
  prefix: string;
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

export interface AccountsTable {
  seq: Generated<bigint>;
  tenant_id: string;
  id: string;
  name: string;
  description: string | null;
  currency: string;
  type: string;
  created_at: string;
  /** The account's metadata, as JSON ('{}' when it has none). */
  metadata: ColumnType<string, string | undefined, string>;
}

/** An account's metadata entry, by the account's sequence: what `metadata[key]=value` finds on the accounts list. */
export interface AccountMetadataTable {
  tenant_id: string;
  key: string;
  value: string;
  account_seq: bigint;
}

export interface TransactionsTable {
  seq: Generated<bigint>;
  tenant_id: string;
  id: string;
  document: string;
  created_at: string;
  /** The instant it belongs to, when earlier than created_at (back-dated); null: created_at. */
  effective_at: ColumnType<string | null, string | null | undefined, string | null>;
}

/** That a transaction was reversed, and by which (one reversal per transaction). */
export interface TransactionReversalsTable {
  tenant_id: string;
  transaction_id: string;
  reversal_id: string;
  created_at: string;
}

/** A transaction's metadata entry, by the transaction's sequence: what `metadata[key]=value` finds. */
export interface TransactionMetadataTable {
  tenant_id: string;
  key: string;
  value: string;
  tx_seq: bigint;
}

/** An account a transaction's lines touch (once), by the transaction's sequence: what `accountId=` finds. */
export interface TransactionAccountsTable {
  tenant_id: string;
  account_id: string;
  tx_seq: bigint;
}

/** The net of an account's back-dated entries in an asset by the slot of their effective instant (0029). */
export interface EffectiveBucketsTable {
  tenant_id: string;
  account_id: string;
  asset: string;
  /** `Y2026`, `M2026-06`, `D2026-06-30`, `H2026-06-30T12` or `X2026-06-30T12:3` (UTC). */
  slot: string;
  net: string;
}

export interface EntriesTable {
  seq: Generated<bigint>;
  tenant_id: string;
  transaction_id: string;
  account_id: string;
  line_no: bigint;
  entry_type: string;
  asset: string;
  amount: string;
  details: string;
  description: string | null;
  created_at: string;
  balance_after: string;
  view: string;
  /** A fiat line's bank reference (null for none, and for on-chain lines): what a bank statement's line is matched by. */
  bank_reference: ColumnType<string | null, string | null | undefined, string | null>;
  /** Its transaction's effective_at (null: created_at). */
  effective_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** A back-dated entry's running total of its account's back-dated entries in this asset, in commit order (null: not back-dated). */
  backdated_after: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface BankStatementsTable {
  seq: Generated<bigint>;
  tenant_id: string;
  id: string;
  account_id: string;
  format: string;
  external_id: string;
  content_hash: string;
  currency: string;
  period_from: string | null;
  period_to: string | null;
  sequence_number: string | null;
  opening_balance: string | null;
  closing_balance: string | null;
  line_count: bigint;
  matched: ColumnType<bigint, bigint | undefined, bigint>;
  ignored: ColumnType<bigint, bigint | undefined, bigint>;
  duplicates: ColumnType<bigint, bigint | undefined, bigint>;
  state: string;
  lease_until: string | null;
  imported_at: string;
}

export interface BankStatementLinesTable {
  seq: Generated<bigint>;
  tenant_id: string;
  id: string;
  statement_id: string;
  account_id: string;
  line_index: bigint;
  bank_line_id: string | null;
  booking_date: string;
  value_date: string | null;
  amount: string;
  direction: string;
  currency: string;
  refs: string;
  counterparty: string;
  description: string | null;
  status: string;
  matched_by: string | null;
  match_rule: string | null;
  matched_at: string | null;
  candidates: ColumnType<string, string | undefined, string>;
  note: string | null;
}

export interface BankMatchesTable {
  tenant_id: string;
  entry_seq: bigint;
  line_id: string;
  statement_id: string;
  entry_id: string;
  transaction_id: string;
  amount: string;
}

export interface ReconciliationSettingsTable {
  tenant_id: string;
  account_id: string;
  date_window_days: bigint;
}

export interface BalancesTable {
  tenant_id: string;
  account_id: string;
  asset: string;
  balance: string;
  /** Balance limits in minor units, on the account's normal side as the balance endpoint reports it; null: none. */
  limit_min: ColumnType<string | null, string | null | undefined, string | null>;
  limit_max: ColumnType<string | null, string | null | undefined, string | null>;
  /** What open holds reserve, in minor units on the normal side: lowering the balance, and raising it. */
  pending_out: ColumnType<string, string | undefined, string>;
  pending_in: ColumnType<string, string | undefined, string>;
}

export interface HoldsTable {
  seq: Generated<bigint>;
  tenant_id: string;
  id: string;
  status: string;
  input: string;
  /** The number of lines of `input`. */
  line_count: bigint;
  expires_at: string;
  created_at: string;
  decided_at: string | null;
  captured_amount: string | null;
  transaction_id: string | null;
}

export interface HoldAccountsTable {
  tenant_id: string;
  account_id: string;
  hold_seq: bigint;
}

export interface IdempotencyTable {
  tenant_id: string;
  endpoint: string;
  key: string;
  /** A SHA-256 digest, its 32 bytes (migration 0023). */
  request_hash: Buffer;
  status: bigint;
  body: string;
  created_at: string;
}

export interface AuditLogTable {
  seq: Generated<bigint>;
  tenant_id: string;
  id: string;
  type: string;
  action: string;
  actor_key_id: string;
  occurred_at: string;
  payload: string;
  /** SHA-256 digests, their 32 bytes (migration 0023). */
  prev_hash: Buffer | null;
  hash: Buffer;
}

export interface OutboxTable {
  seq: Generated<bigint>;
  tenant_id: string;
  id: string;
  type: string;
  /** Empty when `transaction_id` is set: the event's body is that transaction's document. */
  payload: string;
  created_at: string;
  transaction_id: string | null;
}

/** How far a tenant's events were pruned (`--event-retention`): the last pruned event's sequence and time. */
export interface EventRetentionTable {
  tenant_id: string;
  pruned_seq: bigint;
  pruned_at: string;
}

export interface SettlementsTable {
  seq: Generated<bigint>;
  tenant_id: string;
  id: string;
  account_id: string;
  token: string;
  amount_text: string;
  amount: string;
  chain: string;
  wallet_address: string;
  wallet_canonical: string;
  from_address: string | null;
  from_canonical: string | null;
  status: string;
  matched_transaction_id: string | null;
  matched_line_no: bigint | null;
  tx_hash: string | null;
  block_number: bigint | null;
  confirmed_at: string | null;
  expires_at: string | null;
  created_at: string;
}

export interface ReconciliationResultsTable {
  seq: Generated<bigint>;
  tenant_id: string;
  transaction_id: string;
  outcome: string;
  settlement_id: string | null;
  source: string;
  reconciled_at: string;
}

export interface WebhooksTable {
  tenant_id: string;
  url: string;
  secret: string;
  start_seq: bigint;
  delivered_seq: bigint;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  seq: Generated<bigint>;
  tenant_id: string;
  event_id: string;
  event_seq: bigint;
  type: string;
  status: string;
  attempts: bigint;
  last_status_code: bigint | null;
  last_error: string | null;
  first_attempt_at: string | null;
  next_attempt_at: string | null;
  updated_at: string;
}

export interface PolicyRulesTable {
  seq: Generated<bigint>;
  tenant_id: string;
  id: string;
  type: string;
  agent_key_prefix: string | null;
  params: string;
  created_at: string;
}

export interface AgentTransactionsTable {
  seq: Generated<bigint>;
  tenant_id: string;
  id: string;
  status: string;
  session_id: string;
  actor_key_id: string;
  input: string;
  /** The number of lines of `input`. */
  line_count: bigint;
  debits: string;
  created_at: string;
  decided_at: string | null;
  decided_by: string | null;
  reversal_transaction_id: string | null;
}

export interface ChainCheckpointsTable {
  chain: string;
  next_block: bigint;
  transfers_seen: bigint;
  transfers_matched: bigint;
  updated_at: string;
}

export interface ChainTransfersTable {
  seq: Generated<bigint>;
  tenant_id: string;
  chain: string;
  tx_hash: string;
  log_index: bigint;
  token: string;
  token_contract: string;
  from_address: string;
  to_address: string;
  to_canonical: string;
  amount: string;
  block_number: bigint;
  block_hash: string;
  settlement_id: string | null;
  seen_at: string;
}

export interface OnchainLinesTable {
  tenant_id: string;
  chain: string;
  tx_hash: string;
  transaction_id: string;
  line_no: bigint;
}

export interface ClearingAccountsTable {
  tenant_id: string;
  account_id: string;
}

export interface InstanceSecretsTable {
  name: string;
  value: string;
}

export interface Database {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  accounts: AccountsTable;
  transactions: TransactionsTable;
  transaction_reversals: TransactionReversalsTable;
  account_metadata: AccountMetadataTable;
  transaction_metadata: TransactionMetadataTable;
  transaction_accounts: TransactionAccountsTable;
  entries: EntriesTable;
  effective_buckets: EffectiveBucketsTable;
  balances: BalancesTable;
  idempotency: IdempotencyTable;
  audit_log: AuditLogTable;
  outbox: OutboxTable;
  event_retention: EventRetentionTable;
  holds: HoldsTable;
  hold_accounts: HoldAccountsTable;
  instance_secrets: InstanceSecretsTable;
  settlements: SettlementsTable;
  reconciliation_results: ReconciliationResultsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  policy_rules: PolicyRulesTable;
  agent_transactions: AgentTransactionsTable;
  chain_checkpoints: ChainCheckpointsTable;
  chain_transfers: ChainTransfersTable;
  onchain_lines: OnchainLinesTable;
  clearing_accounts: ClearingAccountsTable;
  bank_statements: BankStatementsTable;
  bank_statement_lines: BankStatementLinesTable;
  bank_matches: BankMatchesTable;
  reconciliation_settings: ReconciliationSettingsTable;
}
