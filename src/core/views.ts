// The API shapes of domain records. Numbers the spec calls numbers are exact JsonNumbers.
import { formatMinor, type Asset, type FiatCurrency, type Token } from './money.js';
import { jsonNumber, toJsonText } from './json.js';
import type { Account, ApiKey, BankLinks, Entry, LineInput, ReversalLinks } from './types.js';
import { normalBalanceOf } from './types.js';
import type * as r from './responses.js';
import type { Out } from './responses.js';
import type { AgentTransaction } from './agent.js';
import type { Hold } from './hold.js';
import type { PolicyRule } from './policy.js';
import type { Settlement } from './settlement.js';
import type { BankStatement, StatementLine } from './bankStatement.js';
import type { BalanceLimits } from './types.js';

export const accountView = (a: Omit<Account, 'seq'>): Out<typeof r.account> => ({
  id: a.id,
  name: a.name,
  description: a.description,
  currency: a.currency,
  type: a.type,
  normalBalance: normalBalanceOf(a.type),
  createdAt: a.createdAt,
  metadata: a.metadata,
});

export const amountView = (minor: bigint, asset: Asset) => jsonNumber(formatMinor(minor, asset));

export function monetaryView(e: Pick<Entry, 'asset' | 'amountMinor' | 'details'>): Out<typeof r.monetary> {
  const amount = amountView(e.amountMinor, e.asset);
  const d = e.details;
  if (d.kind === 'FIAT') {
    // A fiat line's asset is its currency, an on-chain line's its token (core/posting.ts makes them so).
    return { type: 'FIAT' as const, amount, currency: e.asset as FiatCurrency, rail: d.rail, bankReference: d.bankReference };
  }
  return {
    type: 'ONCHAIN' as const,
    amount,
    token: e.asset as Token,
    chainId: d.chainId,
    txHash: d.txHash,
    blockNumber: d.blockNumber,
    walletAddress: d.walletAddress,
    tokenContract: d.tokenContract,
  };
}

/**
 * An entry as the entries listing shows it, rendered without its last field, `createdAt`, and without the closing
 * brace: the commit time is known only inside the write, which closes the text with it (`entryText`, `lineText`).
 * Rendering the rest before the write keeps that work off the writer. Written out field by field: the same text as
 * `toJsonText` of `{entryId, transactionId, type, monetary: monetaryView(e), description?}` (test/core/pure-parts.test.ts
 * checks it for any entry), at a fifth of the cost, paid twice a 2-line posting; its ids apart, so that a line is
 * not copied to be given them.
 */
export function entryViewHead(e: Pick<Entry, 'entryType' | 'asset' | 'amountMinor' | 'details' | 'description'>, id: string, transactionId: string): string {
  const q = JSON.stringify;
  const amount = formatMinor(e.amountMinor, e.asset);
  const d = e.details;
  const monetary =
    d.kind === 'FIAT'
      ? `{"type":"FIAT","amount":${amount},"currency":${q(e.asset)},"rail":${q(d.rail)},"bankReference":${q(d.bankReference)}}`
      : `{"type":"ONCHAIN","amount":${amount},"token":${q(e.asset)},"chainId":${q(d.chainId)},"txHash":${q(d.txHash)},"blockNumber":${q(d.blockNumber)},"walletAddress":${q(d.walletAddress)},"tokenContract":${q(d.tokenContract)}}`;
  const description = e.description !== null ? `,"description":${q(e.description)}` : '';
  return `{"entryId":${q(id)},"transactionId":${q(transactionId)},"type":${q(e.entryType)},"monetary":${monetary}${description}`;
}

/** An entry's stored view as listed: with the bank statement line it is matched to (null until matched) at its end. */
export const listedEntryText = (view: string, lineId: string | null): string => `${view.slice(0, -1)},"bankStatementLineId":${lineId === null ? 'null' : JSON.stringify(lineId)}}`;

