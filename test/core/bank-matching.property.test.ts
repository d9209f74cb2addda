// Property (issue 43): for random books and random bank statements imported over them, the automatic matching
// (src/core/bankMatching.ts, REFERENCE, then AMOUNT_DATE, then SUM) never matches an entry twice, never matches across
// sides, currencies or accounts, and every MATCHED line's entries add up to its amount; an UNMATCHED line has none.
// In process: one ledger on a temporary SQLite file, fresh accounts for every run (matching is per account), and the
// store's own check (`ledger db check`) of the bank tables at the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { account, newKey, openLedger, type Harness } from './ledger-harness.js';
import { checkProperty } from '../helpers/property.js';
import { checkLedger } from '../../src/store/tools/check.js';
import { join } from 'node:path';

type Currency = 'USD' | 'EUR';
type Side = 'DEBIT' | 'CREDIT';

/** The bank accounts of a run: two in USD (so that one posting can touch both), one in EUR. */
const BANKS: ReadonlyArray<{ currency: Currency }> = [{ currency: 'USD' }, { currency: 'USD' }, { currency: 'EUR' }];
/** A small pool of references, so that postings and lines share them: REFERENCE and SUM both happen. */
const REFERENCES = ['INV-1', 'INV-2', 'PAYOUT-7', 'X'] as const;
/** Amounts that recur, so that a line's amount often meets an entry's (AMOUNT_DATE, and its ambiguous case). */
const COMMON_CENTS = [500, 1000, 2550, 4200];

interface Posting {
  bank: number;
  /** The bank account's side; the other line is on the other side. */
  side: Side;
  cents: number;
  reference: string | null;
  /** The other line on the other USD bank (a transaction touching two bank accounts), else on revenue. */
  toOtherBank: boolean;
  /** The other line carries the same reference (an entry the line must not match: it is on another account or side). */
  referenceOnBoth: boolean;
  /** Hours the clock moves before this posting. */
  hours: number;
}

type LineSpec =
  /** A posted amount of the statement's account (or of any posting when there is none), mostly on its own side. */
  | { kind: 'posted'; pick: number; flip: boolean; reference: 'same' | 'none' | (typeof REFERENCES)[number]; day: number }
  /**
   * The sum of the account's entries of one reference on one side (the `pick`-th such group of two or more, else of a
   * reference and direction of the pool): what SUM matches, unless a line before took one of them.
   */
  | { kind: 'sum'; pick: number; reference: (typeof REFERENCES)[number]; direction: 'IN' | 'OUT'; day: number }
  | { kind: 'random'; cents: number; direction: 'IN' | 'OUT'; reference: (typeof REFERENCES)[number] | null; day: number };

interface Run {
  postings: Posting[];
  statements: Array<{ bank: number; lines: LineSpec[] }>;
}

const cents = fc.oneof(fc.constantFrom(...COMMON_CENTS), fc.integer({ min: 1, max: 20_000 }));
const reference = fc.constantFrom(...REFERENCES);
const direction = fc.constantFrom('IN' as const, 'OUT' as const);
/** Days from the run's start: within the AMOUNT_DATE window of the postings (3 days) or outside it. */
const day = fc.integer({ min: -2, max: 8 });

const postingArb: fc.Arbitrary<Posting> = fc.record({
  bank: fc.integer({ min: 0, max: BANKS.length - 1 }),
  side: fc.constantFrom('DEBIT' as const, 'CREDIT' as const),
  cents,
  reference: fc.option(reference, { nil: null, freq: 3 }),
  toOtherBank: fc.boolean(),
  referenceOnBoth: fc.boolean(),
  hours: fc.integer({ min: 0, max: 48 }),
});

const lineArb: fc.Arbitrary<LineSpec> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('posted' as const),
      pick: fc.nat(),
      // One in five on the other side: a line that must not match the entry it was drawn from.
      flip: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
      reference: fc.constantFrom('same' as const, 'same' as const, 'none' as const, ...REFERENCES),
      day,
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('sum' as const), pick: fc.nat(), reference, direction, day }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('random' as const), cents, direction, reference: fc.option(reference, { nil: null }), day }) },
);

