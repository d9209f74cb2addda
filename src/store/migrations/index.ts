// The fixed, ordered map of migrations: a bundle has no folder to scan.
import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_core_ledger.js';
import * as m0002 from './0002_settlements.js';
import * as m0003 from './0003_webhooks.js';
import * as m0004 from './0004_agents.js';
import * as m0005 from './0005_chain_watch.js';
import * as m0006 from './0006_onchain_entries.js';
import * as m0007 from './0007_outbox_by_reference.js';
import * as m0008 from './0008_agent_audit_partial_index.js';
import * as m0009 from './0009_entries_listed_by_asset.js';
import * as m0010 from './0010_event_feed.js';
import * as m0011 from './0011_balance_limits.js';
import * as m0012 from './0012_holds.js';
import * as m0013 from './0013_line_counts.js';
import * as m0014 from './0014_transaction_reversals.js';
import * as m0015 from './0015_transaction_search.js';
import * as m0016 from './0016_account_metadata.js';
import * as m0017 from './0017_trial_balance.js';
import * as m0018 from './0018_keyed_tables_without_rowid.js';
import * as m0019 from './0019_audit_head_by_row.js';
import * as m0020 from './0020_tenant_keys.js';
import * as m0021 from './0021_entries_without_id.js';
import * as m0022 from './0022_stored_names.js';
import * as m0023 from './0023_hashes_as_bytes.js';
import * as m0024 from './0024_settlements_by_time.js';
import * as m0025 from './0025_bank_statements.js';
import * as m0026 from './0026_bank_statements_by_time.js';
import * as m0027 from './0027_effective_dates.js';
import * as m0028 from './0028_bank_amount_by_effective_time.js';
import * as m0029 from './0029_effective_balances.js';

const migrations: Record<string, Migration> = {
  '0001_core_ledger': m0001,
  '0002_settlements': m0002,
  '0003_webhooks': m0003,
  '0004_agents': m0004,
  '0005_chain_watch': m0005,
  '0006_onchain_entries': m0006,
  '0007_outbox_by_reference': m0007,
  '0008_agent_audit_partial_index': m0008,
  '0009_entries_listed_by_asset': m0009,
  '0010_event_feed': m0010,
  '0011_balance_limits': m0011,
  '0012_holds': m0012,
  '0013_line_counts': m0013,
  '0014_transaction_reversals': m0014,
  '0015_transaction_search': m0015,
  '0016_account_metadata': m0016,
  '0017_trial_balance': m0017,
  '0018_keyed_tables_without_rowid': m0018,
  '0019_audit_head_by_row': m0019,
  '0020_tenant_keys': m0020,
  '0021_entries_without_id': m0021,
  '0022_stored_names': m0022,
  '0023_hashes_as_bytes': m0023,
  '0024_settlements_by_time': m0024,
  '0025_bank_statements': m0025,
  '0026_bank_statements_by_time': m0026,
  '0027_effective_dates': m0027,
  '0028_bank_amount_by_effective_time': m0028,
  '0029_effective_balances': m0029,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