/** The entry as listed: `{entryId, transactionId, type, monetary, description?, createdAt, effectiveAt}`. */
export const entryText = (head: string, createdAt: string, effectiveAt: string): string => `${head},"createdAt":${JSON.stringify(createdAt)},"effectiveAt":${JSON.stringify(effectiveAt)}}`;

/** A transaction line: the entry as listed, plus the account it belongs to. */
export const lineText = (head: string, createdAt: string, effectiveAt: string, accountId: string): string =>
  `${head},"createdAt":${JSON.stringify(createdAt)},"effectiveAt":${JSON.stringify(effectiveAt)},"accountId":${JSON.stringify(accountId)}}`;

/** The transaction as read back and sent in events: `{transactionId, metadata, lines, createdAt, effectiveAt}`. */
export const transactionText = (transactionId: string, metadata: Record<string, string>, lines: readonly string[], createdAt: string, effectiveAt: string): string =>
  `{"transactionId":${JSON.stringify(transactionId)},"metadata":${toJsonText(metadata)},"lines":[${lines.join(',')}],"createdAt":${JSON.stringify(createdAt)},"effectiveAt":${JSON.stringify(effectiveAt)}}`;

/**
 * A transaction as the API shows it: its stored document with its reversal links, which are read with it (they change
 * after the document is written: a reversal comes later).
 */
export const linkedTransactionText = (document: string, links: ReversalLinks & Partial<BankLinks>): string =>
  `${withBankLines(document, links.bankLines ?? null).slice(0, -1)},"reversesTransactionId":${JSON.stringify(links.reversesTransactionId)},"reversedByTransactionId":${JSON.stringify(links.reversedByTransactionId)}}`;

// A line of a stored document opens `{"entryId":"<id>"` and closes `,"accountId":"<id>"}` (lineText); a string value
// holding either would have its quotes escaped, so neither is found inside one.
const LINE_OPEN = /\{"entryId":"([0-9a-f-]{36})"/g;
const LINE_CLOSE = /,"accountId":"[0-9a-f-]{36}"\}/g;

/** Each line of a transaction's document given the statement line its entry is matched to (null for none, and in events). */
export function withBankLines(document: string, bankLines: string | null): string {
  const byEntry = new Map((bankLines ?? '').split(',').filter(Boolean).map((pair) => pair.split('=') as [string, string]));
  const entryIds = [...document.matchAll(LINE_OPEN)].map((m) => m[1]!);
  let line = 0;
  return document.replace(LINE_CLOSE, (close) => {
    const lineId = byEntry.get(entryIds[line++] ?? '') ?? null;
    return `${close.slice(0, -1)},"bankStatementLineId":${lineId === null ? 'null' : JSON.stringify(lineId)}}`;
  });
}

export const apiKeyListView = (k: ApiKey): Out<typeof r.apiKey> => ({
  id: k.id,
  prefix: k.prefix,
  scopes: k.scopes,
  createdAt: k.createdAt,
  revokedAt: k.revokedAt,
});

export const apiKeyCreatedView = (k: ApiKey, rawKey: string): Out<typeof r.apiKeyCreated> => ({
  id: k.id,
  rawKey,
  prefix: k.prefix,
  scopes: k.scopes,
  createdAt: k.createdAt,
});

/** A line as it was asked for (an agent transaction's, a hold's), amounts exact. */
export const requestedLineView = (l: LineInput) => ({
  accountId: l.accountId,
  entryType: l.entryType,
  monetaryEntry: monetaryView(l),
  ...(l.description !== null ? { description: l.description } : {}),
});

export const agentTransactionView = (a: Omit<AgentTransaction, 'seq'>): Out<typeof r.agentTransaction> => ({
  id: a.id,
  status: a.status,
  sessionId: a.sessionId,
  actorKeyId: a.actorKeyId,
  lines: a.input.lines.map(requestedLineView),
  metadata: a.input.metadata,
  createdAt: a.createdAt,
  decidedAt: a.decidedAt,
  reversalTransactionId: a.reversalTransactionId,
});

