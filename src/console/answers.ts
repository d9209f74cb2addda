// The API's answers as the console reads them: the server's own response schemas (types only: nothing of them reaches
// the bundle), with every number a JsonNumber, as the lossless reader gives it (core/json.ts).
import type { JsonNumber } from '../core/json.js';
import type * as r from '../core/responses.js';
import type { Out } from '../core/responses.js';

type Parsed<T> = T extends JsonNumber | number ? JsonNumber : T extends readonly (infer U)[] ? Parsed<U>[] : T extends object ? { [K in keyof T]: Parsed<T[K]> } : T;

export type Account = Parsed<Out<typeof r.account>>;
export type Balance = Parsed<Out<typeof r.balance>>;
export type Monetary = Parsed<Out<typeof r.monetary>>;
export type JournalEntry = Parsed<Out<typeof r.journalEntry>>;
export type Transaction = Parsed<Out<typeof r.transaction>>;
export type Hold = Parsed<Out<typeof r.hold>>;
/** Its data read by the event's type, which the schema's union of shapes does not tie it to. */
export type FeedEvent = Omit<Parsed<Out<typeof r.event>>, 'data'> & { data: Record<string, unknown> };
export type Settlement = Parsed<Out<typeof r.settlement>>;
export type BalanceHistory = Parsed<Out<typeof r.balanceHistory>>;
export type TrialBalance = Parsed<Out<typeof r.trialBalance>>;
export type ApiKey = Parsed<Out<typeof r.apiKey>>;
export type BankStatement = Parsed<Out<typeof r.bankStatement>>;
export type BankStatementLine = Parsed<Out<typeof r.bankStatementLine>>;
export type ReconciliationSettings = Parsed<Out<typeof r.reconciliationSettings>>;
