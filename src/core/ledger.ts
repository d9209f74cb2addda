// The use-cases that the server and the CLI both call, one service per domain: two thin doors into the same code.
import type { Store } from './ports.js';
import type { Clock } from './time.js';
import { makeDeps, type Deps, type LedgerOptions } from './context.js';
import { systemClock } from './time.js';
import type { Writer } from './commands.js';
import { TenantService } from './usecases/tenants.js';
import { AccountService } from './usecases/accounts.js';
import { LimitService } from './usecases/limits.js';
import { EntryService } from './usecases/entries.js';
import { TransactionService } from './usecases/transactions.js';
import { BatchService } from './usecases/batches.js';
import { TransactionSearchService } from './usecases/transactionSearch.js';
import { ReversalService } from './usecases/reversals.js';
import { HoldService } from './usecases/holds.js';
import { SettlementService } from './usecases/settlements.js';
import { ReconciliationService } from './usecases/reconciliation.js';
import { AuditService } from './usecases/audit.js';
import { WebhookService } from './usecases/webhooks.js';
import { EventService } from './usecases/events.js';
import { PolicyRuleService } from './usecases/policyRules.js';
import { AgentService } from './usecases/agents.js';
import { ReportService } from './usecases/reports.js';
import { BankStatementService } from './usecases/bankStatements.js';

export class Ledger {
  readonly store: Store;
  readonly writer: Writer;
  readonly tenants: TenantService;
  readonly accounts: AccountService;
  readonly limits: LimitService;
  readonly entries: EntryService;
  readonly transactions: TransactionService;
  readonly batches: BatchService;
  readonly transactionSearch: TransactionSearchService;
  readonly reversals: ReversalService;
  readonly holds: HoldService;
  readonly settlements: SettlementService;
  readonly reconciliation: ReconciliationService;
  readonly audit: AuditService;
  readonly webhooks: WebhookService;
  readonly events: EventService;
  readonly policyRules: PolicyRuleService;
  readonly agents: AgentService;
  readonly reports: ReportService;
  readonly bankStatements: BankStatementService;

  private constructor(readonly deps: Deps) {
    this.store = deps.store;
    this.writer = deps.writer;
    this.tenants = new TenantService(deps);
    this.accounts = new AccountService(deps);
    this.limits = new LimitService(deps);
    this.entries = new EntryService(deps);
    this.transactions = new TransactionService(deps);
    this.batches = new BatchService(deps, this.transactions);
    this.transactionSearch = new TransactionSearchService(deps);
    this.reversals = new ReversalService(deps);
    this.holds = new HoldService(deps);
    this.settlements = new SettlementService(deps);
    this.reconciliation = new ReconciliationService(deps);
    this.audit = new AuditService(deps);
    this.webhooks = new WebhookService(deps);
    this.events = new EventService(deps);
    this.policyRules = new PolicyRuleService(deps);
    this.agents = new AgentService(deps);
    this.reports = new ReportService(deps);
    this.bankStatements = new BankStatementService(deps);
  }

  /** Reads the database's secrets (cursor signing, key hashing), creating them on first use. */
  static async open(store: Store, writer: Writer, clock: Clock = systemClock, options: LedgerOptions = {}): Promise<Ledger> {
    return new Ledger(await makeDeps(store, writer, clock, options));
  }
}
