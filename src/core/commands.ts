// Every write the ledger makes, by name. A Writer runs them inside its group commit, in this thread or another.
import type { ReadAhead, WriteContext, WriteScope } from './ports.js';
import { createApiKeyCommand, createTenantCommand, revokeApiKeyCommand } from './usecases/apiKeys.js';
import { createAccountCommand } from './usecases/accounts.js';
import { POST_TRANSACTION_ENDPOINT, postTransactionCommand } from './usecases/transactions.js';
import { cancelSettlementCommand, expireSettlementsCommand, REGISTER_SETTLEMENT_ENDPOINT, registerSettlementCommand } from './usecases/settlements.js';
import { planWeight, reconcileBatchCommand } from './usecases/reconciliation.js';
import { recordWebhookAttemptCommand, redeliverCommand, setWebhookCommand } from './usecases/webhooks.js';
import { createPolicyRuleCommand, deletePolicyRuleCommand } from './usecases/policyRules.js';
import { recordTransfersCommand } from './usecases/chainWatch.js';
import { pruneEventsCommand } from './usecases/events.js';
import { setAccountLimitsCommand } from './usecases/limits.js';
import { captureHoldCommand, createHoldCommand, expireHoldsCommand, voidHoldCommand } from './usecases/holds.js';
import { AGENT_EXECUTE_ENDPOINT, decideAgentTransactionCommand, executeAgentTransactionCommand, rollbackAgentTransactionCommand } from './usecases/agents.js';

export const commands = {
  createTenant: createTenantCommand,
  createApiKey: createApiKeyCommand,
  revokeApiKey: revokeApiKeyCommand,
  createAccount: createAccountCommand,
  postTransaction: postTransactionCommand,
  registerSettlement: registerSettlementCommand,
  cancelSettlement: cancelSettlementCommand,
  expireSettlements: expireSettlementsCommand,
  reconcileBatch: reconcileBatchCommand,
  setWebhook: setWebhookCommand,
  recordWebhookAttempt: recordWebhookAttemptCommand,
  redeliver: redeliverCommand,
  createPolicyRule: createPolicyRuleCommand,
  deletePolicyRule: deletePolicyRuleCommand,
  executeAgentTransaction: executeAgentTransactionCommand,
  decideAgentTransaction: decideAgentTransactionCommand,
  rollbackAgentTransaction: rollbackAgentTransactionCommand,
  recordTransfers: recordTransfersCommand,
  pruneEvents: pruneEventsCommand,
  setAccountLimits: setAccountLimitsCommand,
  createHold: createHoldCommand,
  captureHold: captureHoldCommand,
  voidHold: voidHoldCommand,
  expireHolds: expireHoldsCommand,
} satisfies Record<string, (ctx: WriteContext, args: never) => Promise<unknown>>;

export type Commands = typeof commands;
export type CommandName = keyof Commands;
export type CommandArgs<K extends CommandName> = Parameters<Commands[K]>[1];
export type CommandResult<K extends CommandName> = Awaited<ReturnType<Commands[K]>>;

/** Runs one command; the writer calls this inside its group's transaction. */
export const runCommand = <K extends CommandName>(ctx: WriteContext, name: K, args: CommandArgs<K>): Promise<CommandResult<K>> =>
  (commands[name] as (ctx: WriteContext, args: CommandArgs<K>) => Promise<CommandResult<K>>)(ctx, args);

/**
 * What a command may change (see WriteScope): the tenant named in its arguments, or 'all' for the commands that span
 * tenants (the expiry sweeper, the chain watchers) or make a tenant.
 */
export function commandScope<K extends CommandName>(name: K, args: CommandArgs<K>): WriteScope {
  if (name === 'recordWebhookAttempt') return (args as CommandArgs<'recordWebhookAttempt'>).state.tenantId;
  const tenantId = (args as { tenantId?: unknown }).tenantId;
  return typeof tenantId === 'string' ? tenantId : 'all';
}

/** About how many rows a command writes, so that group commit can keep a large write apart from small ones. */
export function commandWeight<K extends CommandName>(name: K, args: CommandArgs<K>): number {
  if (name === 'postTransaction') return (args as CommandArgs<'postTransaction'>).input.lines.length;
  if (name === 'executeAgentTransaction') return (args as CommandArgs<'executeAgentTransaction'>).input.lines.length;
  if (name === 'reconcileBatch') return planWeight((args as CommandArgs<'reconcileBatch'>).plans);
  return 1;
}

/** What a command will read that its group can read ahead for it: the kept balances a posting moves, its key's record. */
export function commandReadAhead<K extends CommandName>(name: K, args: CommandArgs<K>): ReadAhead | undefined {
  if (name === 'registerSettlement') {
    const { tenantId, key } = args as CommandArgs<'registerSettlement'>;
    return { tenantId, balances: [], idempotency: { endpoint: REGISTER_SETTLEMENT_ENDPOINT, key } };
  }
  if (name !== 'postTransaction' && name !== 'executeAgentTransaction') return undefined;
  const { tenantId, input, key } = args as CommandArgs<'postTransaction'>;
  const endpoint = name === 'postTransaction' ? POST_TRANSACTION_ENDPOINT : AGENT_EXECUTE_ENDPOINT;
  return { tenantId, balances: input.lines, idempotency: { endpoint, key } };
}
