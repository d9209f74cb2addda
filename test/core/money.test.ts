import { describe, expect, it } from 'vitest';
import { amountValue, formatMinor, JsonNumber, parseAmount, scaleOf, type Asset } from '../../src/core/money.js';
import fc from 'fast-check';
import { checkProperty } from '../helpers/property.js';

const scales: Array<[Asset, number]> = [
  ['BRL', 2],
  ['USD', 2],
  ['MXN', 2],
  ['EUR', 2],
  ['USDC', 6],
  ['USDT', 6],
  ['PYUSD', 6],
  ['BRZ', 18],
];

const minor = (input: string | JsonNumber, asset: Asset): bigint => {
  const r = parseAmount(input, asset);
  if (!r.ok) throw new Error(`expected ${String(input)} to parse for ${asset}: ${r.message}`);
  return r.minor;
};
const refused = (input: string | JsonNumber, asset: Asset): string => {
  const r = parseAmount(input, asset);
  if (r.ok) throw new Error(`expected ${String(input)} to be refused for ${asset}, got ${r.minor}`);
  return r.message;
};

describe('scales per asset', () => {
  it.each(scales)('%s has %i decimal places', (asset, scale) => {
    expect(scaleOf(asset)).toBe(scale);
    expect(minor('1', asset)).toBe(10n ** BigInt(scale));
    // The smallest unit is accepted, one digit smaller is refused.
    expect(minor(`0.${'0'.repeat(scale - 1)}1`, asset)).toBe(1n);
    expect(refused(`0.${'0'.repeat(scale)}1`, asset)).toMatch(/decimal places/);
  });
});

describe('parseAmount inputs', () => {
  it('accepts JSON numbers and decimal strings alike', () => {
    expect(minor(new JsonNumber('10.5'), 'USD')).toBe(1050n);
    expect(minor('10.5', 'USD')).toBe(1050n);
    expect(minor(new JsonNumber('10.50'), 'USD')).toBe(1050n);
    expect(minor('7', 'USDC')).toBe(7_000_000n);
    expect(minor('.5', 'USD')).toBe(50n);
    expect(minor('5.', 'USD')).toBe(500n);
  });

  it('accepts exponent forms', () => {
    expect(minor(new JsonNumber('1e2'), 'USD')).toBe(10_000n);
    expect(minor('1e2', 'USD')).toBe(10_000n);
    expect(minor(new JsonNumber('1.5E-1'), 'USD')).toBe(15n);
    expect(minor('1.5E-1', 'USDC')).toBe(150_000n);
    expect(minor('1E+3', 'BRL')).toBe(100_000n);
    expect(minor('1e-18', 'BRZ')).toBe(1n);
    expect(refused('1e-3', 'USD')).toMatch(/decimal places/);
  });

  it('refuses more decimal places than the asset has, counted as written', () => {
    expect(refused('0.001', 'USD')).toMatch(/more than 2 decimal places for USD/);
    expect(refused(new JsonNumber('1.234'), 'EUR')).toMatch(/decimal places/);
    expect(refused('1.0000001', 'USDT')).toMatch(/more than 6/);
    // The contract counts places as written: trailing zeros past the scale are places too.
    expect(refused('1.000', 'USD')).toMatch(/more than 2 decimal places/);
    expect(minor('1.50', 'USD')).toBe(150n);
    expect(minor('1.5e3', 'USD')).toBe(150_000n);
  });

  it('refuses zero and negative amounts', () => {
    for (const input of ['0', '0.00', '-1', '-0.01', '0e5', '-0']) {
      expect(refused(input, 'USD')).toMatch(/greater than zero/);
    }
    expect(refused(new JsonNumber('0'), 'USDC')).toMatch(/greater than zero/);
    expect(refused(new JsonNumber('-5'), 'BRZ')).toMatch(/greater than zero/);
  });

  it('refuses text that is not a decimal number', () => {
    for (const input of ['', 'abc', '1,5', '1.2.3', 'NaN', 'Infinity', '0x10', '1e', ' 1', '1 ', '$1', '1_000']) {
      expect(parseAmount(input, 'USD').ok, JSON.stringify(input)).toBe(false);
    }
  });

  it('keeps 10^15 units exactly at every scale', () => {
    for (const [asset, scale] of scales) {
      const whole = 10n ** 15n;
      expect(minor('1000000000000000', asset)).toBe(whole * 10n ** BigInt(scale));
      expect(minor(new JsonNumber('1e15'), asset)).toBe(whole * 10n ** BigInt(scale));
      // The largest amount below 10^15 with every decimal place used.
      const text = `999999999999999.${'9'.repeat(scale)}`;
      const expected = whole * 10n ** BigInt(scale) - 1n;
      expect(minor(text, asset)).toBe(expected);
      expect(minor(new JsonNumber(text), asset)).toBe(expected);
      expect(formatMinor(expected, asset)).toBe(text);
    }
  });

  it('refuses amounts too large to keep', () => {
    expect(parseAmount('1e30', 'USD').ok).toBe(false);
    expect(parseAmount('1'.padEnd(40, '0'), 'USD').ok).toBe(false);
  });
});

