// Property: whatever sequence of valid and invalid postings arrives, every balance the server reports
// (current, per token, and as of an earlier instant) is exactly the signed sum of the entries it lists (every other
// valid posting sent as an item of a batch),
// and a refused request changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LosslessNumber, parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import { makeAccount, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError } from '../helpers/expect.js';
import { checkProperty } from '../helpers/property.js';
import { expectTrialBalance, type Books } from '../helpers/trial-balance.js';

type Asset = 'USD' | 'BRL' | 'USDC' | 'USDT' | 'PYUSD' | 'BRZ';
type Token = 'USDC' | 'USDT' | 'PYUSD' | 'BRZ';
const SCALE: Record<Asset | 'EUR', number> = { USD: 2, BRL: 2, EUR: 2, USDC: 6, USDT: 6, PYUSD: 6, BRZ: 18 };
const TOKENS: Token[] = ['BRZ', 'PYUSD', 'USDC', 'USDT'];
const CHAINS = ['EVM', 'SOLANA', 'TRON'] as const;

/** The accounts of one run: two per fiat currency, one on each normal side. */
const ACCOUNTS = [
  { currency: 'USD', type: 'ASSET', normal: 'DEBIT' },
  { currency: 'USD', type: 'LIABILITY', normal: 'CREDIT' },
  { currency: 'BRL', type: 'EXPENSE', normal: 'DEBIT' },
  { currency: 'BRL', type: 'REVENUE', normal: 'CREDIT' },
] as const;
const accountsOf = (asset: Asset): number[] =>
  asset === 'USD' ? [0, 1] : asset === 'BRL' ? [2, 3] : [0, 1, 2, 3];

// ---- exact decimal text <-> minor units, with BigInt only ----

function toMinor(text: string, scale: number): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) throw new Error(`not a plain decimal: ${text}`);
  const fraction = m[3] ?? '';
  if (fraction.length > scale) throw new Error(`${text} has more than ${scale} decimals`);
  const value = BigInt(m[2]! + fraction.padEnd(scale, '0'));
  return m[1] ? -value : value;
}

