// Every write the ledger makes, by name, with what a Writer must know of it before it runs: its weight, its scope and
// what it will read; an entry without a weight or a scope does not compile.
import type { ReadAhead, WriteContext, WriteScope } from './ports.js';
import { createApiKeyCommand, createTenantCommand, revokeApiKeyCommand } from './commands/tenants.js';
import { createAccountCommand, updateAccountCommand } from './commands/accounts.js';
import { POST_TRANSACTION_ENDPOINT, postTransactionCommand, postBatchCommand } from './commands/transactions.js';
import { cancelSettlementCommand, expireSettlementsCommand, REGISTER_SETTLEMENT_ENDPOINT, registerSettlementCommand } from './commands/settlements.js';
import { planWeight, reconcileBatchCommand } from './commands/reconciliation.js';
import { recordWebhookAttemptCommand, redeliverCommand, setWebhookCommand } from './commands/webhooks.js';
import { createPolicyRuleCommand, deletePolicyRuleCommand } from './commands/policyRules.js';
import { recordTransfersCommand } from './commands/chainWatch.js';
import { EVENT_PRUNE_BATCH, pruneEventsCommand } from './commands/events.js';
import { setAccountLimitsCommand } from './commands/limits.js';
import { captureHoldCommand, CREATE_HOLD_ENDPOINT, createHoldCommand, expireHoldsCommand, voidHoldCommand } from './commands/holds.js';
import { REVERSE_TRANSACTION_ENDPOINT, reverseTransactionCommand } from './commands/reversals.js';
import { AGENT_EXECUTE_ENDPOINT, decideAgentTransactionCommand, executeAgentTransactionCommand, rollbackAgentTransactionCommand } from './commands/agents.js';
import {
  beginStatementImportCommand,
  deleteStatementCommand,
  discardStatementPartCommand,
  finishReconcileCommand,
  finishStatementImportCommand,
  ignoreLineCommand,
  importStatementPartCommand,
  matchLineCommand,
  reconcileStatementPartCommand,
  setReconciliationSettingsCommand,
  unmatchLineCommand,
} from './commands/bankStatements.js';
import { holdRows, holdStepRows, keyedPostingRows, postingRowsAtMost, RECORD_ROWS, releaseRows, transferRows } from './writeRows.js';
import { ACCOUNT_LIMITS_MAX, METADATA_ENTRIES_MAX, STATEMENT_MATCH_ENTRIES_MAX } from './limits.js';

/** One write command and what group commit must know of it before it runs, from its arguments alone. */
export interface Command<A, R> {
  run(ctx: WriteContext, args: A): Promise<R>;
  /**
   * How many rows it writes, of every table alike (core/writeRows.ts), or a bound above that where the arguments
   * cannot tell. Group commit keeps a large write apart from small ones and gives large writes only a share of the
   * writer (store/writer/groupCommit.ts): a weight that says less than the write does lets one tenant's heavy writes hold up
   * everyone's. What the weight depends on but the arguments do not say (a hold's lines) is read before the command is
   * queued and carried in them.
   */
  weight(args: A): number;
  /**
   * The rows of the whole write it is a part of, where that is more than its own: a non-atomic batch's posting weighs
   * its rows, and takes the large writes' share as its batch does.
   */
  share?(args: A): number;
  /**
   * The lines it posts, holds or releases, where it has any: their entries and documents are most of a large write's
   * bytes, which its rows do not tell (a posting of 1000 lines with 1 KiB descriptions writes 2.4 MB in 1,006 rows, 500
   * postings of 2 lines 1.5 MB in 5,000). A group holds the lines of one large write, or of several up to 1,000 lines.
   */
  lines?(args: A): number;
  /** What it may change (see WriteScope): its group takes the locks of every command's scope. */
  scope(args: A): WriteScope;
  /** What it will read that its group can read ahead for it (the kept balances a posting moves, its key's record). */
  readAhead?(args: A): ReadAhead | undefined;
}

/** Checks an entry against Command, with its argument and result types taken from `run` alone. */
const command = <A, R>(entry: { run(ctx: WriteContext, args: A): Promise<R> } & NoInfer<Omit<Command<A, R>, 'run'>>): Command<A, R> => entry;

/** A record of a fixed size with its audit record, its event and its idempotency record. */
const record = () => RECORD_ROWS;
const linesOf = (args: { input: { lines: readonly unknown[] } }) => args.input.lines.length;
const ofTenant = (args: { tenantId: string }): WriteScope => args.tenantId;
/** Commands that span tenants (the settlement sweeper, the chain watchers) or make one. */
const anything = (): WriteScope => 'all';

