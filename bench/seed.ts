// What the bench's seeds share: the ledger opened in process (local writer) on the database a scenario then serves,
// tenants with their keys and accounts, FIAT lines, and writes made a chunk at a time. Each scenario seeds its own
// data on top of these.
import { openLedger, type OpenLedger } from '../src/store/open.js';
import { CLI_ACTOR_ID } from '../src/core/audit.js';
import { JsonNumber } from '../src/core/money.js';
import type { Clock } from '../src/core/time.js';
import type { CreateAccountBody } from '../src/core/schemas.js';

export const actor = { type: 'HUMAN' as const, keyId: CLI_ACTOR_ID };

export type Ledger = OpenLedger['ledger'];

/** An account to make: a name, or a name with its type (ASSET unless said) and metadata; USD. */
export type AccountSpec = string | { name: string; type?: CreateAccountBody['type']; metadata?: Record<string, string> };

export interface SeededTenant {
  tenantId: string;
  rawKey: string;
  /** Its accounts' ids, in the order asked. */
  accounts: string[];
}

/** Opens the ledger on `db` in process (local writer, with `clock` if given), runs `work`, and closes it. */
export async function seed<T>(db: string, work: (opened: OpenLedger) => Promise<T>, clock?: Clock): Promise<T> {
  const opened = await openLedger(db, { writer: 'local', ...(clock ? { clock } : {}) });
  try {
    return await work(opened);
  } finally {
    await opened.close();
  }
}

/** Makes the accounts of a tenant, `concurrency` at a time (one after another by default); answers their ids in order. */
export async function makeAccounts(ledger: Ledger, tenantId: string, specs: readonly AccountSpec[], concurrency = 1): Promise<string[]> {
  const make = async (spec: AccountSpec) => {
    const { name, type = 'ASSET', metadata } = typeof spec === 'string' ? { name: spec } : spec;
    return (await ledger.accounts.create(tenantId, { name, currency: 'USD', type, ...(metadata ? { metadata } : {}) }, actor)).id;
  };
  return inChunks(specs.length, concurrency, (i) => make(specs[i]!));
}

/** A tenant (its key answered) and its accounts, `concurrency` at a time (one after another by default). */
export async function makeTenant(ledger: Ledger, name: string, accounts: readonly AccountSpec[] = [], concurrency = 1): Promise<SeededTenant> {
  const tenant = await ledger.tenants.create(name, actor);
  return { tenantId: tenant.tenantId, rawKey: tenant.apiKey.rawKey, accounts: await makeAccounts(ledger, tenant.tenantId, accounts, concurrency) };
}

/** `count` account names: `${prefix}0`, `${prefix}1`, … */
export const named = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

/** Makes `count` things `size` at a time (a chunk's all at once), calling `done` with each chunk's first index once it is made. */
export async function inChunks<T>(count: number, size: number, make: (i: number) => Promise<T>, done?: (first: number) => void): Promise<T[]> {
  const made: T[] = [];
  for (let n = 0; n < count; n += size) {
    made.push(...(await Promise.all(Array.from({ length: Math.min(size, count - n) }, (_, i) => make(n + i)))));
    done?.(n);
  }
  return made;
}

/** A clock that steps `stepMs` at each reading, from `startMs`. */
export function steppingClock(startMs: number, stepMs: number): Clock {
  let t = startMs;
  return { now: () => new Date((t += stepMs)) };
}

/** A FIAT line in USD, as the ledger takes it in process. */
export const fiatLine = (accountId: string, entryType: 'DEBIT' | 'CREDIT', amount = '1.00') => ({
  accountId,
  entryType,
  monetaryEntry: { type: 'FIAT' as const, amount: new JsonNumber(amount), currency: 'USD' as const, rail: 'ACH' as const },
});