function toText(minor: bigint, scale: number): string {
  const digits = minor.toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** A number in a response, as the exact digits the server wrote. */
const numberText = (value: unknown): string => {
  if (!(value instanceof LosslessNumber)) throw new Error(`expected a JSON number, got ${JSON.stringify(value)}`);
  return value.value;
};

// ---- generated postings ----

type AmountStyle = 'string' | 'number' | 'padded';
interface Line {
  account: number;
  side: 'DEBIT' | 'CREDIT';
  asset: Asset;
  minor: bigint;
  style: AmountStyle;
  chain: (typeof CHAINS)[number];
}
type Fault = 'none' | 'unbalanced' | 'unknownAccount' | 'tooManyDecimals' | 'wrongCurrency';
interface Step {
  groups: Line[][];
  fault: Fault;
  faultAt: number;
  unknownId: string;
}

const styleArb = fc.constantFrom<AmountStyle>('string', 'number', 'padded');
const chainArb = fc.constantFrom(...CHAINS);

const minorArb = (asset: Asset) => {
  const max = 10n ** BigInt(15 + SCALE[asset]); // 10^15 whole units
  return fc.oneof({ weight: 3, arbitrary: fc.bigInt({ min: 1n, max: 100_000n }) }, { weight: 1, arbitrary: fc.bigInt({ min: 1n, max }) });
};

/** One asset's lines: 1 to 3 debits, and credits that add up to exactly the same total. */
const groupArb: fc.Arbitrary<Line[]> = fc.constantFrom<Asset>('USD', 'BRL', 'USDC', 'USDT', 'PYUSD', 'BRZ').chain((asset) => {
  const accounts = accountsOf(asset);
  const leg = fc.record({ account: fc.constantFrom(...accounts), style: styleArb, chain: chainArb });
  return fc
    .record({
      debits: fc.array(fc.record({ leg, minor: minorArb(asset) }), { minLength: 1, maxLength: 3 }),
      credits: fc.array(leg, { minLength: 1, maxLength: 2 }),
      split: fc.bigInt({ min: 0n, max: 10n ** 40n }),
    })
    .map(({ debits, credits, split }) => {
      const total = debits.reduce((s, d) => s + d.minor, 0n);
      const parts = credits.length === 2 && total >= 2n ? [1n + (split % (total - 1n))] : [];
      parts.push(total - parts.reduce((s, p) => s + p, 0n));
      return [
        ...debits.map((d) => ({ ...d.leg, side: 'DEBIT' as const, asset, minor: d.minor })),
        ...parts.map((minor, i) => ({ ...credits[i]!, side: 'CREDIT' as const, asset, minor })),
      ];
    });
});

const stepArb: fc.Arbitrary<Step> = fc.record({
  groups: fc.array(groupArb, { minLength: 1, maxLength: 2 }),
  fault: fc.oneof(
    { weight: 5, arbitrary: fc.constant<Fault>('none') },
    { weight: 4, arbitrary: fc.constantFrom<Fault>('unbalanced', 'unknownAccount', 'tooManyDecimals', 'wrongCurrency') },
  ),
  faultAt: fc.nat(),
  unknownId: fc.uuid({ version: 4 }),
});

const expectedRefusal: Record<Exclude<Fault, 'none'>, { status: number; code: string }> = {
  unbalanced: { status: 422, code: 'UNBALANCED' },
  unknownAccount: { status: 422, code: 'ACCOUNT_NOT_FOUND' },
  tooManyDecimals: { status: 400, code: 'VALIDATION_FAILED' },
  wrongCurrency: { status: 422, code: 'CURRENCY_MISMATCH' },
};

function amountJson(line: Line, extraDigit: boolean): string | LosslessNumber {
  const scale = SCALE[line.asset];
  let text = toText(line.minor, scale);
  if (extraDigit) {
    // Every decimal place the asset has, and one more that is not zero.
    const [whole, fraction = ''] = text.split('.');
    text = `${whole}.${fraction.padEnd(scale, '0')}7`;
  } else if (line.style === 'padded' && (text.split('.')[1] ?? '').length < scale) {
    // A trailing zero within the asset's scale: the same amount, written differently.
    text = `${text}${text.includes('.') ? '' : '.'}0`;
  }
  return line.style === 'number' ? new LosslessNumber(text) : text;
}

/** The request body text and the lines that would be posted if it were accepted. */
function buildRequest(step: Step, ids: string[]): { text: string; lines: Line[] } {
  const lines = step.groups.flat().map((l) => ({ ...l }));
  const at = step.faultAt % lines.length;
  if (step.fault === 'unbalanced') lines[at]!.minor += 1n;
  const json = lines.map((line, i) => ({
    accountId: step.fault === 'unknownAccount' && i === at ? step.unknownId : ids[line.account]!,
    entryType: line.side,
    monetaryEntry:
      line.asset === 'USD' || line.asset === 'BRL'
        ? { type: 'FIAT', amount: amountJson(line, step.fault === 'tooManyDecimals' && i === at), currency: line.asset, rail: 'PIX' }
        : {
            type: 'ONCHAIN',
            amount: amountJson(line, step.fault === 'tooManyDecimals' && i === at),
            token: line.asset,
            chainId: line.chain,
            txHash: `0x${i}`,
            blockNumber: new LosslessNumber(String(i + 1)),
            walletAddress: 'wallet',
            tokenContract: 'contract',
          },
  }));
  if (step.fault === 'wrongCurrency') {
    // A balanced EUR pair on the two USD accounts.
    for (const side of ['DEBIT', 'CREDIT'] as const) {
      json.push({ accountId: ids[0]!, entryType: side, monetaryEntry: { type: 'FIAT', amount: '1.25', currency: 'EUR', rail: 'SEPA' } as never });
    }
  }
  return { text: stringifyLossless({ lines: json, metadata: { fault: step.fault } }) ?? '', lines };
}

// ---- what the server says ----

interface ListedEntry {
  side: 'DEBIT' | 'CREDIT';
  asset: Asset;
  minor: bigint;
  createdAt: string;
}

async function listEntries(c: Client, accountId: string): Promise<ListedEntry[]> {
  const all: ListedEntry[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const res = await c.get(`/api/v1/accounts/${accountId}/entries?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, res.text).toBe(200);
    const body = parseLossless(res.text) as { entries: Array<Record<string, any>>; nextCursor: string | null };
    for (const e of body.entries) {
      const m = e.monetary as Record<string, unknown>;
      const asset = (m.type === 'FIAT' ? m.currency : m.token) as Asset;
      all.push({ side: e.type, asset, minor: toMinor(numberText(m.amount), SCALE[asset]), createdAt: e.createdAt });
    }
    cursor = body.nextCursor;
    if (cursor === null) return all;
  }
  throw new Error('entries listing did not end');
}

interface Balance {
  amount: bigint;
  onChain: Map<string, bigint>;
}

async function readBalance(c: Client, accountId: string, currency: Asset, asOf?: string): Promise<Balance> {
  const res = await c.get(`/api/v1/accounts/${accountId}/balance${asOf ? `?asOf=${encodeURIComponent(asOf)}` : ''}`);
  expect(res.status, res.text).toBe(200);
  const body = parseLossless(res.text) as { amount: unknown; onChainBalances: Array<{ token: Token; amount: unknown }> };
  const tokens = body.onChainBalances.map((b) => b.token);
  expect(tokens, 'onChainBalances sorted by token').toEqual([...tokens].sort());
  return {
    amount: toMinor(numberText(body.amount), SCALE[currency]),
    onChain: new Map(body.onChainBalances.map((b) => [b.token, toMinor(numberText(b.amount), SCALE[b.token])])),
  };
}

/** Sums on the account's normal side; tokens appear once they have an entry. */
function expectedBalance(entries: ListedEntry[], normal: 'DEBIT' | 'CREDIT', currency: Asset): Balance {
  const signed = (e: ListedEntry) => (e.side === normal ? e.minor : -e.minor);
  let amount = 0n;
  const onChain = new Map<string, bigint>();
  for (const e of entries) {
    if (e.asset === currency) amount += signed(e);
    else {
      expect(SCALE[e.asset] === 2, `fiat entry in ${e.asset} on a ${currency} account`).toBe(false);
      onChain.set(e.asset, (onChain.get(e.asset) ?? 0n) + signed(e));
    }
  }
  return { amount, onChain: new Map([...onChain].sort(([a], [b]) => (a < b ? -1 : 1))) };
}

describe('property: balances are the signed sums of the listed entries', () => {
  let c: Client;
  const t = useServerWithAccounts();
  beforeAll(() => {
    c = t.client;
  });

  it('holds after every step of random valid and invalid postings; the trial balance is the model\'s after each run', async () => {
    let keyNo = 0;
    let run = 0;
    /** Every account of every run, with its model: the tenant's books. */
    const books: Books = new Map();
    await checkProperty(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 8 }), fc.nat(), async (steps, pick) => {
        run++;
        const ids: string[] = [];
        for (const a of ACCOUNTS) ids.push(await makeAccount(c, { name: `p${run}-${a.type}`, currency: a.currency, type: a.type }));
        /** Model: per account and asset, debits minus credits. */
        const model = ids.map(() => new Map<Asset, bigint>());
        ids.forEach((id, i) => books.set(id, { type: ACCOUNTS[i]!.type, raw: model[i]! }));
        let counts = ids.map(() => 0);

        for (const step of steps) {
          const { text, lines } = buildRequest(step, ids);
          const key = `prop-${process.pid}-${keyNo++}`;
          // Every other valid posting goes through the batch endpoint, as an item of its own: the same money moves.
          const viaBatch = step.fault === 'none' && keyNo % 2 === 0;
          const res = viaBatch
            ? await c.request('POST', '/api/v1/transactions/batch', { rawBody: `{"transactions":[{"idempotencyKey":${JSON.stringify(key)},${text.slice(1)}]}` })
            : await c.request('POST', '/api/v1/transactions', { rawBody: text, headers: { 'idempotency-key': key } });
          if (step.fault === 'none') {
            expect(viaBatch ? [res.status, res.body.results[0].status] : res.status, res.text).toEqual(viaBatch ? [200, 201] : 201);
            for (const l of lines) {
              const m = model[l.account]!;
              m.set(l.asset, (m.get(l.asset) ?? 0n) + (l.side === 'DEBIT' ? l.minor : -l.minor));
            }
          } else {
            const want = expectedRefusal[step.fault];
            expectError({ ...res, text: `${step.fault}: ${res.text}` }, want.status, want.code);
          }

          const newCounts: number[] = [];
          for (const [i, a] of ACCOUNTS.entries()) {
            const entries = await listEntries(c, ids[i]!);
            newCounts.push(entries.length);
            const added = step.fault === 'none' ? lines.filter((l) => l.account === i).length : 0;
            expect(entries.length, `entry count of account ${i} after ${step.fault}`).toBe(counts[i]! + added);

            // Newest first, createdAt never increasing down the list.
            for (let k = 1; k < entries.length; k++) expect(entries[k - 1]!.createdAt >= entries[k]!.createdAt).toBe(true);

            const want = expectedBalance(entries, a.normal, a.currency);
            const got = await readBalance(c, ids[i]!, a.currency);
            expect(got.amount, `amount of account ${i}`).toBe(want.amount);
            expect([...got.onChain], `onChainBalances of account ${i}`).toEqual([...want.onChain]);

            // The model agrees too (raw debits minus credits turned to the normal side).
            const sign = a.normal === 'DEBIT' ? 1n : -1n;
            expect(want.amount).toBe(sign * (model[i]!.get(a.currency) ?? 0n));
            for (const token of TOKENS) {
              if (model[i]!.has(token)) expect(want.onChain.get(token), token).toBe(sign * model[i]!.get(token)!);
              else expect(want.onChain.has(token)).toBe(false);
            }

            if (entries.length > 0) {
              const asOf = entries[(pick + k(step)) % entries.length]!.createdAt;
              const past = expectedBalance(entries.filter((e) => e.createdAt <= asOf), a.normal, a.currency);
              const then = await readBalance(c, ids[i]!, a.currency, asOf);
              expect(then.amount, `asOf ${asOf} amount of account ${i}`).toBe(past.amount);
              expect([...then.onChain], `asOf ${asOf} onChainBalances of account ${i}`).toEqual([...past.onChain]);
            }
          }
          counts = newCounts;
        }
        // The tenant's trial balance: every account of every run so far, on its side; debits equal credits.
        await expectTrialBalance(c, books);
      }),
      // No shrinking: each run adds to the server's state, so a shrunk case is not the failing one replayed.
      { numRuns: 25, endOnFailure: true },
    );
  }, 120_000);
});

/** A little variation in which earlier entry each step looks back to. */
const k = (step: Step): number => step.faultAt;