export const commands = {
  createTenant: command({ run: createTenantCommand, weight: record, scope: anything }),
  createApiKey: command({ run: createApiKeyCommand, weight: record, scope: ofTenant }),
  revokeApiKey: command({ run: revokeApiKeyCommand, weight: record, scope: ofTenant }),
  createAccount: command({ run: createAccountCommand, weight: (args) => RECORD_ROWS + Object.keys(args.body.metadata ?? {}).length, scope: ofTenant }),
  // The account row, its metadata entries (the old ones deleted, the new ones written), the audit record and the event.
  updateAccount: command({ run: updateAccountCommand, weight: () => RECORD_ROWS + 2 * METADATA_ENTRIES_MAX, scope: ofTenant }),
  postTransaction: command({
    run: postTransactionCommand,
    weight: (args) => keyedPostingRows(args.input),
    share: (args) => args.batchRows ?? 0,
    lines: linesOf,
    scope: ofTenant,
    readAhead: ({ tenantId, input, key }) => ({ tenantId, balances: input.lines, idempotency: { endpoint: POST_TRANSACTION_ENDPOINT, keys: [key] } }),
  }),
  // An atomic batch: every posting in it (at most 1,000 lines), one write.
  postBatch: command({
    run: postBatchCommand,
    weight: (args) => args.items.reduce((rows, item) => rows + keyedPostingRows(item.input), 0),
    lines: (args) => args.items.reduce((lines, item) => lines + item.input.lines.length, 0),
    scope: ofTenant,
    readAhead: ({ tenantId, items }) => ({
      tenantId,
      balances: items.flatMap((item) => item.input.lines),
      idempotency: { endpoint: POST_TRANSACTION_ENDPOINT, keys: items.map((item) => item.key) },
    }),
  }),
  // The mirror of the original, under its key, with the link between the two and its `transaction.reversed` event.
  reverseTransaction: command({
    run: reverseTransactionCommand,
    weight: (args) => keyedPostingRows(args.input) + 2,
    lines: linesOf,
    scope: ofTenant,
    readAhead: ({ tenantId, input, key }) => ({ tenantId, balances: input.lines, idempotency: { endpoint: REVERSE_TRANSACTION_ENDPOINT, keys: [key] } }),
  }),
  registerSettlement: command({
    run: registerSettlementCommand,
    weight: record,
    scope: ofTenant,
    readAhead: ({ tenantId, key }) => ({ tenantId, balances: [], idempotency: { endpoint: REGISTER_SETTLEMENT_ENDPOINT, keys: [key] } }),
  }),
  cancelSettlement: command({ run: cancelSettlementCommand, weight: record, scope: ofTenant }),
  // Each settlement it may expire: its status, audit record, event and reconciliation result.
  expireSettlements: command({ run: expireSettlementsCommand, weight: (args) => args.limit * RECORD_ROWS, scope: anything }),
  reconcileBatch: command({ run: reconcileBatchCommand, weight: (args) => planWeight(args.plans), scope: ofTenant }),
  setWebhook: command({ run: setWebhookCommand, weight: record, scope: ofTenant }),
  recordWebhookAttempt: command({ run: recordWebhookAttemptCommand, weight: record, scope: (args) => args.state.tenantId }),
  redeliver: command({ run: redeliverCommand, weight: record, scope: ofTenant }),
  createPolicyRule: command({ run: createPolicyRuleCommand, weight: record, scope: ofTenant }),
  deletePolicyRule: command({ run: deletePolicyRuleCommand, weight: record, scope: ofTenant }),
  // Posted at once, or held for approval: the posting, and the agent transaction's own record.
  executeAgentTransaction: command({
    run: executeAgentTransactionCommand,
    weight: (args) => keyedPostingRows(args.input) + RECORD_ROWS,
    lines: linesOf,
    scope: ofTenant,
    readAhead: ({ tenantId, input, key }) => ({ tenantId, balances: input.lines, idempotency: { endpoint: AGENT_EXECUTE_ENDPOINT, keys: [key] } }),
  }),
  // Approval posts the held transaction, a rollback its reverse: as many lines as it has (read before queueing).
  decideAgentTransaction: command({ run: decideAgentTransactionCommand, weight: (args) => postingRowsAtMost(args.lines, METADATA_ENTRIES_MAX) + RECORD_ROWS, lines: (args) => args.lines, scope: ofTenant }),
  rollbackAgentTransaction: command({ run: rollbackAgentTransactionCommand, weight: (args) => postingRowsAtMost(args.lines, METADATA_ENTRIES_MAX) + RECORD_ROWS, lines: (args) => args.lines, scope: ofTenant }),
  // The checkpoint, and for each transfer its record and a 2-line posting that settles what it matches.
  recordTransfers: command({ run: recordTransfersCommand, weight: (args) => RECORD_ROWS + args.transfers.length * transferRows, lines: (args) => 2 * args.transfers.length, scope: anything }),
  // It deletes up to a batch of events, and notes how far.
  pruneEvents: command({ run: pruneEventsCommand, weight: () => EVENT_PRUNE_BATCH + 1, scope: ofTenant }),
  // A kept balance per asset limited, and the audit record and event.
  setAccountLimits: command({ run: setAccountLimitsCommand, weight: () => ACCOUNT_LIMITS_MAX + RECORD_ROWS, scope: ofTenant }),
  createHold: command({
    run: createHoldCommand,
    weight: (args) => holdRows(args.input),
    lines: linesOf,
    scope: ofTenant,
    readAhead: ({ tenantId, input, key }) => ({ tenantId, balances: input.lines, idempotency: { endpoint: CREATE_HOLD_ENDPOINT, keys: [key] } }),
  }),
  // A capture posts the hold's lines; a void or an expiry releases them and writes the hold (every line) in its event.
  captureHold: command({ run: captureHoldCommand, weight: (args) => holdStepRows(args.lines, true), lines: (args) => args.lines, scope: ofTenant }),
  voidHold: command({ run: voidHoldCommand, weight: (args) => holdStepRows(args.lines, false), lines: (args) => args.lines, scope: ofTenant }),
  expireHolds: command({
    run: expireHoldsCommand,
    weight: (args) => args.holds.reduce((rows, hold) => rows + releaseRows(hold.lines), 0),
    lines: (args) => args.holds.reduce((lines, hold) => lines + hold.lines, 0),
    scope: ofTenant,
  }),
  // A statement row (or an import that stopped set aside, to be removed in parts).
  beginStatementImport: command({ run: beginStatementImportCommand, weight: record, scope: ofTenant }),
  // Each line, its match rows (one or a few) and the statement's counts.
  importStatementPart: command({ run: importStatementPartCommand, weight: (args) => 1 + 3 * args.lines.length, scope: ofTenant }),
  finishStatementImport: command({ run: finishStatementImportCommand, weight: record, scope: ofTenant }),
  // The line, a match row per entry, the statement's counts, the audit record and the event.
  matchStatementLine: command({ run: matchLineCommand, weight: (args) => RECORD_ROWS + 2 + args.entryIds.length, scope: ofTenant }),
  unmatchStatementLine: command({ run: unmatchLineCommand, weight: () => RECORD_ROWS + 2 + STATEMENT_MATCH_ENTRIES_MAX, scope: ofTenant }),
  ignoreStatementLine: command({ run: ignoreLineCommand, weight: () => RECORD_ROWS + 2, scope: ofTenant }),
  // The statement set aside, its audit record and event; its lines go after, in parts.
  deleteBankStatement: command({ run: deleteStatementCommand, weight: record, scope: ofTenant }),
  // Up to `lines` lines and their matches (a line may have up to STATEMENT_MATCH_ENTRIES_MAX).
  discardStatementPart: command({ run: discardStatementPartCommand, weight: (args) => 1 + args.lines * 2, scope: ofTenant }),
  reconcileStatementPart: command({ run: reconcileStatementPartCommand, weight: (args) => 1 + 3 * args.lineIds.length, scope: ofTenant }),
  finishReconcile: command({ run: finishReconcileCommand, weight: record, scope: ofTenant }),
  setReconciliationSettings: command({ run: setReconciliationSettingsCommand, weight: record, scope: ofTenant }),
};

