// Characters a webhook URL may not hold (issue 41): bidirectional controls and invisible ones, which make the URL a
// person reads another than the one the sender calls; found as written, and percent-encoded once.

/** The refused characters, and their Unicode names for the refusal's message. */
export const HIDDEN_CHARACTER_NAMES: ReadonlyMap<number, string> = new Map([
  [0x00ad, 'SOFT HYPHEN'],
  [0x200b, 'ZERO WIDTH SPACE'],
  [0x200c, 'ZERO WIDTH NON-JOINER'],
  [0x200d, 'ZERO WIDTH JOINER'],
  [0x200e, 'LEFT-TO-RIGHT MARK'],
  [0x200f, 'RIGHT-TO-LEFT MARK'],
  [0x202a, 'LEFT-TO-RIGHT EMBEDDING'],
  [0x202b, 'RIGHT-TO-LEFT EMBEDDING'],
  [0x202c, 'POP DIRECTIONAL FORMATTING'],
  [0x202d, 'LEFT-TO-RIGHT OVERRIDE'],
  [0x202e, 'RIGHT-TO-LEFT OVERRIDE'],
  [0x2066, 'LEFT-TO-RIGHT ISOLATE'],
  [0x2067, 'RIGHT-TO-LEFT ISOLATE'],
  [0x2068, 'FIRST STRONG ISOLATE'],
  [0x2069, 'POP DIRECTIONAL ISOLATE'],
  [0xfeff, 'ZERO WIDTH NO-BREAK SPACE'],
]);
const HIDDEN = /[\u00ad\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

/**
 * A run of percent-encoded bytes (hex in either case). Decoded once: `%25E2%2580%258B` is the visible text
 * `%E2%80%8B` to whoever decodes the URL, as HTTP does, once (RFC 3986 §2.4), so it is accepted.
 */
const PERCENT_RUN = /(?:%[0-9a-f]{2})+/gi;

export interface HiddenCharacter {
  codePoint: number;
  /** `U+200B ZERO WIDTH SPACE`. */
  label: string;
  /** 1-based, in the text checked: the character itself, or the first `%` of its encoding. */
  position: number;
  /** How it was written when percent-encoded (`%E2%80%8B`). */
  encoded?: string;
}

const hidden = (character: string, position: number, encoded?: string): HiddenCharacter => {
  const codePoint = character.codePointAt(0)!;
  const label = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')} ${HIDDEN_CHARACTER_NAMES.get(codePoint)}`;
  return { codePoint, label, position, ...(encoded === undefined ? {} : { encoded }) };
};

/** The first refused character in `text`, as written or percent-encoded (its UTF-8 bytes); none: undefined. */
export function hiddenCharacterIn(text: string): HiddenCharacter | undefined {
  const literal = HIDDEN.exec(text);
  if (literal) return hidden(literal[0], literal.index + 1);
  for (const run of text.matchAll(PERCENT_RUN)) {
    // Bytes that are no UTF-8 decode to U+FFFD, which is no hidden character: nothing to find in them.
    const raw = Buffer.from(run[0].replaceAll('%', ''), 'hex');
    const found = HIDDEN.exec(raw.toString('utf8'));
    if (!found) continue;
    const bytes = Buffer.from(found[0], 'utf8');
    const encoded = [...bytes].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
    // Where its bytes begin in the run, three characters a byte (UTF-8 never holds a character's bytes elsewhere).
    return hidden(found[0], run.index + 1 + 3 * raw.indexOf(bytes), encoded);
  }
  return undefined;
}