const runArb: fc.Arbitrary<Run> = fc.record({
  postings: fc.array(postingArb, { minLength: 2, maxLength: 12 }),
  statements: fc.array(fc.record({ bank: fc.integer({ min: 0, max: BANKS.length - 1 }), lines: fc.array(lineArb, { minLength: 1, maxLength: 8 }) }), { minLength: 1, maxLength: 2 }),
});

/** A run that meets each rule once, run first whatever the seed: 100.00 by REFERENCE, 77.31 by AMOUNT_DATE, 30 + 12.50 by SUM. */
const EVERY_RULE: Run = {
  postings: [
    { bank: 0, side: 'DEBIT', cents: 10_000, reference: 'INV-1', toOtherBank: false, referenceOnBoth: false, hours: 0 },
    { bank: 0, side: 'DEBIT', cents: 7731, reference: null, toOtherBank: true, referenceOnBoth: false, hours: 1 },
    { bank: 0, side: 'CREDIT', cents: 3000, reference: 'PAYOUT-7', toOtherBank: false, referenceOnBoth: true, hours: 1 },
    { bank: 0, side: 'CREDIT', cents: 1250, reference: 'PAYOUT-7', toOtherBank: false, referenceOnBoth: false, hours: 1 },
  ],
  statements: [
    {
      bank: 0,
      lines: [
        { kind: 'posted', pick: 0, flip: false, reference: 'same', day: 0 },
        { kind: 'posted', pick: 1, flip: false, reference: 'none', day: 0 },
        { kind: 'sum', pick: 0, reference: 'X', direction: 'IN', day: 0 },
        { kind: 'random', cents: 999, direction: 'OUT', reference: 'INV-1', day: 0 },
      ],
    },
  ],
};

const decimal = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
const other = (side: Side): Side => (side === 'DEBIT' ? 'CREDIT' : 'DEBIT');
const sideOf = (d: 'IN' | 'OUT'): Side => (d === 'IN' ? 'DEBIT' : 'CREDIT');
const DAY_MS = 86_400_000;
/** An entry's amount in its view (a JSON number of at most two decimals) in cents. */
const centsOf = (amount: number) => Math.round(amount * 100);

interface BookEntry {
  entryId: string;
  accountId: string;
  side: Side;
  currency: string;
  cents: number;
  reference: string | null;
  createdAt: string;
}

interface BankLine {
  cents: number;
  direction: 'IN' | 'OUT';
  reference: string | null;
  bookingDate: string;
}

type Expected = { rule: 'REFERENCE' | 'AMOUNT_DATE' | 'SUM'; entryIds: string[] } | { rule: null; candidates: string[] };

const oldest = (a: BookEntry, b: BookEntry) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.entryId < b.entryId ? -1 : 1);

/**
 * The rules as issue 43 words them, over the account's entries, line after line in the file's order (what a line
 * matched is taken): the model the store's answers must agree with, line for line.
 */
function expectedMatches(own: readonly BookEntry[], lines: readonly BankLine[], taken: Set<string>): Expected[] {
  return lines.map((line) => {
    const free = own.filter((e) => e.side === sideOf(line.direction) && !taken.has(e.entryId)).sort(oldest);
    const referenced = line.reference === null ? [] : free.filter((e) => e.reference === line.reference);
    const take = (rule: 'REFERENCE' | 'AMOUNT_DATE' | 'SUM', entries: BookEntry[]): Expected => {
      for (const e of entries) taken.add(e.entryId);
      return { rule, entryIds: entries.map((e) => e.entryId) };
    };
    const sameAmount = referenced.find((e) => e.cents === line.cents);
    if (sameAmount) return take('REFERENCE', [sameAmount]);
    const day = Date.parse(`${line.bookingDate}T00:00:00.000Z`);
    const from = new Date(day - 3 * DAY_MS).toISOString();
    const to = new Date(day + 4 * DAY_MS - 1).toISOString();
    const inWindow = free.filter((e) => e.cents === line.cents && e.createdAt >= from && e.createdAt <= to);
    if (inWindow.length === 1) return take('AMOUNT_DATE', inWindow);
    if (referenced.length >= 2 && referenced.length <= 100 && referenced.reduce((sum, e) => sum + e.cents, 0) === line.cents) return take('SUM', referenced);
    return { rule: null, candidates: inWindow.slice(0, 10).map((e) => e.entryId) };
  });
}

