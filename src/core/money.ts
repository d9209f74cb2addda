// Exact money: amounts are bigint minor units with a fixed scale per asset (core/assets.ts).
// Decimal text from the outside is converted here and nowhere else.
import { Decimal } from 'decimal.js';
import { AMOUNT_WHOLE_DIGITS_MAX } from './limits.js';
import { assert } from './errors.js';
import { JsonNumber } from './json.js';
import { FINEST_SCALE, scaleOf, type Asset } from './assets.js';

export { fiatCurrencies, tokens, scaleOf, isFiat, type FiatCurrency, type Token, type Asset } from './assets.js';
export const chains = ['EVM', 'SOLANA', 'TRON'] as const;
export const rails = ['ACH', 'WIRE', 'PIX', 'SWIFT', 'SEPA'] as const;

export type Chain = (typeof chains)[number];
export type Rail = (typeof rails)[number];

// Enough significant digits for 10^18 whole units at scale 18, with room to spare.
const Exact = Decimal.clone({ precision: 100, rounding: Decimal.ROUND_DOWN, toExpPos: 1000, toExpNeg: -1000 });

export { JsonNumber };

export type AmountInput = string | JsonNumber;

const decimalText = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Decimal places of decimal text as written, after any exponent: "1.50" has 2, "15e-2" has 2, "1.5e3" has 0. */
function writtenPlaces(text: string): number {
  const parts = text.toLowerCase().split('e');
  // Stryker disable next-line StringLiteral: equivalent; split always yields a mantissa, and Number('') is 0 as Number('0') is.
  const [mantissa = '', exponent = '0'] = parts;
  const fraction = mantissa.split('.')[1] ?? '';
  return Math.max(0, fraction.length - Number(exponent));
}

/** Digits with at most a point between digits (no sign, no exponent): how nearly every amount is written. */
const plainDecimal = /^(\d+)(?:\.(\d+))?$/;

/** A scale to parse at, and how a refusal for too many places names it. */
interface Scale {
  places: number;
  /** " for USD", or what the places are measured against. */
  of: string;
}

type Parsed = { ok: true; minor: bigint } | { ok: false; message: string };

/** parseAmount for plain decimal text, with the same checks in the same order, on the digits alone (no Decimal). */
function plainAmount(whole: string, fraction: string, { places: scale, of }: Scale): Parsed {
  const significantWhole = whole.replace(/^0+/, '');
  if (significantWhole === '' && !/[1-9]/.test(fraction)) return { ok: false, message: 'must be greater than zero' };
  if (significantWhole.length > AMOUNT_WHOLE_DIGITS_MAX) return { ok: false, message: `must be below 10^${AMOUNT_WHOLE_DIGITS_MAX} units` };
  if (fraction.length > scale) return { ok: false, message: `has more than ${scale} decimal places${of}` };
  return { ok: true, minor: BigInt(significantWhole + fraction.padEnd(scale, '0')) };
}

/**
 * Parses a positive decimal amount into minor units of the asset.
 * Returns an error sentence instead of throwing, so callers can attach the field path.
 */
export function parseAmount(input: AmountInput, asset: Asset): Parsed {
  return parseAtScale(input, { places: scaleOf(asset), of: ` for ${asset}` });
}

/**
 * An amount given before its asset is known (a hold's capture): everything is checked but the asset's places (later,
 * against the asset), and its value is told as text, so that "2.5" and 2.50 are one request to an Idempotency-Key.
 */
export function amountValue(input: AmountInput): { ok: true; text: string; value: string } | { ok: false; message: string } {
  const parsed = parseAtScale(input, { places: FINEST_SCALE, of: ', more than any asset has' });
  if (!parsed.ok) return parsed;
  return { ok: true, text: typeof input === 'string' ? input : input.text, value: parsed.minor.toString() };
}

function parseAtScale(input: AmountInput, at: Scale): Parsed {
  const text = typeof input === 'string' ? input.trim() : input.text;
  if (typeof input === 'string' && text !== input) return { ok: false, message: 'must not have surrounding spaces' };
  if (!decimalText.test(text) || text.length > 200) return { ok: false, message: 'must be a decimal number' };
  const plain = plainDecimal.exec(text);
  if (plain) return plainAmount(plain[1]!, plain[2] ?? '', at);
  const value = new Exact(text);
  if (!value.isFinite() || value.lte(0)) return { ok: false, message: 'must be greater than zero' };
  // The exponent (digits before the point, less one) is checked before any digit is expanded: 1e100000000 stays cheap.
  if (value.e >= AMOUNT_WHOLE_DIGITS_MAX) return { ok: false, message: `must be below 10^${AMOUNT_WHOLE_DIGITS_MAX} units` };
  const scale = at.places;
  // Places as written count, trailing zeros included: "1.000" is three places, too many for USD.
  if (writtenPlaces(text) > scale) return { ok: false, message: `has more than ${scale} decimal places${at.of}` };
  const minor = value.times(new Exact(10).pow(scale));
  // Stryker disable next-line StringLiteral: the message of an invariant that the checks above make unreachable.
  assert(minor.isInteger(), 'an amount within its scale is a whole number of minor units');
  return { ok: true, minor: BigInt(minor.toFixed(0)) };
}

/** Minor units to canonical decimal text: no exponent, no trailing zeros after the point. */
export function formatMinor(minor: bigint, asset: Asset): string {
  const scale = scaleOf(asset);
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
