// The audit chain's rules that need no Node: the text a record's hash covers, and the walk that names the first
// record breaking the chain (for `audit verify`, `db check` and the console).
import { JsonNumber, parseJsonObject } from './json.js';

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
  'IMPORT_BANK_STATEMENT',
  'RECONCILE_BANK_STATEMENT',
  'MATCH_STATEMENT_LINE',
  'UNMATCH_STATEMENT_LINE',
  'IGNORE_STATEMENT_LINE',
  'DELETE_BANK_STATEMENT',
  'SET_RECONCILIATION_SETTINGS',
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
 * order (the same text, test/core/audit.test.ts checks it for any record): far cheaper than canonicalJson's sort, and
 * paid on every write.
 */
export function auditedText(record: Omit<AuditRecord, 'hash'>): string {
  const { id, type, action, actorKeyId, occurredAt, payload, prevHash } = record;
  const fields = { id, type, action, actorKeyId, occurredAt, payload, prevHash };
  // A field left out (never, typed as they are) is left out of the text, as canonicalJson leaves it.
  if ((Object.values(fields) as unknown[]).includes(undefined)) return canonicalJson(fields);
  const q = JSON.stringify;
  return `{"action":${q(action)},"actorKeyId":${q(actorKeyId)},"id":${q(id)},"occurredAt":${q(occurredAt)},"payload":${canonicalJson(payload)},"prevHash":${q(prevHash)},"type":${q(type)}}`;
}

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
export class ChainWalk {
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

  /** The next record, with the hash of its audited text (`auditedText`) as computed by the caller. */
  follows(record: Omit<AuditRecord, 'action'> & { action: string }, computedHash: string): ChainBreak | null {
    const position = ++this.seen;
    const at = (reason: string): ChainBreak => ({ position, id: record.id, reason });
    if (position > 1 || this.fromStart) {
      if (record.prevHash !== (position === 1 ? null : this.previousHash)) {
        return at('does not follow the record before it: a record was removed before it, or the order was changed');
      }
    }
    if (computedHash !== record.hash) return at('was changed: its hash does not match its content');
    this.previousHash = record.hash;
    return null;
  }
}

const isRecordShape = (value: Record<string, unknown>): boolean =>
  ['id', 'type', 'action', 'actorKeyId', 'occurredAt', 'hash'].every((k) => typeof value[k] === 'string') &&
  (value.prevHash === null || typeof value.prevHash === 'string') &&
  value.payload !== null &&
  typeof value.payload === 'object' &&
  !Array.isArray(value.payload);

/**
 * One line of an export, walked: read without losing a digit (its numbers hash as the text they were written as), then
 * checked with its hash by `hashOf` (SHA-256 in hex of the text given). A line that is not a record breaks the chain.
 */
export async function walkLine(walk: ChainWalk, line: string, hashOf: (text: string) => string | Promise<string>): Promise<ChainBreak | null> {
  let value: Record<string, unknown>;
  try {
    value = parseJsonObject(line);
  } catch {
    return walk.unreadable('(unreadable line)');
  }
  if (!isRecordShape(value)) return walk.unreadable(String(value.id ?? '(no id)'));
  const record = value as unknown as AuditRecord;
  return walk.follows(record, await hashOf(auditedText(record)));
}
