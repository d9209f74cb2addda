// The fixed, ordered map of migrations: a bundle has no folder to scan.
import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_core_ledger.js';
import * as m0002 from './0002_settlements.js';

const migrations: Record<string, Migration> = {
  '0001_core_ledger': m0001,
  '0002_settlements': m0002,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
