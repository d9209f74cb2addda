// The use-cases that the server and the CLI both call: two thin doors into the same functions.
import type { Store } from './ports.js';
import type { Clock } from './time.js';
import { makeDeps, type Deps, type LedgerOptions } from './context.js';
import { systemClock } from './time.js';
import * as tenants from './usecases/tenants.js';
import * as accounts from './usecases/accounts.js';
import * as balances from './usecases/entries.js';
import { TransactionService } from './usecases/transactions.js';
import { SettlementService } from './usecases/settlements.js';
import * as reconciliation from './usecases/reconciliation.js';
import * as audit from './usecases/audit.js';
import * as webhooks from './usecases/webhooks.js';
import * as policyRules from './usecases/policyRules.js';
import * as events from './usecases/events.js';
import * as transactionSearch from './usecases/transactionSearch.js';
import * as limits from './usecases/limits.js';
import { AgentService } from './usecases/agents.js';
import { HoldService } from './usecases/holds.js';
import { ReversalService } from './usecases/reversals.js';
import { ReportService } from './usecases/reports.js';
import type { Writer } from './commands.js';

export class Ledger {
  readonly store: Store;
  readonly writer: Writer;
  readonly transactions: TransactionService;
  readonly settlements: SettlementService;
  readonly agents: AgentService;
  readonly holds: HoldService;
  readonly reversals: ReversalService;
  readonly reports: ReportService;

  private constructor(readonly deps: Deps) {
    this.store = deps.store;
    this.writer = deps.writer;
    this.transactions = new TransactionService(this.deps);
    this.settlements = new SettlementService(this.deps);
    this.agents = new AgentService(this.deps);
    this.holds = new HoldService(this.deps);
    this.reversals = new ReversalService(this.deps);
    this.reports = new ReportService(this.deps);
  }

  /** Reads the database's secrets (cursor signing, key hashing), creating them on first use. */
  static async open(store: Store, writer: Writer, clock: Clock = systemClock, options: LedgerOptions = {}): Promise<Ledger> {
    return new Ledger(await makeDeps(store, writer, clock, options));
  }

  createTenant = (...a: Tail<typeof tenants.createTenant>) => tenants.createTenant(this.deps, ...a);
  requireScope = tenants.requireScope;
  requireTenant = (...a: Tail<typeof tenants.requireTenant>) => tenants.requireTenant(this.deps, ...a);
  listTenants = () => this.deps.store.tenants();
  authenticate = (...a: Tail<typeof tenants.authenticate>) => tenants.authenticate(this.deps, ...a);
  createApiKey = (...a: Tail<typeof tenants.createApiKey>) => tenants.createApiKey(this.deps, ...a);
  listApiKeys = (...a: Tail<typeof tenants.listApiKeys>) => tenants.listApiKeys(this.deps, ...a);
  currentApiKey = (...a: Tail<typeof tenants.currentApiKey>) => tenants.currentApiKey(this.deps, ...a);
  revokeApiKey = (...a: Tail<typeof tenants.revokeApiKey>) => tenants.revokeApiKey(this.deps, ...a);
  createAccount = (...a: Tail<typeof accounts.createAccount>) => accounts.createAccount(this.deps, ...a);
  getAccount = (...a: Tail<typeof accounts.getAccount>) => accounts.getAccount(this.deps, ...a);
  updateAccount = (...a: Tail<typeof accounts.updateAccount>) => accounts.updateAccount(this.deps, ...a);
  listAccounts = (...a: Tail<typeof accounts.listAccounts>) => accounts.listAccounts(this.deps, ...a);
  getAccountLimits = (...a: Tail<typeof limits.getAccountLimits>) => limits.getAccountLimits(this.deps, ...a);
  setAccountLimits = (...a: Tail<typeof limits.setAccountLimits>) => limits.setAccountLimits(this.deps, ...a);
  balance = (...a: Tail<typeof balances.balance>) => balances.balance(this.deps, ...a);
  entries = (...a: Tail<typeof balances.entries>) => balances.entries(this.deps, ...a);
  statement = (...a: Tail<typeof balances.statement>) => balances.statement(this.deps, ...a);
  reconcileBatch = (...a: Tail<typeof reconciliation.reconcileBatch>) => reconciliation.reconcileBatch(this.deps, ...a);
  listReconciliationResults = (...a: Tail<typeof reconciliation.listReconciliationResults>) =>
    reconciliation.listReconciliationResults(this.deps, ...a);
  exportAudit = (...a: Tail<typeof audit.exportAudit>) => audit.exportAudit(this.deps, ...a);
  verifyAuditChain = (...a: Tail<typeof audit.verifyStoredChain>) => audit.verifyStoredChain(this.deps, ...a);
  setWebhook = (...a: Tail<typeof webhooks.setWebhook>) => webhooks.setWebhook(this.deps, ...a);
  getWebhook = (...a: Tail<typeof webhooks.getWebhook>) => webhooks.getWebhook(this.deps, ...a);
  listWebhookDeliveries = (...a: Tail<typeof webhooks.listWebhookDeliveries>) => webhooks.listWebhookDeliveries(this.deps, ...a);
  redeliver = (tenantId: string, eventId: string) => this.writer.run('redeliver', { tenantId, eventId });
  /** GET /api/v1/transactions: newest first, with its filters. */
  findTransactions = (...a: Tail<typeof transactionSearch.findTransactions>) => transactionSearch.findTransactions(this.deps, ...a);
  listEvents = (...a: Tail<typeof events.listEvents>) => events.listEvents(this.deps, ...a);
  eventPosition = (...a: Tail<typeof events.eventPosition>) => events.eventPosition(this.deps, ...a);
  assertEventsKept = (...a: Tail<typeof events.assertKept>) => events.assertKept(this.deps, ...a);
  followEvents = (...a: Tail<typeof events.followEvents>) => events.followEvents(this.deps, ...a);
  /** Prunes one batch of the tenant's events created before `before`; answers how many went. */
  pruneEvents = (tenantId: string, before: string) => this.writer.run('pruneEvents', { tenantId, before });
  createPolicyRule = (...a: Tail<typeof policyRules.createPolicyRule>) => policyRules.createPolicyRule(this.deps, ...a);
  listPolicyRules = (...a: Tail<typeof policyRules.listPolicyRules>) => policyRules.listPolicyRules(this.deps, ...a);
  deletePolicyRule = (...a: Tail<typeof policyRules.deletePolicyRule>) => policyRules.deletePolicyRule(this.deps, ...a);
}

/** The parameters of a use-case after its dependencies. */
type Tail<F> = F extends (deps: Deps, ...rest: infer R) => unknown ? R : never;