describe('formatMinor', () => {
  it('round-trips canonical inputs', () => {
    const canonical: Array<[string, Asset]> = [
      ['0.01', 'USD'],
      ['10.5', 'USD'],
      ['10', 'BRL'],
      ['123456789012345.67', 'EUR'],
      ['0.000001', 'USDC'],
      ['1.5', 'USDT'],
      ['42.123456', 'PYUSD'],
      ['0.000000000000000001', 'BRZ'],
      ['1000000000000000', 'BRZ'],
      ['999999999999999.999999999999999999', 'BRZ'],
    ];
    for (const [text, asset] of canonical) {
      expect(formatMinor(minor(text, asset), asset)).toBe(text);
    }
  });

  it('writes canonical text for non-canonical input', () => {
    expect(formatMinor(minor('1.50', 'USD'), 'USD')).toBe('1.5');
    expect(formatMinor(minor('1e2', 'USD'), 'USD')).toBe('100');
    expect(formatMinor(minor('.5', 'USDC'), 'USDC')).toBe('0.5');
  });

  it('formats zero and negative amounts', () => {
    expect(formatMinor(0n, 'USD')).toBe('0');
    expect(formatMinor(0n, 'BRZ')).toBe('0');
    expect(formatMinor(-1n, 'USD')).toBe('-0.01');
    expect(formatMinor(-1050n, 'USD')).toBe('-10.5');
    expect(formatMinor(-100n, 'BRL')).toBe('-1');
    expect(formatMinor(-1n, 'BRZ')).toBe('-0.000000000000000001');
    expect(formatMinor(-(10n ** 33n), 'BRZ')).toBe('-1000000000000000');
  });
});

describe('parseAmount limits', () => {
  it('names surrounding spaces rather than calling the text not a number', () => {
    expect(refused(' 1', 'USD')).toBe('must not have surrounding spaces');
    expect(refused('1\n', 'USD')).toBe('must not have surrounding spaces');
  });

  it('reads decimal text of up to 200 characters, and no longer', () => {
    expect(minor(`${'0'.repeat(199)}1`, 'USD')).toBe(100n);
    expect(refused(`0.${'0'.repeat(198)}1`, 'BRZ')).toBe('must be a decimal number');
    expect(refused(new JsonNumber(`${'0'.repeat(200)}1`), 'USD')).toBe('must be a decimal number');
  });

  it('keeps amounts below 10^18 whole units', () => {
    expect(minor('999999999999999999', 'USD')).toBe(99999999999999999900n);
    expect(refused('1000000000000000000', 'USD')).toBe('must be below 10^18 units');
    expect(refused('1e18', 'USDC')).toBe('must be below 10^18 units');
  });
});

describe('plain decimal text (digits and a point) is read without Decimal, with the same answers', () => {
  // The same value with an exponent of zero goes through Decimal: both readings must agree, refusals included.
  const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^[0-9]{${min},${max}}$`));
  const plainText = fc.oneof(
    digits(1, 22),
    fc.tuple(digits(1, 22), digits(1, 22)).map(([w, f]) => `${w}.${f}`),
    fc.tuple(fc.constantFrom('0', '00', '000'), digits(1, 20)).map(([w, f]) => `${w}.${f}`),
  );
  it('agrees with the Decimal reading for every asset, as a string and as a JSON number', async () => {
    await checkProperty(
      fc.property(plainText, fc.constantFrom(...scales.map(([asset]) => asset)), (text, asset) => {
        expect(parseAmount(text, asset)).toEqual(parseAmount(`${text}e0`, asset));
        expect(parseAmount(new JsonNumber(text), asset)).toEqual(parseAmount(new JsonNumber(`${text}e0`), asset));
      }),
      { numRuns: 2000 },
    );
  });
  it.each([
    ['0', 'must be greater than zero'],
    ['0.00', 'must be greater than zero'],
    ['000.000000000000000000000', 'must be greater than zero'],
    ['1000000000000000000', 'must be below 10^18 units'],
    ['0999999999999999999.99', 999999999999999999_99n],
    ['1.001', 'has more than 2 decimal places for USD'],
    ['1.000', 'has more than 2 decimal places for USD'],
    ['00.01', 1n],
  ] as const)('%s for USD', (text, expected) => {
    if (typeof expected === 'bigint') expect(minor(text, 'USD')).toBe(expected);
    else expect(refused(text, 'USD')).toBe(expected);
  });
});

describe('amountValue: an amount before its asset is known (a hold\'s capture)', () => {
  it('tells one value for every way of writing it, number or string, and keeps the text as given', () => {
    const values = [new JsonNumber('20.5'), '20.50', '20.5', new JsonNumber('2.05e1'), '205e-1', '020.500'].map((a) => amountValue(a));
    for (const v of values) expect(v.ok && v.value).toBe('20500000000000000000');
    expect(amountValue(new JsonNumber('2.05e1'))).toEqual({ ok: true, text: '2.05e1', value: '20500000000000000000' });
    expect(amountValue('20.50')).toMatchObject({ text: '20.50' });
    expect(amountValue('20.51')).not.toEqual(amountValue('20.5'));
  });

  it('checks all but the asset\'s places: up to 18 places pass (BRZ has them), more fit no asset', () => {
    expect(amountValue('0.000000000000000001')).toMatchObject({ ok: true, value: '1' });
    expect(amountValue(new JsonNumber('0.0000000000000000001'))).toEqual({ ok: false, message: 'has more than 18 decimal places, more than any asset has' });
    expect(amountValue(new JsonNumber('0'))).toEqual({ ok: false, message: 'must be greater than zero' });
    expect(amountValue(new JsonNumber('-1'))).toMatchObject({ ok: false });
    expect(amountValue(' 1')).toEqual({ ok: false, message: 'must not have surrounding spaces' });
    expect(amountValue('x')).toEqual({ ok: false, message: 'must be a decimal number' });
    // The asset's own refusal still names it.
    expect(parseAmount('1.001', 'USD')).toEqual({ ok: false, message: 'has more than 2 decimal places for USD' });
    expect(parseAmount(new JsonNumber('1.5e-3'), 'USD')).toEqual({ ok: false, message: 'has more than 2 decimal places for USD' });
  });
});
