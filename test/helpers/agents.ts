// Small helpers shared by the agent and policy-rule suites (black-box, over HTTP).
import { expect } from 'vitest';
import { client, type Client, type HttpResult } from './server.js';
import { parseNdjson, type AuditRecord } from './audit.js';
export const FROM_ALL = '2000-01-01T00:00:00.000Z';
export const TO_ALL = '2100-01-01T00:00:00.000Z';
export const AGENT_PATH = '/api/v1/agent/transactions';
export const RULES_PATH = '/api/v1/admin/policy-rules';

let seq = 0;
/** A fresh Idempotency-Key or session id. */
export const fresh = (what = 'k') => `${what}-${process.pid}-${Date.now()}-${seq++}`;

export interface Key {
  id: string;
  rawKey: string;
  prefix: string;
  scopes: string[];
  c: Client;
}

/** A new key of the tenant with exactly these scopes, made with the tenant's ADMIN client. */
export async function newKey(admin: Client, baseUrl: string, scopes: string[]): Promise<Key> {
  const res = await admin.post('/api/v1/api-keys', { scopes });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id, rawKey: res.body.rawKey, prefix: res.body.prefix, scopes: res.body.scopes, c: client(baseUrl, res.body.rawKey) };
}

/** POST /api/v1/agent/transactions with the two headers (null leaves a header out). */
export function execute(
  c: Client,
  lines: unknown[],
  options: { session?: string | null; key?: string | null; metadata?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  const session = options.session === undefined ? 'session-default' : options.session;
  const key = options.key === undefined ? fresh('agent') : options.key;
  if (session !== null) headers['x-agent-session-id'] = session;
  if (key !== null) headers['idempotency-key'] = key;
  return c.request('POST', AGENT_PATH, { body: { lines, ...(options.metadata ? { metadata: options.metadata } : {}) }, headers });
}

/** Creates a policy rule and expects 201. */
export async function createRule(admin: Client, body: Record<string, unknown>): Promise<any> {
  const res = await admin.post(RULES_PATH, body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

export async function balanceOf(c: Client, accountId: string): Promise<number> {
  const res = await c.get(`/api/v1/accounts/${accountId}/balance`);
  expect(res.status, res.text).toBe(200);
  return res.body.amount as number;
}

/** The whole audit export of the tenant (optionally one type). */
export async function exportAudit(c: Client, type?: 'HUMAN' | 'AGENT' | 'ALL'): Promise<AuditRecord[]> {
  const res = await c.get(`/api/v1/compliance/audit-export?from=2000-01-01&to=2100-01-01${type ? `&type=${type}` : ''}`);
  expect(res.status, res.text).toBe(200);
  return parseNdjson(res.text);
}
