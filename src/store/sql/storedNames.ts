// Names the ledger repeats in a row of every posting (an event's type, an idempotency record's endpoint), stored as
// one character and read back as the name (issue 33); a name without a character is stored as it is.
import type { EventType } from '../../core/enums.js';
import { AGENT_EXECUTE_ENDPOINT } from '../../core/commands/agents.js';
import { CREATE_HOLD_ENDPOINT } from '../../core/commands/holds.js';
import { POST_TRANSACTION_ENDPOINT } from '../../core/commands/transactions.js';
import { REGISTER_SETTLEMENT_ENDPOINT } from '../../core/commands/settlements.js';
import { REVERSE_TRANSACTION_ENDPOINT } from '../../core/commands/reversals.js';

export class StoredNames {
  private readonly byStored: ReadonlyMap<string, string>;

  /** Each name's character. A character, once released, keeps its name: a new name takes a new character. */
  constructor(private readonly byName: ReadonlyMap<string, string>) {
    this.byStored = new Map([...byName].map(([name, stored]) => [stored, name]));
  }

  stored(name: string): string {
    return this.byName.get(name) ?? name;
  }

  name(stored: string): string {
    return this.byStored.get(stored) ?? stored;
  }

  /** Every name with its character, for the migration that stored them so. */
  pairs(): ReadonlyArray<readonly [name: string, stored: string]> {
    return [...this.byName];
  }
}

const EVENT_TYPE_CHARACTERS: Record<EventType, string> = {
  'transaction.committed': 'c',
  'transaction.reversed': 'r',
  'account.updated': 'a',
  'settlement.matched': 'm',
  'settlement.unmatched': 'u',
  'hold.created': 'h',
  'hold.captured': 'p',
  'hold.voided': 'v',
  'hold.expired': 'x',
  'bank_statement.imported': 'b',
  'bank_statement.reconciled': 'B',
  'bank_statement.deleted': 'D',
  'bank_statement_line.matched': 'l',
  'bank_statement_line.unmatched': 'n',
  'bank_statement_line.ignored': 'g',
};

/** The outbox's event types (every type of core/webhook.ts has one: the record above is typed by them). */
export const EVENT_TYPES = new StoredNames(new Map(Object.entries(EVENT_TYPE_CHARACTERS)));

/** The idempotency records' endpoints. */
export const IDEMPOTENT_ENDPOINTS = new StoredNames(
  new Map([
    [POST_TRANSACTION_ENDPOINT, 't'],
    [CREATE_HOLD_ENDPOINT, 'h'],
    [REVERSE_TRANSACTION_ENDPOINT, 'r'],
    [REGISTER_SETTLEMENT_ENDPOINT, 's'],
    [AGENT_EXECUTE_ENDPOINT, 'a'],
  ]),
);
