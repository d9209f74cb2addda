// Every query of the ledger, one file per domain, built once with Kysely from dialect-neutral parts and prepared by
// the engine's Preparer. The store sees them as one flat set.
import type { Preparer } from '../sql/statement.js';
import { tenantsStatements } from './tenants.js';
import { accountsStatements } from './accounts.js';
import { entriesStatements } from './entries.js';
import { transactionsStatements } from './transactions.js';
import { transactionSearchStatements } from './transactionSearch.js';
import { idempotencyStatements } from './idempotency.js';
import { auditStatements } from './audit.js';
import { outboxStatements } from './outbox.js';
import { settlementsStatements } from './settlements.js';
import { reconciliationStatements } from './reconciliation.js';
import { webhooksStatements } from './webhooks.js';
import { agentsStatements } from './agents.js';
import { policyRulesStatements } from './policyRules.js';
import { chainWatchStatements } from './chainWatch.js';
import { secretsStatements } from './secrets.js';
import { holdsStatements } from './holds.js';
import { reportsStatements } from './reports.js';
import { indexFilterStatements } from './indexFilters.js';
import { bankStatementsStatements } from './bankStatements.js';

export function statements(prepare: Preparer) {
  return {
    ...tenantsStatements(prepare),
    ...accountsStatements(prepare),
    ...entriesStatements(prepare),
    ...transactionsStatements(prepare),
    ...transactionSearchStatements(prepare),
    ...idempotencyStatements(prepare),
    ...auditStatements(prepare),
    ...outboxStatements(prepare),
    ...settlementsStatements(prepare),
    ...reconciliationStatements(prepare),
    ...webhooksStatements(prepare),
    ...agentsStatements(prepare),
    ...policyRulesStatements(prepare),
    ...chainWatchStatements(prepare),
    ...secretsStatements(prepare),
    ...holdsStatements(prepare),
    ...reportsStatements(prepare),
    ...indexFilterStatements(prepare),
    ...bankStatementsStatements(prepare),
  };
}

export type Statements = ReturnType<typeof statements>;
