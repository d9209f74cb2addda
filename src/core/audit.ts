// The audit log: append-only, hash-chained per tenant. Each record's hash covers its fields and the hash before it.
import { createHash } from 'node:crypto';
import type { IdGenerator, StoredAuditRecord, WriteTx } from './ports.js';
import { JsonNumber } from './json.js';

export const auditActions = [
  'CREATE_TENANT',
  'CREATE_API_KEY',
  'REVOKE_API_KEY',
  'CREATE_ACCOUNT',
  'UPDATE_ACCOUNT',
  'SET_ACCOUNT_LIMITS',
  'POST_TRANSACTION',
  'REGISTER_SETTLEMENT',
  'CANCEL_SETTLEMENT',
  'SETTLEMENT_MATCHED',
  'SETTLEMENT_UNMATCHED',
  'RECONCILIATION_BATCH',
  'UPDATE_WEBHOOK',
  'CREATE_POLICY_RULE',
  'DELETE_POLICY_RULE',
  'AGENTS_EXECUTE',
  'AGENTS_APPROVE',
  'AGENTS_REJECT',
  'AGENTS_ROLLBACK',
  'POLICY_VIOLATION',
  'CREATE_HOLD',
  'CAPTURE_HOLD',
  'VOID_HOLD',
  'EXPIRE_HOLD',
  'REVERSE_TRANSACTION',
] as const;

export type AuditAction = (typeof auditActions)[number];
export const actorTypes = ['HUMAN', 'AGENT'] as const;
export type ActorType = (typeof actorTypes)[number];
export type AuditPayload = Record<string, unknown>;

export interface AuditRecord {
  id: string;
  type: ActorType;
  action: AuditAction;
  actorKeyId: string;
  occurredAt: string;
  payload: AuditPayload;
  prevHash: string | null;
  hash: string;
}

/** Who acted: an API key, or the operator at the command line. */
export interface Actor {
  type: ActorType;
  keyId: string;
}

/** The actor id recorded for commands run by the operator through the CLI. */
export const CLI_ACTOR_ID = 'cli';

/** The actor of what the service does by itself, such as expiring a settlement. */
export const SYSTEM_ACTOR: Actor = { type: 'HUMAN', keyId: 'system' };

/** JSON with object keys sorted at every depth, so the same record always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  // A number read back losslessly (verification) is written as it was: the same text JSON.stringify gave it.
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * The text a record's hash covers: canonicalJson of its fields, with the record's own keys written out in their sorted
 * order (the same text, test/unit/audit.test.ts checks it for any record; a third of the cost, paid on every write).
 */
export function auditedText(record: Omit<AuditRecord, 'hash'>): string {
  const { id, type, action, actorKeyId, occurredAt, payload, prevHash } = record;
  const fields = { id, type, action, actorKeyId, occurredAt, payload, prevHash };
  // A field left out (never, typed as they are) is left out of the text, as canonicalJson leaves it.
  if ((Object.values(fields) as unknown[]).includes(undefined)) return canonicalJson(fields);
  const q = JSON.stringify;
  return `{"action":${q(action)},"actorKeyId":${q(actorKeyId)},"id":${q(id)},"occurredAt":${q(occurredAt)},"payload":${canonicalJson(payload)},"prevHash":${q(prevHash)},"type":${q(type)}}`;
}

export const auditHash = (record: Omit<AuditRecord, 'hash'>): string => createHash('sha256').update(auditedText(record)).digest('hex');

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

/** Where a chain stops holding: the record at a position (1-based, in commit order) and what is wrong with it. */
export interface ChainBreak {
  position: number;
  id: string;
  reason: string;
}

/**
 * Walks records in commit order and names the first one that was changed, or that does not follow the one before it
 * (a record removed or the order changed). `fromStart`: the first record must open the tenant's chain (prevHash null);
 * an export of a time window starts wherever the window does.
 */
export class ChainVerifier {
  private previousHash: string | null = null;
  private seen = 0;

  constructor(private readonly fromStart: boolean) {}

  get count(): number {
    return this.seen;
  }

  /** A record that cannot be read as one (its text was edited into something else). */
  unreadable(id: string): ChainBreak {
    return { position: ++this.seen, id, reason: 'was changed: it can no longer be read as an audit record' };
  }

  check(record: Omit<AuditRecord, 'action'> & { action: string }): ChainBreak | null {
    const position = ++this.seen;
    const at = (reason: string): ChainBreak => ({ position, id: record.id, reason });
    if (position > 1 || this.fromStart) {
      if (record.prevHash !== (position === 1 ? null : this.previousHash)) {
        return at('does not follow the record before it: a record was removed before it, or the order was changed');
      }
    }
    if (auditHash(record as AuditRecord) !== record.hash) return at('was changed: its hash does not match its content');
    this.previousHash = record.hash;
    return null;
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
};

/** The records of the tenant an audit record names (`ledger db check`: each must exist). */
export function auditResources(action: string, payload: Record<string, unknown>): Array<{ kind: AuditResourceKind; id: string }> {
  const named = [...(NAMED_BY_ACTION[action as AuditAction] ?? [])];
  // An agent's transaction posted at once is a transaction too; one held for approval is not yet.
  if (action === 'AGENTS_EXECUTE' && payload.status === 'POSTED') named.push(['transactionId', 'transaction']);
  return named.flatMap(([field, kind]) => (typeof payload[field] === 'string' ? [{ kind, id: payload[field] as string }] : []));
}
