// The audit log: append-only, hash-chained per tenant. Each record's hash covers its fields and the hash before it.
import { createHash } from 'node:crypto';
import type { IdGenerator, WriteTx } from './ports.js';

export const auditActions = [
  'CREATE_TENANT',
  'CREATE_API_KEY',
  'REVOKE_API_KEY',
  'CREATE_ACCOUNT',
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
] as const;

export type AuditAction = (typeof auditActions)[number];
export type ActorType = 'HUMAN' | 'AGENT';
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

/** JSON with object keys sorted at every depth, so the same record always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function auditHash(record: Omit<AuditRecord, 'hash'>): string {
  const { id, type, action, actorKeyId, occurredAt, payload, prevHash } = record;
  return createHash('sha256')
    .update(canonicalJson({ id, type, action, actorKeyId, occurredAt, payload, prevHash }))
    .digest('hex');
}

export function appendAudit(
  tx: WriteTx,
  ids: IdGenerator,
  tenantId: string,
  actor: Actor,
  action: AuditAction,
  occurredAt: string,
  payload: AuditPayload,
): void {
  const prevHash = tx.lastAuditHash(tenantId);
  const record = { id: ids.next(), type: actor.type, action, actorKeyId: actor.keyId, occurredAt, payload, prevHash };
  tx.appendAudit({ ...record, tenantId, hash: auditHash(record) });
}
