// Rows as the tables hold them to the values core works with: one mapping per table, for every engine.
// Integers arrive as bigint (better-sqlite3's safeIntegers; pg's int8 parser), amounts as text of digits.
import type { Hold } from '../../core/hold.js';
import type { Selectable } from 'kysely';
import type { Account, ApiKey, Entry, FiatDetails, LinkedTransaction, StoredEntry } from '../../core/types.js';
import type { StoredAuditRecord } from '../../core/ports.js';
import type { Settlement } from '../../core/settlement.js';
import type { DeliveryState, OutboxEvent, Webhook } from '../../core/webhook.js';
import type { PolicyRule } from '../../core/policy.js';
import { linkedTransactionText } from '../../core/views.js';
import { inputFromJson, type AgentTransaction } from '../../core/agent.js';
import type { Asset } from '../../core/money.js';
import type { Scope } from '../../core/scopes.js';
import type { ActorType } from '../../core/audit.js';
import type { Database } from '../schema.js';
import { EVENT_TYPES } from './storedNames.js';
import type { AgentStatus, HoldStatus } from '../../core/enums.js';

type Row<T> = Selectable<T>;

export const toApiKey = (r: Row<Database['api_keys']>): ApiKey => ({
  id: r.id,
  tenantId: r.tenant_id,
  prefix: r.prefix,
  scopes: JSON.parse(r.scopes) as Scope[],
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

export const toAccount = (r: Row<Database['accounts']>): Account => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  description: r.description,
  currency: r.currency as Account['currency'],
  type: r.type as Account['type'],
  createdAt: r.created_at,
  metadata: JSON.parse(r.metadata) as Record<string, string>,
  seq: Number(r.seq),
});

/**
 * A fiat line's details are stored as '' (its rail and bank reference are in its view, which every entry keeps: about
 * 50 bytes less a line); an on-chain line's as their JSON, which settlement matching reads.
 */
export const storedDetails = (details: Entry['details']): string => (details.kind === 'FIAT' ? '' : JSON.stringify(details));

/** A fiat line's bank reference as statement lines are matched by it (trimmed; null when empty or on-chain). */
export const matchingReference = (details: Entry['details']): string | null => (details.kind === 'FIAT' && details.bankReference?.trim()) || null;

function detailsOf(r: Pick<Row<Database['entries']>, 'details' | 'view'>): Entry['details'] {
  if (r.details !== '') return JSON.parse(r.details) as Entry['details'];
  const { rail, bankReference } = (JSON.parse(r.view) as { monetary: { rail: FiatDetails['rail']; bankReference: string | null } }).monetary;
  return { kind: 'FIAT', rail, bankReference };
}

export const toEntry = (r: Row<Database['entries']>): StoredEntry => ({ ...toStatementEntry(r), details: detailsOf(r) });

/** An entry's columns but its details (and its view): what a statement and a stored entry share. */
export const toStatementEntry = (r: Omit<Row<Database['entries']>, 'details' | 'view' | 'bank_reference' | 'effective_at' | 'backdated_after'>): Omit<StoredEntry, 'details'> => ({
  seq: Number(r.seq),
  tenantId: r.tenant_id,
  transactionId: r.transaction_id,
  accountId: r.account_id,
  lineNo: Number(r.line_no),
  entryType: r.entry_type as Entry['entryType'],
  asset: r.asset as Asset,
  amountMinor: BigInt(r.amount),
  description: r.description,
  createdAt: r.created_at,
  balanceAfterMinor: BigInt(r.balance_after),
});

export const toTransaction = (r: Omit<Row<Database['transactions']>, 'effective_at'> & { reverses_id: string | null; reversed_by_id: string | null; bank_lines: string | null }): LinkedTransaction => ({
  id: r.id,
  tenantId: r.tenant_id,
  seq: Number(r.seq),
  document: r.document,
  createdAt: r.created_at,
  reversesTransactionId: r.reverses_id,
  bankLines: r.bank_lines,
  reversedByTransactionId: r.reversed_by_id,
});

