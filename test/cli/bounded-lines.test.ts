// The lines of a stream with a bound on each (src/cli/boundedLines.ts): the ends readline knows, wherever the chunks
// split them, a byte order mark skipped at the file's start alone, and a line past its bound refused by its number
// before the rest of it is read.
import { describe, expect, it } from 'vitest';
import { boundedLines } from '../../src/cli/boundedLines.js';

class TooLong extends Error {
  constructor(readonly line: number) {
    super(`line ${line} too long`);
  }
}

/** The chunks as a stream gives them, counting how many were taken. */
function source(chunks: Array<string | Buffer>): AsyncIterable<Buffer> & { taken: number } {
  const stream = {
    taken: 0,
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) {
        stream.taken++;
        yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      }
    },
  };
  return stream;
}

async function lines(chunks: Array<string | Buffer>, maxBytes = 1000): Promise<Array<[number, string]>> {
  const got: Array<[number, string]> = [];
  for await (const { number, text } of boundedLines(source(chunks), maxBytes, (line) => new TooLong(line))) got.push([number, text]);
  return got;
}

/** Every way to cut `text` in two chunks, and in chunks of one byte. */
const cuts = (text: string): Buffer[][] => {
  const bytes = Buffer.from(text, 'utf8');
  const two = Array.from({ length: bytes.length + 1 }, (_, i) => [bytes.subarray(0, i), bytes.subarray(i)]);
  return [...two, [...bytes].map((b) => Buffer.from([b]))];
};

describe('boundedLines', () => {
  it('ends lines at "\\n", "\\r\\n" and a lone "\\r" as readline does, however the chunks cut them', async () => {
    const text = 'a\nb\r\nc\rd\n\né€𝄞\r\r\nlast';
    const expected: Array<[number, string]> = [
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'd'],
      [5, ''],
      [6, 'é€𝄞'],
      [7, ''],
      [8, 'last'],
    ];
    for (const chunks of cuts(text)) expect(await lines(chunks)).toEqual(expected);
    expect(await lines(['a\n'])).toEqual([[1, 'a']]);
    expect(await lines([])).toEqual([]);
    expect(await lines(['', '\n', ''])).toEqual([[1, '']]);
  });

  it('skips a byte order mark at the start, wherever the chunks cut it; one elsewhere is the line’s own', async () => {
    for (const chunks of cuts('\uFEFF{"a":1}\n\uFEFF{"b":2}\n')) {
      expect(await lines(chunks)).toEqual([
        [1, '{"a":1}'],
        [2, '\uFEFF{"b":2}'],
      ]);
    }
    expect(await lines(['\uFEFF'])).toEqual([]);
    expect(await lines(['\uFEFF\n'])).toEqual([[1, '']]);
    // Two first bytes of one, and a short file.
    expect(await lines([Buffer.from([0xef, 0xbb])])).toEqual([[1, '\uFFFD']]);
    expect(await lines(['a'])).toEqual([[1, 'a']]);
    expect(await lines(['\n'])).toEqual([[1, '']]);
  });

  it('a line of the bound passes, one byte more is refused by its number (in bytes, its end and a leading mark not counted)', async () => {
    expect(await lines(['\uFEFF', '€€', '\r\n', 'x'], 6)).toEqual([
      [1, '€€'],
      [2, 'x'],
    ]);
    await expect(lines(['ok\n', '€€', 'x\n'], 6)).rejects.toEqual(new TooLong(2));
    await expect(lines(['ok\n1234567'], 6)).rejects.toEqual(new TooLong(2));
  });

  it('stops reading a line once it passes the bound: the chunks after are never taken', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const stream = source(['{}\n', ...Array.from({ length: 640 }, () => chunk), '\n']);
    const reading = (async () => {
      for await (const _ of boundedLines(stream, 1024 * 1024, (line) => new TooLong(line)));
    })();
    await expect(reading).rejects.toEqual(new TooLong(2));
    // The first line, and 16 chunks of 64 KiB and one more: just past 1 MiB.
    expect(stream.taken).toBe(1 + 17);
  });
});
