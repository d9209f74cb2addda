// API key scopes and the one rule that decides whether a key may act.

export const scopes = [
  'TRANSACTIONS_READ',
  'TRANSACTIONS_WRITE',
  'ACCOUNTS_READ',
  'ACCOUNTS_WRITE',
  'AGENTS_EXECUTE',
  'AGENTS_ROLLBACK',
  'AGENTS_AUDIT_READ',
  'RECONCILIATION_READ',
  'RECONCILIATION_WRITE',
  'COMPLIANCE_EXPORT',
  'WEBHOOK_MANAGE',
  'ADMIN',
] as const;

export type Scope = (typeof scopes)[number];

export const isScope = (value: string): value is Scope => (scopes as readonly string[]).includes(value);

/** ADMIN supersedes every other scope. */
export const allows = (held: readonly Scope[], required: Scope): boolean =>
  held.includes('ADMIN') || held.includes(required);
