// The lines of a file read as a stream, each at most so many bytes and given up as soon as it passes them
// (node:readline keeps a line in memory however long it grows).

const LF = 0x0a;
const CR = 0x0d;
const BOM = [0xef, 0xbb, 0xbf];

export interface NumberedLine {
  /** 1 for the file's first line. */
  number: number;
  text: string;
}

// Lines end as readline ends them: "\n", "\r\n" (even split between two chunks) or a lone "\r"; a last line without
// an end is a line, an empty one is not. A byte order mark is skipped at the file's start only. Bytes are decoded a
// whole line at once, so a character split between two chunks is one character; what is not UTF-8 becomes U+FFFD.
/**
 * Every line of `input`, numbered. A line of more than `maxBytes` bytes (its end and a leading byte order mark not
 * counted) throws `tooLong(its number)` once its bytes pass the bound; reading stops there.
 */
export async function* boundedLines(input: AsyncIterable<Uint8Array | string>, maxBytes: number, tooLong: (line: number) => Error): AsyncGenerator<NumberedLine> {
  let pieces: Buffer[] = [];
  let size = 0;
  let number = 0;
  /** The file's first bytes, until there are enough to tell a byte order mark. */
  let head: Buffer | null = Buffer.alloc(0);
  /** The last chunk ended with "\r": a "\n" first in the next one ends no other line. */
  let afterCr = false;

  const add = (piece: Buffer) => {
    if (piece.length === 0) return;
    size += piece.length;
    if (size > maxBytes) throw tooLong(number + 1);
    pieces.push(piece);
  };
  const take = (): NumberedLine => {
    const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, size);
    pieces = [];
    size = 0;
    return { number: ++number, text: bytes.toString('utf8') };
  };
  const withoutBom = (bytes: Buffer): Buffer => (BOM.every((b, i) => bytes[i] === b) ? bytes.subarray(BOM.length) : bytes);

  /** The lines a chunk ends; its last bytes stay gathered for the line they begin. */
  function* split(chunk: Buffer): Generator<NumberedLine> {
    let from = 0;
    if (afterCr && chunk[0] === LF) from = 1;
    afterCr = false;
    // The next "\n" and "\r" at or after `from`, each looked for again only once passed: one pass over the chunk.
    let lf = chunk.indexOf(LF, from);
    let cr = chunk.indexOf(CR, from);
    while (lf >= 0 || cr >= 0) {
      const end = cr < 0 || (lf >= 0 && lf < cr) ? lf : cr;
      add(chunk.subarray(from, end));
      yield take();
      from = end + 1;
      if (end === cr) {
        if (from === chunk.length) afterCr = true;
        else if (chunk[from] === LF) from++;
      }
      if (lf >= 0 && lf < from) lf = chunk.indexOf(LF, from);
      if (cr >= 0 && cr < from) cr = chunk.indexOf(CR, from);
    }
    add(chunk.subarray(from));
  }

  for await (const data of input) {
    const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (head) {
      head = Buffer.concat([head, chunk]);
      if (head.length < BOM.length) continue;
      const first = withoutBom(head);
      head = null;
      yield* split(first);
    } else {
      yield* split(chunk);
    }
  }
  if (head) yield* split(withoutBom(head));
  if (size > 0) yield take();
}