export type Commands = typeof commands;
export type CommandName = keyof Commands;
export type CommandArgs<K extends CommandName> = Parameters<Commands[K]['run']>[1];
export type CommandResult<K extends CommandName> = Awaited<ReturnType<Commands[K]['run']>>;

const entryOf = <K extends CommandName>(name: K) => commands[name] as unknown as Command<CommandArgs<K>, CommandResult<K>>;

/** Runs one command; the writer calls this inside its group's transaction. */
export const runCommand = <K extends CommandName>(ctx: WriteContext, name: K, args: CommandArgs<K>): Promise<CommandResult<K>> => entryOf(name).run(ctx, args);

/** How many rows a command writes (Command.weight), at least one. */
export const commandWeight = <K extends CommandName>(name: K, args: CommandArgs<K>): number => Math.max(1, entryOf(name).weight(args));

/** The rows of the whole write a command is part of (Command.share), at least its own weight. */
export const commandShare = <K extends CommandName>(name: K, args: CommandArgs<K>, weight: number): number => Math.max(weight, entryOf(name).share?.(args) ?? 0);

/** The lines a command posts, holds or releases (Command.lines), 0 for one that has none. */
export const commandLines = <K extends CommandName>(name: K, args: CommandArgs<K>): number => entryOf(name).lines?.(args) ?? 0;

/** What a command may change (Command.scope). */
export const commandScope = <K extends CommandName>(name: K, args: CommandArgs<K>): WriteScope => entryOf(name).scope(args);

/** What a command will read that its group can read ahead for it (Command.readAhead). */
export const commandReadAhead = <K extends CommandName>(name: K, args: CommandArgs<K>): ReadAhead | undefined => entryOf(name).readAhead?.(args);

/**
 * Runs write commands inside a group commit, each failing alone (store/writer/groupCommit.ts); a command's promise
 * resolves once its commit is durable. The commands are named so they can run on another thread.
 * One Writer per database: it holds the write lock while its group runs (see WriteTx).
 */
export interface Writer {
  run<K extends CommandName>(name: K, args: CommandArgs<K>): Promise<CommandResult<K>>;
  close(): Promise<void>;
}
