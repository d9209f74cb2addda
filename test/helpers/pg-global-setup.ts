// Starts the test PostgreSQL once for the postgres project; each test file makes its own database in it.
import { startTestPostgres } from './postgres.js';

export default async function setup(): Promise<() => Promise<void>> {
  const { url, stop } = await startTestPostgres();
  // Test workers are forked after global setup, so they inherit this.
  process.env.LEDGER_TEST_PG_ADMIN_URL = url;
  return stop;
}