describe('automatic bank matching (property)', () => {
  let h: Harness;
  let run = 0;
  const rules = new Map<string, number>();
  /** Every entry matched in any run: none twice, across statements and runs. */
  const everMatched = new Set<string>();

  beforeAll(async () => {
    h = await openLedger();
  });
  afterAll(async () => h?.close());

  /** Every entry of an account, as the ledger lists them. */
  const entriesOf = async (accountId: string): Promise<BookEntry[]> => {
    const listed = await h.ledger.entries.list(h.tenantId, accountId, { limit: 200 });
    expect(listed.nextCursor).toBeNull();
    const views = JSON.parse(listed.entries.text) as Array<{ entryId: string; type: Side; monetary: { amount: number; currency: string; bankReference: string | null }; createdAt: string }>;
    return views.map((v) => ({ entryId: v.entryId, accountId, side: v.type, currency: v.monetary.currency, cents: centsOf(v.monetary.amount), reference: v.monetary.bankReference, createdAt: v.createdAt }));
  };

  /** Posts DEBITs of the bank account against revenue, a minute apart: the entry ids, oldest first. */
  const postDebits = async (bank: string, revenue: string, postings: Array<{ cents: number; reference: string }>): Promise<string[]> => {
    for (const p of postings) {
      h.clock.advance(60_000);
      const line = (accountId: string, entryType: Side) => ({ accountId, entryType, monetaryEntry: { type: 'FIAT' as const, amount: decimal(p.cents), currency: 'USD' as const, rail: 'ACH' as const, bankReference: p.reference } });
      await h.ledger.transactions.post(h.tenantId, h.actor, newKey(), { lines: [line(bank, 'DEBIT'), line(revenue, 'CREDIT')] });
    }
    return (await entriesOf(bank)).sort(oldest).map((e) => e.entryId);
  };

  /** Imports CSV lines (`bookingDate` today) into the bank account: its lines as the rules left them. */
  const importLines = async (bank: string, rows: Array<{ cents: number; reference: string }>) => {
    const day = new Date(h.clock.ms).toISOString().slice(0, 10);
    const csv = `bookingDate,amount,reference\n${rows.map((r) => `${day},${decimal(r.cents)},${r.reference}`).join('\n')}\n`;
    const imported = await h.ledger.bankStatements.import(h.tenantId, h.actor, bank, { format: 'CSV', bytes: Buffer.from(csv) }, {});
    expect(imported.status).toBe(201);
    const statementId = (JSON.parse(imported.body) as { statementId: string }).statementId;
    return (await h.ledger.bankStatements.lines(h.tenantId, statementId, { limit: 200 })).items.map((l) => ({ rule: l.matchRule, entryIds: l.matchedEntryIds, candidates: l.candidates }));
  };

  it('never matches an entry twice, nor across sides, currencies or accounts; a MATCHED line\'s entries add up to it', async () => {
    await checkProperty(
      fc.asyncProperty(runArb, async ({ postings, statements }) => {
        run++;
        const banks = [];
        for (const [i, b] of BANKS.entries()) banks.push(await account(h, { currency: b.currency, type: 'ASSET', name: `bank-${run}-${i}` }));
        const revenue = { USD: await account(h, { currency: 'USD', type: 'REVENUE', name: `rev-usd-${run}` }), EUR: await account(h, { currency: 'EUR', type: 'REVENUE', name: `rev-eur-${run}` }) };
        const start = h.clock.ms;

        for (const p of postings) {
          h.clock.advance(p.hours * 3_600_000);
          const currency = BANKS[p.bank]!.currency;
          const counter = p.toOtherBank && currency === 'USD' ? banks[p.bank === 0 ? 1 : 0]! : revenue[currency];
          const line = (accountId: string, entryType: Side, bankReference: string | null) => ({
            accountId,
            entryType,
            monetaryEntry: { type: 'FIAT' as const, amount: decimal(p.cents), currency, rail: 'ACH' as const, bankReference },
          });
          await h.ledger.transactions.post(h.tenantId, h.actor, newKey(), {
            lines: [line(banks[p.bank]!, p.side, p.reference), line(counter, other(p.side), p.referenceOnBoth ? p.reference : null)],
          });
        }

        const books = new Map<string, BookEntry>();
        for (const accountId of [...banks, revenue.USD, revenue.EUR]) for (const e of await entriesOf(accountId)) books.set(e.entryId, e);

        for (const [s, statement] of statements.entries()) {
          const bank = banks[statement.bank]!;
          const own = [...books.values()].filter((e) => e.accountId === bank);
          const posted = postings.filter((p) => p.bank === statement.bank);
          // The account's references with two entries or more on one side.
          const sizes = new Map<string, { reference: string; side: Side; n: number }>();
          for (const e of own) {
            if (e.reference === null) continue;
            const group = sizes.get(`${e.reference}|${e.side}`) ?? { reference: e.reference, side: e.side, n: 0 };
            group.n++;
            sizes.set(`${e.reference}|${e.side}`, group);
          }
          const groups = [...sizes.values()].filter((g) => g.n >= 2);
          const bankLines = statement.lines.map((spec): BankLine => {
            let amount: number;
            let dir: 'IN' | 'OUT';
            let ref: string | null;
            if (spec.kind === 'posted') {
              const p = posted.length > 0 ? posted[spec.pick % posted.length]! : postings[spec.pick % postings.length]!;
              amount = p.cents;
              dir = (spec.flip ? other(p.side) : p.side) === 'DEBIT' ? 'IN' : 'OUT';
              ref = spec.reference === 'same' ? p.reference : spec.reference === 'none' ? null : spec.reference;
            } else if (spec.kind === 'sum') {
              const group = groups.length > 0 ? groups[spec.pick % groups.length]! : { reference: spec.reference, side: sideOf(spec.direction) };
              amount = own.filter((e) => e.side === group.side && e.reference === group.reference).reduce((sum, e) => sum + e.cents, 0) || 1;
              dir = group.side === 'DEBIT' ? 'IN' : 'OUT';
              ref = group.reference;
            } else {
              amount = spec.cents;
              dir = spec.direction;
              ref = spec.reference;
            }
            return { cents: amount, direction: dir, reference: ref, bookingDate: new Date(start + spec.day * DAY_MS).toISOString().slice(0, 10) };
          });
          const expected = expectedMatches(own, bankLines, new Set(everMatched));
          const rows = bankLines.map((l, i) => `${l.bookingDate},${l.direction === 'OUT' ? '-' : ''}${decimal(l.cents)},${l.reference ?? ''},L-${run}-${s}-${i}`);
          const bytes = Buffer.from(`bookingDate,amount,reference,lineId\n${rows.join('\n')}\n`);
          const imported = await h.ledger.bankStatements.import(h.tenantId, h.actor, bank, { format: 'CSV', bytes }, {});
          expect(imported.status).toBe(201);
          const statementId = (JSON.parse(imported.body) as { statementId: string }).statementId;

          const lines = (await h.ledger.bankStatements.lines(h.tenantId, statementId, { limit: 200 })).items;
          expect(lines).toHaveLength(rows.length);
          const summary = (await h.ledger.bankStatements.get(h.tenantId, statementId)).summary;
          expect(summary.matched).toBe(lines.filter((l) => l.status === 'MATCHED').length);
          // Line for line what the rules, as worded, decide.
          expect(
            lines.map((l) => (l.status === 'MATCHED' ? { rule: l.matchRule, entryIds: l.matchedEntryIds } : { rule: null, candidates: [...l.candidates].sort() })),
            'the lines against the rules as worded',
          ).toEqual(expected.map((e) => (e.rule === null ? { rule: null, candidates: [...e.candidates].sort() } : e)));
          for (const line of lines) {
            const lineCents = centsOf(Number(String(line.amount)));
            if (line.status !== 'MATCHED') {
              expect(line.status).toBe('UNMATCHED');
              expect(line.matchedEntryIds, `line ${line.index}`).toEqual([]);
              continue;
            }
            rules.set(String(line.matchRule), (rules.get(String(line.matchRule)) ?? 0) + 1);
            expect(line.matchedEntryIds.length, `line ${line.index}`).toBeGreaterThan(0);
            let total = 0;
            for (const id of line.matchedEntryIds) {
              expect(everMatched.has(id), `entry ${id} matched twice`).toBe(false);
              everMatched.add(id);
              const entry = books.get(id);
              expect(entry, `entry ${id} of line ${line.index}`).toBeDefined();
              expect(entry!.accountId, `the account of entry ${id}`).toBe(bank);
              expect(entry!.currency, `the currency of entry ${id}`).toBe(line.currency);
              expect(entry!.side, `the side of entry ${id}, line ${line.direction}`).toBe(sideOf(line.direction));
              total += entry!.cents;
            }
            expect(total, `the sum of line ${line.index}'s entries`).toBe(lineCents);
            if (line.matchRule !== 'SUM') expect(line.matchedEntryIds).toHaveLength(1);
          }
        }
      }),
      { numRuns: 25, examples: [[EVERY_RULE]] },
    );
    // The runs met every rule (EVERY_RULE, run first, meets each; the small pools of references and amounts, more).
    console.log(`rules matched: ${JSON.stringify(Object.fromEntries(rules))}, entries matched ${everMatched.size}`);
    for (const rule of ['REFERENCE', 'AMOUNT_DATE', 'SUM']) expect(rules.get(rule) ?? 0, rule).toBeGreaterThan(0);

    // What `ledger db check` proves of the same tables agrees.
    const report = await checkLedger(join(h.dir, 'ledger.db'));
    const bank = report.results.filter((r) => r.kind.startsWith('bank '));
    expect(bank.map((r) => [r.kind, r.problems, r.first])).toEqual([
      ['bank statements', 0, null],
      ['bank statement lines', 0, null],
      ['bank matches', 0, null],
      ['bank line matches', 0, null],
    ]);
    expect(bank.find((r) => r.kind === 'bank matches')!.checked).toBe(everMatched.size);
  });

  // A part's reads go at once, before its first line is decided; a read cut at its limit (11 entries in a window,
  // 101 of a reference) whose entries the part's earlier lines took reads again, and the rules see what lay past it.
  it('a line whose cut read lost entries to the lines before it in the same part reads again', async () => {
    const bank = await account(h, { currency: 'USD', type: 'ASSET', name: 'bank-cut-window' });
    const revenue = await account(h, { currency: 'USD', type: 'REVENUE', name: 'rev-cut-window' });
    const e = await postDebits(bank, revenue, Array.from({ length: 13 }, (_, i) => ({ cents: 1000, reference: `W-${i}` })));
    const lines = await importLines(bank, [
      ...Array.from({ length: 11 }, (_, i) => ({ cents: 1000, reference: `W-${i}` })),
      { cents: 1000, reference: '' },
      { cents: 1000, reference: 'W-12' },
      { cents: 1000, reference: '' },
      { cents: 1000, reference: '' },
    ]);
    expect(lines.slice(0, 11)).toEqual(e.slice(0, 11).map((id) => ({ rule: 'REFERENCE', entryIds: [id], candidates: [] })));
    expect(lines.slice(11)).toEqual([
      { rule: null, entryIds: [], candidates: [e[11], e[12]] },
      { rule: 'REFERENCE', entryIds: [e[12]], candidates: [] },
      { rule: 'AMOUNT_DATE', entryIds: [e[11]], candidates: [] },
      { rule: null, entryIds: [], candidates: [] },
    ]);

    const batchBank = await account(h, { currency: 'USD', type: 'ASSET', name: 'bank-cut-reference' });
    const batchRevenue = await account(h, { currency: 'USD', type: 'REVENUE', name: 'rev-cut-reference' });
    const batch = await postDebits(batchBank, batchRevenue, Array.from({ length: 101 }, () => ({ cents: 100, reference: 'BATCH' })));
    // 101 entries of one reference are too many for SUM; once the first line took one, the 100 left add up to the second.
    expect(await importLines(batchBank, [{ cents: 100, reference: 'BATCH' }, { cents: 10_000, reference: 'BATCH' }])).toEqual([
      { rule: 'REFERENCE', entryIds: [batch[0]], candidates: [] },
      { rule: 'SUM', entryIds: batch.slice(1), candidates: [] },
    ]);
  });
});
