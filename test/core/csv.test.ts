// The one CSV writer (src/core/csv.ts), read back by a CSV parser as a spreadsheet would: quotes, commas and line
// breaks survive; a text cell that a spreadsheet would evaluate (=, +, -, @, tab, carriage return first) comes back
// with a single quote before it; a number column's negative amount stays the number it was.
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvCell, csvFile, type CsvColumn } from '../../src/core/csv.js';

const COLUMNS: CsvColumn[] = [
  { name: 'name', type: 'text' },
  { name: 'amount', type: 'number' },
];
const readBack = (text: string): string[][] => parse(text, { relax_column_count: false }) as string[][];

describe('csvFile', () => {
  it('round trip: every tricky cell reads back as written, the dangerous ones as text', () => {
    const plain = ['Cash', 'Cash, "main"', 'two\nlines', 'a\r\nb', '"', ',', '', ' =space first', "'quoted already", 'Équité', '1+1', 'x=y'];
    const dangerous = ['=HYPERLINK("http://x"&A2,"x")', '+1', '-1', '-Opening balance', '@SUM(A1:A2)', '\tTab', '\rReturn', '=', '\r\n'];
    const amounts = ['-12.50', '0', '12345678901234.56', '-0.000000000000000001', '7'];
    const rows = [...plain, ...dangerous].map((name, i) => [name, amounts[i % amounts.length]!]);
    const text = csvFile({ columns: COLUMNS, rows });
    const back = readBack(text);
    expect(back[0]).toEqual(['name', 'amount']);
    expect(back.slice(1)).toEqual(rows.map(([name, amount]) => [dangerous.includes(name!) ? `'${name}` : name, amount]));
    // A negative amount is a number in the file, not quoted and not prefixed: a spreadsheet sums it.
    expect(text).toContain('\nCash,-12.50\n');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('a number column holds a number or is text: a formula declared a number is still neutralised', () => {
    expect(csvCell('number', '-12.50')).toBe('-12.50');
    expect(csvCell('number', '-1')).toBe('-1');
    expect(csvCell('number', '')).toBe('');
    for (const notANumber of ['-1+cmd', '=1', '-', '-1.', '-.5', '+5', '@1', '-1e5']) expect(csvCell('number', notANumber), notANumber).toBe(`'${notANumber}`);
    expect(csvCell('text', '-12.50')).toBe("'-12.50");
    const back = readBack(csvFile({ columns: COLUMNS, rows: [['-12.50', '-12.50']] }));
    expect(back[1]).toEqual(["'-12.50", '-12.50']);
  });

  it('the header row is text like the others; a row of the wrong width is a bug', () => {
    expect(readBack(csvFile({ columns: [{ name: '=x', type: 'number' }], rows: [] }))).toEqual([["'=x"]]);
    expect(() => csvFile({ columns: COLUMNS, rows: [['only one']] })).toThrow(/1 cells for 2 columns/);
  });
});
