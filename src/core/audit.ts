// The audit log: append-only, hash-chained per tenant. Each record's hash covers its fields and the hash before it.
import { createHash } from 'node:crypto';
import type { StoredAuditRecord, WriteTx } from './ports.js';
import type { IdGenerator } from './ids.js';
import { auditedText, ChainWalk, type ActorType, type AuditAction, type AuditPayload, type AuditRecord, type ChainBreak } from './auditChain.js';
import { parseJsonObject } from './json.js';

export { auditActions, actorTypes, auditedText, canonicalJson, type ActorType, type AuditAction, type AuditPayload, type AuditRecord, type ChainBreak } from './auditChain.js';

/** Who acted: an API key, or the operator at the command line. */
export interface Actor {
  type: ActorType;
  keyId: string;
}

/** The actor id recorded for commands run by the operator through the CLI. */
export const CLI_ACTOR_ID = 'cli';

/** The actor of what the service does by itself, such as expiring a settlement. */
export const SYSTEM_ACTOR: Actor = { type: 'HUMAN', keyId: 'system' };

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');
export const auditHash = (record: Omit<AuditRecord, 'hash'>): string => sha256Hex(auditedText(record));

export async function appendAudit(
  tx: WriteTx,
  ids: IdGenerator,
  tenantId: string,
  actor: Actor,
  action: AuditAction,
  occurredAt: string,
  payload: AuditPayload,
): Promise<void> {
  const prevHash = await tx.lastAuditHash(tenantId);
  const record = { id: ids.next(), type: actor.type, action, actorKeyId: actor.keyId, occurredAt, payload, prevHash };
  await tx.appendAudit({ ...record, tenantId, hash: auditHash(record) });
}

/** One line of the NDJSON export: the record's fields, its payload as stored, and its place in the chain. */
export const auditLine = (r: StoredAuditRecord): string =>
  `{"id":${JSON.stringify(r.id)},"type":${JSON.stringify(r.type)},"action":${JSON.stringify(r.action)},` +
  `"actorKeyId":${JSON.stringify(r.actorKeyId)},"occurredAt":${JSON.stringify(r.occurredAt)},"payload":${r.payloadJson},` +
  `"hash":${JSON.stringify(r.hash)},"prevHash":${JSON.stringify(r.prevHash)}}\n`;

/** Walks records in commit order, each hashed here (the console's walk hashes with Web Crypto: core/auditChain.ts). */
export class ChainVerifier extends ChainWalk {
  check(record: Omit<AuditRecord, 'action'> & { action: string }): ChainBreak | null {
    return this.follows(record, auditHash(record as AuditRecord));
  }
}

/** The kinds of record an audit record may name that are never deleted: each named must exist beside the record. */
export type AuditResourceKind = 'tenant' | 'apiKey' | 'account' | 'transaction' | 'agentTransaction' | 'settlement' | 'hold';

/**
 * Which payload field of each action names which kind of record. Policy rules (deleted when deleted), the webhook
 * (replaced) and a reconciliation batch's list are not followed; a refused agent request names nothing it made.
 */
const NAMED_BY_ACTION: Record<AuditAction, ReadonlyArray<readonly [field: string, kind: AuditResourceKind]>> = {
  CREATE_TENANT: [['tenantId', 'tenant']],
  CREATE_API_KEY: [['keyId', 'apiKey']],
  REVOKE_API_KEY: [['keyId', 'apiKey']],
  CREATE_ACCOUNT: [['accountId', 'account']],
  UPDATE_ACCOUNT: [['accountId', 'account']],
  SET_ACCOUNT_LIMITS: [['accountId', 'account']],
  POST_TRANSACTION: [['transactionId', 'transaction']],
  REGISTER_SETTLEMENT: [['settlementId', 'settlement'], ['accountId', 'account']],
  CANCEL_SETTLEMENT: [['settlementId', 'settlement'], ['accountId', 'account']],
  SETTLEMENT_MATCHED: [['settlementId', 'settlement'], ['transactionId', 'transaction']],
  SETTLEMENT_UNMATCHED: [['settlementId', 'settlement'], ['accountId', 'account']],
  RECONCILIATION_BATCH: [],
  UPDATE_WEBHOOK: [],
  CREATE_POLICY_RULE: [],
  DELETE_POLICY_RULE: [],
  AGENTS_EXECUTE: [['transactionId', 'agentTransaction']],
  AGENTS_APPROVE: [['transactionId', 'agentTransaction'], ['transactionId', 'transaction']],
  AGENTS_REJECT: [['transactionId', 'agentTransaction']],
  AGENTS_ROLLBACK: [['transactionId', 'transaction'], ['reversesTransactionId', 'transaction'], ['reversesTransactionId', 'agentTransaction']],
  POLICY_VIOLATION: [],
  CREATE_HOLD: [['holdId', 'hold']],
  CAPTURE_HOLD: [['holdId', 'hold'], ['transactionId', 'transaction']],
  VOID_HOLD: [['holdId', 'hold']],
  EXPIRE_HOLD: [['holdId', 'hold']],
  REVERSE_TRANSACTION: [['transactionId', 'transaction'], ['reversesTransactionId', 'transaction']],
  IMPORT_BANK_STATEMENT: [['accountId', 'account']],
  RECONCILE_BANK_STATEMENT: [['accountId', 'account']],
  MATCH_STATEMENT_LINE: [['accountId', 'account']],
  UNMATCH_STATEMENT_LINE: [['accountId', 'account']],
  IGNORE_STATEMENT_LINE: [['accountId', 'account']],
  DELETE_BANK_STATEMENT: [['accountId', 'account']],
  SET_RECONCILIATION_SETTINGS: [['accountId', 'account']],
};

/** The records of the tenant an audit record names (`ledger db check`: each must exist). */
export function auditResources(action: string, payload: Record<string, unknown>): Array<{ kind: AuditResourceKind; id: string }> {
  const named = [...(NAMED_BY_ACTION[action as AuditAction] ?? [])];
  // An agent's transaction posted at once is a transaction too; one held for approval is not yet.
  if (action === 'AGENTS_EXECUTE' && payload.status === 'POSTED') named.push(['transactionId', 'transaction']);
  return named.flatMap(([field, kind]) => (typeof payload[field] === 'string' ? [{ kind, id: payload[field] as string }] : []));
}

/** A stored record with its payload parsed back exactly, as hashing needs it. */
export const withPayload = (r: StoredAuditRecord) => ({ ...r, payload: parseJsonObject(r.payloadJson) });

/** The record with its payload, or null when the payload text no longer parses (it was edited). */
function parsed(row: StoredAuditRecord) {
  try {
    return withPayload(row);
    // Stryker disable next-line BlockStatement: equivalent; an empty catch answers undefined, which is read as null is.
  } catch {
    return null;
  }
}

/** The next stored record of a chain, checked against the ones before it: where the chain breaks, or null. */
export function checkStoredRecord(verifier: ChainVerifier, row: StoredAuditRecord): ChainBreak | null {
  const record = parsed(row);
  return record ? verifier.check(record) : verifier.unreadable(row.id);
}
