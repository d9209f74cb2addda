// The API shapes of domain records. Numbers the spec calls numbers are exact JsonNumbers.
import { formatMinor, type Asset } from './money.js';
import { jsonNumber } from './json.js';
import type { Account, ApiKey, Entry } from './types.js';
import { normalBalanceOf } from './types.js';

export const accountView = (a: Omit<Account, 'seq'>) => ({
  id: a.id,
  name: a.name,
  description: a.description,
  currency: a.currency,
  type: a.type,
  normalBalance: normalBalanceOf(a.type),
  createdAt: a.createdAt,
});

export const amountView = (minor: bigint, asset: Asset) => jsonNumber(formatMinor(minor, asset));

export function monetaryView(e: Pick<Entry, 'asset' | 'amountMinor' | 'details'>) {
  const amount = amountView(e.amountMinor, e.asset);
  const d = e.details;
  if (d.kind === 'FIAT') {
    return { type: 'FIAT' as const, amount, currency: e.asset, rail: d.rail, bankReference: d.bankReference };
  }
  return {
    type: 'ONCHAIN' as const,
    amount,
    token: e.asset,
    chainId: d.chainId,
    txHash: d.txHash,
    blockNumber: d.blockNumber,
    walletAddress: d.walletAddress,
    tokenContract: d.tokenContract,
  };
}

export const entryView = (e: Entry) => ({
  entryId: e.id,
  transactionId: e.transactionId,
  type: e.entryType,
  monetary: monetaryView(e),
  ...(e.description !== null ? { description: e.description } : {}),
  createdAt: e.createdAt,
});

/** A transaction line: the entry as listed, plus the account it belongs to. */
export const lineView = (e: Entry) => ({ ...entryView(e), accountId: e.accountId });

export const transactionView = (t: { id: string; metadata: Record<string, string>; createdAt: string }, entries: Entry[]) => ({
  transactionId: t.id,
  metadata: t.metadata,
  lines: entries.map(lineView),
  createdAt: t.createdAt,
});

export const apiKeyListView = (k: ApiKey) => ({
  id: k.id,
  prefix: k.prefix,
  scopes: k.scopes,
  createdAt: k.createdAt,
  revokedAt: k.revokedAt,
});

export const apiKeyCreatedView = (k: ApiKey, rawKey: string) => ({
  id: k.id,
  rawKey,
  prefix: k.prefix,
  scopes: k.scopes,
  createdAt: k.createdAt,
});