export const toSettlement = (r: Row<Database['settlements']>): Settlement => ({
  id: r.id,
  tenantId: r.tenant_id,
  seq: Number(r.seq),
  accountId: r.account_id,
  token: r.token as Settlement['token'],
  amountText: r.amount_text,
  amountMinor: BigInt(r.amount),
  chain: r.chain as Settlement['chain'],
  walletAddress: r.wallet_address,
  fromAddress: r.from_address,
  status: r.status as Settlement['status'],
  matchedTransactionId: r.matched_transaction_id,
  matchedLineNo: r.matched_line_no === null ? null : Number(r.matched_line_no),
  txHash: r.tx_hash,
  blockNumber: r.block_number === null ? null : Number(r.block_number),
  confirmedAt: r.confirmed_at,
  expiresAt: r.expires_at,
  createdAt: r.created_at,
});

/** A digest as the ledger shows it: hexadecimal text (stored as its bytes since migration 0023). */
export const hexOf = (digest: Buffer | string): string => (typeof digest === 'string' ? digest : digest.toString('hex'));

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A SHA-256 digest given as hexadecimal text, as it is stored; anything else is a bug, never stored half-read. */
export function digestBytes(hex: string): Buffer {
  if (!SHA256_HEX.test(hex)) throw new Error(`Not a SHA-256 digest in hexadecimal: ${JSON.stringify(hex.slice(0, 80))}`);
  return Buffer.from(hex, 'hex');
}

export const toStoredAudit = (r: Row<Database['audit_log']>): StoredAuditRecord => ({
  seq: Number(r.seq),
  id: r.id,
  type: r.type as ActorType,
  action: r.action as StoredAuditRecord['action'],
  actorKeyId: r.actor_key_id,
  occurredAt: r.occurred_at,
  payloadJson: r.payload,
  prevHash: r.prev_hash === null ? null : hexOf(r.prev_hash),
  hash: hexOf(r.hash),
});

export const toWebhook = (r: Row<Database['webhooks']>): Webhook => ({
  tenantId: r.tenant_id,
  url: r.url,
  secret: r.secret,
  startSeq: Number(r.start_seq),
  deliveredSeq: Number(r.delivered_seq),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/**
 * An event as read with its body. A `transaction.committed` event shows the transaction as committed: what it reverses,
 * and nothing reversing it yet (a later reversal has its own event, `transaction.reversed`).
 */
export function toOutboxEvent(r: Omit<Row<Database['outbox']>, 'transaction_id'> & { reverses_id: string | null }): OutboxEvent {
  const type = EVENT_TYPES.name(r.type);
  return {
    seq: Number(r.seq),
    id: r.id,
    tenantId: r.tenant_id,
    type,
    payload: type === 'transaction.committed' ? linkedTransactionText(r.payload, { reversesTransactionId: r.reverses_id, reversedByTransactionId: null }) : r.payload,
    createdAt: r.created_at,
  };
}

export const toDelivery = (r: Row<Database['webhook_deliveries']>): DeliveryState & { seq: number } => ({
  seq: Number(r.seq),
  tenantId: r.tenant_id,
  eventId: r.event_id,
  eventSeq: Number(r.event_seq),
  type: r.type,
  status: r.status as DeliveryState['status'],
  attempts: Number(r.attempts),
  lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code),
  lastError: r.last_error,
  firstAttemptAt: r.first_attempt_at,
  nextAttemptAt: r.next_attempt_at,
  updatedAt: r.updated_at,
});

export const toPolicyRule = (r: Row<Database['policy_rules']>): PolicyRule => ({
  id: r.id,
  tenantId: r.tenant_id,
  type: r.type as PolicyRule['type'],
  agentKeyPrefix: r.agent_key_prefix,
  params: JSON.parse(r.params) as PolicyRule['params'],
  createdAt: r.created_at,
});

export const toAgentTransaction = (r: Row<Database['agent_transactions']>): AgentTransaction => ({
  id: r.id,
  tenantId: r.tenant_id,
  seq: Number(r.seq),
  status: r.status as AgentStatus,
  sessionId: r.session_id,
  actorKeyId: r.actor_key_id,
  input: inputFromJson(r.input),
  createdAt: r.created_at,
  decidedAt: r.decided_at,
  decidedBy: r.decided_by,
  reversalTransactionId: r.reversal_transaction_id,
});

export const toHold = (r: Row<Database['holds']>): Hold => ({
  id: r.id,
  tenantId: r.tenant_id,
  seq: Number(r.seq),
  status: r.status as HoldStatus,
  input: inputFromJson(r.input),
  expiresAt: r.expires_at,
  createdAt: r.created_at,
  decidedAt: r.decided_at,
  capturedAmount: r.captured_amount,
  transactionId: r.transaction_id,
});
