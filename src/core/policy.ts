// Policy rules over agent-originated transactions, and the one pure function that judges a transaction against them.
import { formatMinor, scaleOf, type Asset, type Chain, type Token } from './money.js';
import type { LineInput } from './types.js';
import type { PolicyRuleType } from './enums.js';

/** The fields each rule type needs (spec, Policy rule). */
export const paramsOfType: Record<PolicyRuleType, ReadonlyArray<'amount' | 'debitAccountId' | 'creditAccountId' | 'tokens' | 'chains'>> = {
  MAX_DEBIT_PER_SESSION: ['amount'],
  MAX_DEBIT_PER_HOUR: ['amount'],
  REQUIRE_HUMAN_APPROVAL_ABOVE: ['amount'],
  FORBIDDEN_ACCOUNT_PAIR: ['debitAccountId', 'creditAccountId'],
  ALLOWED_TOKENS: ['tokens'],
  ALLOWED_CHAINS: ['chains'],
};

export interface PolicyParams {
  amount?: string;
  debitAccountId?: string;
  creditAccountId?: string;
  tokens?: Token[];
  chains?: Chain[];
}

export interface PolicyRule {
  id: string;
  tenantId: string;
  type: PolicyRuleType;
  agentKeyPrefix: string | null;
  params: PolicyParams;
  createdAt: string;
}

/** Debit sums per asset, in minor units. */
export type Debits = Map<Asset, bigint>;

export function debitsOf(lines: readonly Pick<LineInput, 'entryType' | 'asset' | 'amountMinor'>[]): Debits {
  const debits: Debits = new Map();
  for (const line of lines) if (line.entryType === 'DEBIT') debits.set(line.asset, (debits.get(line.asset) ?? 0n) + line.amountMinor);
  return debits;
}

export function addDebits(into: Debits, more: Debits): Debits {
  for (const [asset, minor] of more) into.set(asset, (into.get(asset) ?? 0n) + minor);
  return into;
}

/** A decimal limit in minor units of an asset, rounded down: a total passes while its minor units do not exceed this. */
export function limitInMinor(amount: string, asset: Asset): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  const scale = scaleOf(asset);
  return BigInt(`${whole}${fraction.slice(0, scale).padEnd(scale, '0')}`);
}

export interface PolicyCase {
  /** The raw key presented: `agentKeyPrefix` matches its start. */
  rawKey: string;
  lines: readonly LineInput[];
  /** This transaction's debits, and those already counted for the key's session and for its trailing hour. */
  debits: Debits;
  sessionDebits: Debits;
  hourDebits: Debits;
}

export type Verdict = { kind: 'POST' } | { kind: 'HOLD'; rule: PolicyRule; message: string } | { kind: 'REFUSE'; rule: PolicyRule; message: string };

const over = (debits: Debits, base: Debits, amount: string): { asset: Asset; total: bigint } | null => {
  for (const [asset, minor] of debits) {
    const total = (base.get(asset) ?? 0n) + minor;
    if (total > limitInMinor(amount, asset)) return { asset, total };
  }
  return null;
};

/** Why a rule refuses the case, or null when it does not. */
function refusal(rule: PolicyRule, c: PolicyCase): string | null {
  const p = rule.params;
  switch (rule.type) {
    case 'MAX_DEBIT_PER_SESSION':
    case 'MAX_DEBIT_PER_HOUR': {
      const session = rule.type === 'MAX_DEBIT_PER_SESSION';
      const hit = over(c.debits, session ? c.sessionDebits : c.hourDebits, p.amount!);
      return hit
        ? `${rule.type}: ${session ? "this session's" : 'the last hour of'} ${hit.asset} debits would total ${formatMinor(hit.total, hit.asset)}, above the limit of ${p.amount}.`
        : null;
    }
    case 'FORBIDDEN_ACCOUNT_PAIR': {
      const debit = c.lines.some((l) => l.entryType === 'DEBIT' && l.accountId === p.debitAccountId);
      const credit = c.lines.some((l) => l.entryType === 'CREDIT' && l.accountId === p.creditAccountId);
      return debit && credit ? `FORBIDDEN_ACCOUNT_PAIR: a debit of ${p.debitAccountId} with a credit of ${p.creditAccountId} is not allowed.` : null;
    }
    case 'ALLOWED_TOKENS': {
      const line = c.lines.find((l) => l.details.kind === 'ONCHAIN' && !p.tokens!.includes(l.asset as Token));
      return line ? `ALLOWED_TOKENS: ${line.asset} is not one of ${p.tokens!.join(', ')}.` : null;
    }
    case 'ALLOWED_CHAINS': {
      const line = c.lines.find((l) => l.details.kind === 'ONCHAIN' && !p.chains!.includes(l.details.chainId));
      return line && line.details.kind === 'ONCHAIN' ? `ALLOWED_CHAINS: ${line.details.chainId} is not one of ${p.chains!.join(', ')}.` : null;
    }
    // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent; an unmatched case answers undefined, which refuses nothing too.
    case 'REQUIRE_HUMAN_APPROVAL_ABOVE':
      return null;
  }
}

/**
 * Judges an agent's transaction: the first rule (oldest first) that refuses it wins; otherwise it is held when a
 * REQUIRE_HUMAN_APPROVAL_ABOVE rule's amount is exceeded; otherwise it posts. Limits are inclusive.
 */
export function evaluatePolicy(rules: readonly PolicyRule[], c: PolicyCase): Verdict {
  const applicable = rules.filter((r) => r.agentKeyPrefix === null || c.rawKey.startsWith(r.agentKeyPrefix));
  for (const rule of applicable) {
    const message = refusal(rule, c);
    if (message) return { kind: 'REFUSE', rule, message };
  }
  for (const rule of applicable) {
    if (rule.type !== 'REQUIRE_HUMAN_APPROVAL_ABOVE') continue;
    const hit = over(c.debits, new Map(), rule.params.amount!);
    if (hit) {
      return { kind: 'HOLD', rule, message: `${hit.asset} debits of ${formatMinor(hit.total, hit.asset)} are above ${rule.params.amount}: a person must approve.` };
    }
  }
  return { kind: 'POST' };
}