/** The answer: the hold as created, and once captured what was captured and the transaction it posted. */
export const holdView = (h: Omit<Hold, 'seq' | 'tenantId'>): Out<typeof r.hold> => ({
  holdId: h.id,
  status: h.status,
  lines: h.input.lines.map(requestedLineView),
  metadata: h.input.metadata,
  expiresAt: h.expiresAt,
  createdAt: h.createdAt,
  ...(h.status === 'CAPTURED' ? { capturedAmount: jsonNumber(h.capturedAmount!), transactionId: h.transactionId! } : {}),
});

export const policyRuleView = (rule: PolicyRule): Out<typeof r.policyRule> => ({
  id: rule.id,
  type: rule.type,
  agentKeyPrefix: rule.agentKeyPrefix,
  params: rule.params,
  createdAt: rule.createdAt,
});

export const settlementView = (s: Omit<Settlement, 'seq'>): Out<typeof r.settlement> => ({
  settlementId: s.id,
  accountId: s.accountId,
  expectedToken: s.token,
  expectedAmount: s.amountText,
  expectedWalletAddress: s.walletAddress,
  expectedChainId: s.chain,
  expectedFromAddress: s.fromAddress,
  status: s.status,
  matchedTransactionId: s.matchedTransactionId,
  txHash: s.txHash,
  blockNumber: s.blockNumber,
  confirmedAt: s.confirmedAt,
  ...(s.status === 'PENDING' && s.expiresAt !== null ? { expiresAt: s.expiresAt } : {}),
  createdAt: s.createdAt,
});

/** The answer of PUT and GET: every limit of the account, by asset, amounts as decimal strings. */
export const limitsView = (accountId: string, limits: ReadonlyArray<{ asset: Asset } & BalanceLimits>) => ({
  accountId,
  limits: [...limits]
    .sort((a, b) => (a.asset < b.asset ? -1 : a.asset > b.asset ? 1 : 0))
    .map(({ asset, min, max }) => ({ asset, min: min === null ? null : formatMinor(min, asset), max: max === null ? null : formatMinor(max, asset) })),
});

/** A bank statement as the API shows it, with its summary against the books' balance at the end of its period. */
export function bankStatementView(s: BankStatement, ledgerBalanceAtEnd: bigint): Out<typeof r.bankStatement> {
  const money = (minor: bigint | null) => (minor === null ? null : amountView(minor, s.currency));
  return {
    statementId: s.id,
    accountId: s.accountId,
    format: s.format,
    externalId: s.externalId,
    currency: s.currency,
    from: s.from,
    to: s.to,
    openingBalance: money(s.openingBalance),
    closingBalance: money(s.closingBalance),
    lineCount: s.lineCount,
    importedAt: s.importedAt,
    summary: {
      matched: s.matched,
      unmatched: s.lineCount - s.matched - s.ignored,
      ignored: s.ignored,
      duplicates: s.duplicates,
      ledgerBalanceAtEnd: amountView(ledgerBalanceAtEnd, s.currency),
      difference: money(s.closingBalance === null ? null : s.closingBalance - ledgerBalanceAtEnd),
    },
  };
}

export const statementLineView = (l: StatementLine, matchedEntryIds: string[]): Out<typeof r.bankStatementLine> => ({
  lineId: l.id,
  statementId: l.statementId,
  index: l.index,
  bankLineId: l.bankLineId,
  bookingDate: l.bookingDate,
  valueDate: l.valueDate,
  amount: amountView(l.amount, l.currency),
  direction: l.direction,
  currency: l.currency,
  references: l.references,
  counterparty: l.counterparty,
  description: l.description,
  status: l.status,
  matchedEntryIds,
  matchedBy: l.matchedBy,
  matchRule: l.matchRule,
  matchedAt: l.matchedAt,
  candidates: l.candidates,
  note: l.note,
});
