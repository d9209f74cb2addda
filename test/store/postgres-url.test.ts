// A PostgreSQL URL as messages and logs show it (src/store/postgres/url.ts, issue 41): every secret the driver honours
// is hidden, in every form of URL it reads, and everything else reads to the driver as before. The oracle is the
// driver's own parser (pg-connection-string, which pg runs on --db): each form below is one it honours.
import { parse } from 'pg-connection-string';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactedUrl } from '../../src/store/postgres/url.js';
import { parseDbTarget } from '../../src/store/dbTarget.js';
import { checkProperty } from '../helpers/property.js';

const MARK = 'Sekr3t';
/** Characters that are delimiters somewhere in a URL, beside any text. */
const awkward = fc.oneof(fc.constantFrom('@', ':', '/', '?', '#', '%', '&', '=', '+', ' ', '*', '[', ']', '\\', "'", '"'), fc.string({ unit: 'grapheme', maxLength: 3 }));
const password = fc.array(awkward, { maxLength: 12 }).map((parts) => `${MARK}${parts.join('')}`);

/** Forms of URL carrying a password, each percent-encoded as a URL should be, and the field the driver reads it into. */
const forms: Array<[string, (encoded: string) => string, 'password' | 'sslpassword']> = [
  ['user-info', (p) => `postgres://ledger:${p}@127.0.0.1:5432/ledger`, 'password'],
  ['postgresql:// in capitals', (p) => `POSTGRESQL://ledger:${p}@127.0.0.1:5432/ledger`, 'password'],
  ['?password=', (p) => `postgres://ledger@127.0.0.1:5432/ledger?password=${p}`, 'password'],
  ['?password= over the user-info', (p) => `postgres://ledger:decoy@127.0.0.1/ledger?application_name=x&password=${p}`, 'password'],
  ['?password= repeated (the last one holds)', (p) => `postgres://ledger@127.0.0.1/ledger?password=decoy&password=${p}`, 'password'],
  ['a percent-encoded name', (p) => `postgres://ledger@127.0.0.1/ledger?pass%77ord=${p}`, 'password'],
  ['?sslpassword=', (p) => `postgres://ledger@127.0.0.1/ledger?sslmode=disable&sslpassword=${p}`, 'sslpassword'],
  ['no host, the host in ?host=', (p) => `postgres://ledger:${p}@/ledger?host=127.0.0.1&port=5432`, 'password'],
  ['no host, a socket folder in ?host=', (p) => `postgres://ledger@/ledger?host=%2Fvar%2Frun%2Fpostgresql&password=${p}`, 'password'],
  ['an IPv6 host', (p) => `postgres://ledger:${p}@[::1]:5432/ledger`, 'password'],
  ['hosts separated by commas', (p) => `postgres://ledger:${p}@db1,db2/ledger`, 'password'],
];

/** What the driver reads from a URL, but its secrets. */
const withoutSecrets = (url: string) => {
  const { password: _p, sslpassword: _s, ...rest } = parse(url) as Record<string, unknown>;
  return rest;
};

describe('redactedUrl', () => {
  it.each(forms)('hides any password given as %s, and the driver reads the rest as before', async (_name, form, field) => {
    await checkProperty(
      fc.property(password, (secret) => {
        const url = form(encodeURIComponent(secret));
        expect((parse(url) as Record<string, unknown>)[field]).toBe(secret);
        const shown = redactedUrl(url);
        expect(shown).not.toContain(MARK);
        expect(shown).toContain('***');
        expect(withoutSecrets(shown)).toEqual(withoutSecrets(url));
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['raw @ and : in the user-info', `postgres://ledger:${MARK}@x:y@127.0.0.1/ledger`],
    ['a space and a stray % (the driver escapes them first)', `postgres://ledger:${MARK} x%zz@127.0.0.1/ledger`],
    ['raw + and space in ?password=', `postgres://ledger@127.0.0.1/ledger?password=${MARK}+a b`],
    ['a name in capitals (not read by the driver, hidden all the same)', `postgres://ledger@127.0.0.1/ledger?PASSWORD=${MARK}`],
    ['a fragment after the query', `postgres://ledger@127.0.0.1/ledger?password=${MARK}#${MARK}`],
  ])('hides %s', (_name, url) => {
    const shown = redactedUrl(url);
    expect(shown).not.toContain(MARK);
    expect(shown).toMatch(/^postgres:\/\/ledger(:\*\*\*)?@127\.0\.0\.1\/ledger/);
  });

  it('keeps all the rest as it was: the user, host, port, database and other parameters', () => {
    expect(redactedUrl('postgres://postgres:pw@127.0.0.1:5432/ledger_test_1')).toBe('postgres://postgres:***@127.0.0.1:5432/ledger_test_1');
    expect(redactedUrl('postgresql://app@db.internal/ledger?sslmode=verify-full&password=pw&application_name=ledger')).toBe(
      'postgresql://app@db.internal/ledger?sslmode=verify-full&password=***&application_name=ledger',
    );
    expect(redactedUrl('postgres://app:pw@/ledger?host=/tmp')).toBe('postgres://app:***@/ledger?host=%2Ftmp');
    expect(redactedUrl('postgres://127.0.0.1/ledger')).toBe('postgres://127.0.0.1/ledger');
  });

  it.each([
    ['a port that is not a number (the driver refuses it too)', `postgres://ledger:${MARK}@127.0.0.1:nope/ledger`, true],
    ['a / in the password, unescaped', `postgres://ledger:1234/${MARK}@127.0.0.1/ledger`, false],
    ['a ? in the password, unescaped', `postgres://ledger:12?${MARK}@127.0.0.1/ledger`, false],
    ['a # in the password, unescaped', `postgres://ledger:12#${MARK}@127.0.0.1/ledger`, false],
  ])('does not show a URL with %s at all', (_name, url, driverRefuses) => {
    if (driverRefuses) expect(() => parse(url)).toThrow();
    expect(redactedUrl(url)).toMatch(/^the PostgreSQL URL given \(not shown: /);
  });
});

describe('a --db value that reads like a PostgreSQL URL but is not one', () => {
  it.each([`postgres:/ledger:${MARK}@127.0.0.1/ledger`, ` postgres://ledger:${MARK}@127.0.0.1/ledger`, `"postgresql://ledger:${MARK}@127.0.0.1/ledger"`])(
    'is refused without echoing it, not taken for a file: %s',
    (value) => {
      let message = '';
      try {
        parseDbTarget(value);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/reads like a PostgreSQL URL but is not one/);
      expect(message).not.toContain(MARK);
    },
  );
});
