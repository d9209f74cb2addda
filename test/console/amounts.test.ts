// Amounts as the console shows them (src/console/amounts.ts, issue 41): grouped by thousands, at the places of their
// asset's scale (core/assets.ts) for fiat and the 6-place tokens, BRZ with the places it has (at least 2), made from
// the decimal text alone so that every digit the API gives is kept.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatAmount, placesOf } from '../../src/console/amounts.js';
import { fiatCurrencies, scaleOf, tokens } from '../../src/core/assets.js';
import { checkProperty } from '../helpers/property.js';

describe('formatAmount: an amount as an accountant reads it', () => {
  it.each([
    ['2.5', 'USD', '2.50'],
    ['0', 'USD', '0.00'],
    ['1711.25', 'USD', '1,711.25'],
    ['999', 'BRL', '999.00'],
    ['1000', 'MXN', '1,000.00'],
    ['1000000.1', 'EUR', '1,000,000.10'],
  ])('fiat at 2 places, grouped by thousands: %s %s is %s', (text, asset, shown) => {
    expect(formatAmount(text, asset)).toBe(shown);
  });

  it.each([
    ['2.5', 'USDC', '2.500000'],
    ['0', 'USDT', '0.000000'],
    ['1000000.123456', 'PYUSD', '1,000,000.123456'],
  ])('USDC, USDT and PYUSD at 6 places: %s %s is %s', (text, asset, shown) => {
    expect(formatAmount(text, asset)).toBe(shown);
  });

  it.each([
    ['12.5', '12.50'],
    ['3', '3.00'],
    ['0', '0.00'],
    ['0.125', '0.125'],
    ['0.000000000000000001', '0.000000000000000001'],
    ['1234.123456789012345678', '1,234.123456789012345678'],
  ])('BRZ with as many places as the amount has, at least 2: %s is %s', (text, shown) => {
    expect(formatAmount(text, 'BRZ')).toBe(shown);
  });

  it('keeps a negative amount’s sign', () => {
    expect(formatAmount('-5.5', 'USDC')).toBe('-5.500000');
    expect(formatAmount('-1234567.8', 'USD')).toBe('-1,234,567.80');
    expect(formatAmount('-0.07', 'EUR')).toBe('-0.07');
  });

  it('keeps every digit, beyond a double’s and beyond the asset’s places: nothing is rounded', () => {
    expect(Number('12345678901234567.89')).toBe(12345678901234568);
    expect(formatAmount('12345678901234567.89', 'USD')).toBe('12,345,678,901,234,567.89');
    expect(formatAmount('999999999999999999.999999999999999999', 'BRZ')).toBe('999,999,999,999,999,999.999999999999999999');
    expect(formatAmount('1.005', 'USD')).toBe('1.005');
    expect(formatAmount('2.50', 'USD')).toBe('2.50');
  });

  it('reads a JSON number written otherwise: an exponent, a sign, leading zeros, a bare point', () => {
    expect(formatAmount('1.5e3', 'USD')).toBe('1,500.00');
    expect(formatAmount('25E-1', 'USD')).toBe('2.50');
    expect(formatAmount('1e-20', 'BRZ')).toBe('0.00000000000000000001');
    expect(formatAmount('-1.2345e2', 'USDC')).toBe('-123.450000');
    expect(formatAmount('+3', 'USD')).toBe('3.00');
    expect(formatAmount('007.5', 'USD')).toBe('7.50');
    expect(formatAmount('.5', 'USD')).toBe('0.50');
    expect(formatAmount('5.', 'USD')).toBe('5.00');
  });

  it('gives back as it came a text that is not a decimal number, or whose exponent is past any amount', () => {
    for (const text of ['', '-', '.', 'abc', '1,000', '1.2.3', ' 1', 'e5', 'NaN', '1e101', '1e-101']) expect(formatAmount(text, 'USD')).toBe(text);
  });

  it('an asset the console does not know: the places the amount has, at least 2', () => {
    expect(formatAmount('2.5', 'XYZ')).toBe('2.50');
    expect(formatAmount('1.23456', 'XYZ')).toBe('1.23456');
  });

  it('keeps the digits of any plain decimal text: only the commas, the filling zeros and leading zeros differ', async () => {
    const plain = fc.stringMatching(/^-?\d{1,30}(\.\d{1,20})?$/);
    const normal = (text: string) => {
      const [whole = '', fraction = ''] = text.replace(/^-/, '').split('.');
      const digits = `${whole.replace(/^0+(?=\d)/, '')}.${fraction.replace(/0+$/, '')}`;
      return `${text.startsWith('-') ? '-' : ''}${digits}`;
    };
    await checkProperty(
      fc.property(plain, fc.constantFrom(...fiatCurrencies, ...tokens), (text, asset) => {
        const shown = formatAmount(text, asset);
        expect(shown).toMatch(/^-?\d{1,3}(,\d{3})*\.\d+$/);
        expect(shown.split('.')[1]!.length).toBeGreaterThanOrEqual(placesOf(asset));
        expect(normal(shown.replace(/,/g, ''))).toBe(normal(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('placesOf: the places an amount shows at least', () => {
  it('is the asset’s scale up to 6 places, and 2 for BRZ, kept at 18', () => {
    for (const asset of [...fiatCurrencies, ...tokens]) expect([asset, placesOf(asset)]).toEqual([asset, scaleOf(asset) <= 6 ? scaleOf(asset) : 2]);
    expect(Object.fromEntries([...fiatCurrencies, ...tokens].map((asset) => [asset, placesOf(asset)]))).toEqual({
      BRL: 2,
      USD: 2,
      MXN: 2,
      EUR: 2,
      USDC: 6,
      USDT: 6,
      PYUSD: 6,
      BRZ: 2,
    });
  });
});
