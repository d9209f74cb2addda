// Amounts as an accountant reads them (1,711.25; 2.50; 0.00), made from the amount's decimal text, never through a
// JavaScript number, so that no digit the API gives is rounded away. The CSVs keep plain numbers.
import { isAsset, scaleOf } from '../core/assets.js';

/**
 * The finest scale shown in full: an asset kept at most this fine shows every place of its scale (2 for fiat, 6 for
 * USDC, USDT and PYUSD); one kept finer (BRZ, at 18) shows the places its amount has, at least PLACES_MIN.
 */
const SCALE_SHOWN_MAX = 6;
/** The places an amount shows at least when its asset's scale is not shown in full, or is not known here. */
const PLACES_MIN = 2;
/** The furthest an exponent may move the point (the API writes none): a text beyond it is shown as it came. */
const EXPONENT_MAX = 100;

/** The places an amount of `asset` shows at least. */
export function placesOf(asset: string): number {
  if (!isAsset(asset)) return PLACES_MIN;
  const scale = scaleOf(asset);
  return scale <= SCALE_SHOWN_MAX ? scale : PLACES_MIN;
}

const decimalText = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * An amount's decimal text (as the API writes it: "1711.25", "-5.5", "0") for people: `1,711.25`, `-5.50`, `0.00`
 * in USD; `2.500000` in USDC. A text that is not a decimal number is given back as it is.
 */
export function formatAmount(text: string, asset: string): string {
  const parts = decimalText.exec(text);
  if (!parts) return text;
  const [, sign = '', wholeText = '', fractionText = '', exponentText = '0'] = parts;
  const exponent = Number(exponentText);
  if ((wholeText === '' && fractionText === '') || Math.abs(exponent) > EXPONENT_MAX) return text;
  // The exponent moves the point along the digits as written.
  let digits = wholeText + fractionText;
  let point = wholeText.length + exponent;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  digits = digits.padEnd(point, '0');
  const whole = digits.slice(0, point).replace(/^0+/, '') || '0';
  const fraction = digits.slice(point).padEnd(placesOf(asset), '0');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${sign === '-' ? '-' : ''}${grouped}${fraction === '' ? '' : `.${fraction}`}`;
}
