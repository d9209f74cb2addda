// The audit export as a client reads it: NDJSON records, and the hash chain recomputed as the README defines it
// (sha-256 of the canonical JSON of the record without its hash). Kept apart from src/core/audit.ts: it is the oracle.
import { createHash } from 'node:crypto';
import { expect } from 'vitest';

export interface AuditRecord {
  id: string;
  type: string;
  action: string;
  actorKeyId: string;
  occurredAt: string;
  payload: Record<string, unknown>;
  hash: string;
  prevHash: string | null;
}

export const AUDIT_EXPORT_PATH = '/api/v1/compliance/audit-export';

/** JSON with object keys sorted at every depth and no whitespace (README: "canonical JSON"). */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const o = value as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`;
}

/** The hash a record must carry, from its other fields. */
export const recomputeHash = (r: AuditRecord): string =>
  createHash('sha256')
    .update(canonical({ id: r.id, type: r.type, action: r.action, actorKeyId: r.actorKeyId, occurredAt: r.occurredAt, payload: r.payload, prevHash: r.prevHash }))
    .digest('hex');

/** Parses an NDJSON body, checking each line stands alone as an object and a non-empty body ends with a newline. */
export function parseNdjson(text: string): AuditRecord[] {
  if (text === '') return [];
  expect(text.endsWith('\n'), 'a non-empty body ends with a newline').toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line, i) => {
      expect(line.length, `line ${i} is not empty`).toBeGreaterThan(0);
      let parsed: unknown;
      expect(() => (parsed = JSON.parse(line)), `line ${i} parses on its own: ${line}`).not.toThrow();
      expect(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed), `line ${i} is an object`).toBe(true);
      return parsed as AuditRecord;
    });
}
