// The Store port over SQL, written once for every engine: one file of methods per domain (sql/domains/); an engine
// adds its connection, its change signal and its close.
import type { Store, WriteTx } from '../../core/ports.js';
import type { Statements } from '../queries/index.js';
import { Remembered } from './part.js';
import { TenantKeys } from './tenantKeys.js';
import { tenantsPart } from './domains/tenants.js';
import { accountsPart } from './domains/accounts.js';
import { entriesPart } from './domains/entries.js';
import { readAheadPart } from './domains/readAhead.js';
import { transactionsPart } from './domains/transactions.js';
import { settlementsPart } from './domains/settlements.js';
import { auditPart } from './domains/audit.js';
import { webhooksPart } from './domains/webhooks.js';
import { eventsPart } from './domains/events.js';
import { holdsPart } from './domains/holds.js';
import { agentsPart } from './domains/agents.js';
import { policyRulesPart } from './domains/policyRules.js';
import { outboxPart } from './domains/outbox.js';
import { chainWatchPart } from './domains/chainWatch.js';
import { reportsPart } from './domains/reports.js';
import { bankStatementsPart } from './domains/bankStatements.js';

const parts = [tenantsPart, accountsPart, entriesPart, readAheadPart, transactionsPart, settlementsPart, auditPart, webhooksPart, outboxPart, eventsPart, holdsPart, agentsPart, policyRulesPart, chainWatchPart, reportsPart, bankStatementsPart];

type Parts = typeof tenantsPart &
  typeof accountsPart &
  typeof entriesPart &
  typeof readAheadPart &
  typeof transactionsPart &
  typeof settlementsPart &
  typeof auditPart &
  typeof webhooksPart &
  typeof eventsPart &
  typeof holdsPart &
  typeof agentsPart &
  typeof policyRulesPart &
  typeof outboxPart &
  typeof chainWatchPart &
  typeof reportsPart &
  typeof bankStatementsPart;

// The domains' methods are the store's own (declaration merging with the class below).
export interface SqlStore extends Parts {}

export abstract class SqlStore implements Store, WriteTx {
  protected readonly held = new Remembered();
  /** The tenants' keys this store has learned (sql/tenantKeys.ts), shared by its statements. */
  protected readonly tenantKeys = new TenantKeys();
  protected readonly s: Statements;

  /** `prepare` makes the store's statements, which translate tenants with the store's keys. */
  protected constructor(prepare: (keys: TenantKeys) => Statements) {
    this.s = prepare(this.tenantKeys);
  }

  /** A value that differs once anything was committed since it was read, by any connection. */
  abstract changeVersion(): Promise<string>;
  abstract close(): Promise<void>;

  /** Ends what is remembered of the open write transaction (see Remembered). */
  forgetWriteState(): void {
    this.held.forgetWriteState();
    this.tenantKeys.forgetWriteState();
  }
}

for (const methods of parts) Object.defineProperties(SqlStore.prototype, Object.getOwnPropertyDescriptors(methods));
