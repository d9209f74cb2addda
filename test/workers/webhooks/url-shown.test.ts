// Issue 41: what a webhook URL shows is what is called. A URL holding an invisible or bidirectional-control character
// (U+00AD, U+200B-U+200F, U+202A-U+202E, U+2066-U+2069, U+FEFF) anywhere, as written or percent-encoded once, is
// refused with 400 at webhookUrl, naming the character; one that hides it in a punycode host too. An accepted URL is
// stored, answered, audited, shown and called as the WHATWG URL parser writes it (`new URL(input).href`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, startTestServer, useServerWithAccounts, type Client } from '../../helpers/server.js';
import { expectError, expectValidation } from '../../helpers/expect.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { until } from '../../helpers/poll.js';
import { makeTenant } from './support.js';
import { CLI_ACTOR_ID } from '../../../src/core/audit.js';
import { HIDDEN_CHARACTER_NAMES } from '../../../src/workers/webhooks/hiddenCharacters.js';

const PATH = '/api/v1/tenant/webhook';
const put = (c: Client, webhookUrl: string) => c.request('PUT', PATH, { body: { webhookUrl } });

const DNS: Record<string, string[]> = { 'hooks.public.test': ['93.184.216.34'] };
const testResolver = async (host: string): Promise<string[]> => {
  const addresses = DNS[host.toLowerCase()];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses;
};

/**
 * Every refused character, as the issue lists them (the oracle: U+00AD, U+200B–U+200F, U+202A–U+202E, U+2066–U+2069,
 * U+FEFF), with its Unicode name as the refusal gives it.
 */
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const HIDDEN: Array<[number, string]> = [0x00ad, ...range(0x200b, 0x200f), ...range(0x202a, 0x202e), ...range(0x2066, 0x2069), 0xfeff].map((cp) => [cp, HIDDEN_CHARACTER_NAMES.get(cp)!]);
const label = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
/** A character's UTF-8 bytes percent-encoded, in upper or lower case hex. */
const encoded = (codePoint: number, lower = false) => {
  const hex = [...Buffer.from(String.fromCodePoint(codePoint))].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  return lower ? hex.toLowerCase() : hex;
};
/** An answer that carries a refused character, raw or as a JSON escape. */
const CARRIES_HIDDEN = /[\u00ad\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]|\\u(00ad|200[b-f]|202[a-e]|206[6-9]|feff)/i;

/** Each character in every place a URL has, as written and percent-encoded: [where, URL, what the message says]. */
const PLACES: Array<[string, string, RegExp]> = HIDDEN.flatMap(([cp, name]) => {
  const c = String.fromCodePoint(cp);
  const named = (extra = '') => new RegExp(`${label(cp).replace('+', '\\+')} ${name}${extra}`);
  return [
    [`${label(cp)} in the path`, `https://hooks.public.test/pay${c}ments`, named(' at position 30')],
    [`${label(cp)} in the query`, `https://hooks.public.test/hook?to=ops${c}`, named()],
    [`${label(cp)} in the fragment`, `https://8.8.8.8/hook#x${c}y`, named()],
    [`${label(cp)} in the host`, `https://hooks${c}.public.test/hook`, named(' at position 14')],
    [`${label(cp)} in the user-info`, `https://ops${c}@8.8.8.8/hook`, named()],
    [`${label(cp)} percent-encoded in the path`, `https://hooks.public.test/a${encoded(cp)}b`, named(`, percent-encoded as ${encoded(cp)}, at position 28`)],
    [`${label(cp)} percent-encoded in lower case in the query`, `https://hooks.public.test/hook?a=1&b=${encoded(cp, true)}`, named(`, percent-encoded as ${encoded(cp)},`)],
    [`${label(cp)} percent-encoded in the host`, `https://hooks${encoded(cp)}.public.test/hook`, named(`, percent-encoded as ${encoded(cp)},`)],
  ] as Array<[string, string, RegExp]>;
});

/** Other ways of hiding them: [what, URL, message]. */
const SPECIAL: Array<[string, string, RegExp]> = [
  // Trimmed as whitespace by the parser (and by String.prototype.trim): named, not "whitespace".
  ['a byte-order mark before the URL', '\ufeffhttps://8.8.8.8/hook', /U\+FEFF ZERO WIDTH NO-BREAK SPACE at position 1\b/],
  ['an override that shows the path backwards', 'https://hooks.public.test/\u202egpj.exe', /U\+202E RIGHT-TO-LEFT OVERRIDE/],
  ['a soft hyphen the parser maps out of the host without a trace', 'https://hooks.pub\u00adlic.test/hook', /U\+00AD SOFT HYPHEN/],
  ['hex in mixed case', 'https://hooks.public.test/a%e2%80%8Bb', /U\+200B ZERO WIDTH SPACE, percent-encoded as %E2%80%8B/],
  ['among other percent-encoded bytes, one not UTF-8', 'https://hooks.public.test/a%41%F0%E2%80%8Fb', /U\+200F RIGHT-TO-LEFT MARK, percent-encoded as %E2%80%8F, at position 34/],
  // क्‍ष with a joiner after the virama: valid IDNA, written as punycode, and read as Unicode it holds U+200D.
  ['a joiner hidden in a punycode host', 'https://xn--11b2ezcw70k.example/hook', /U\+200D ZERO WIDTH JOINER in the host xn--11b2ezcw70k\.example, read as Unicode/],
  ['the same host as Unicode', 'https://\u0915\u094d\u200d\u0937.example/hook', /U\+200D ZERO WIDTH JOINER at position 11/],
];

/** Accepted beside them: their neighbours, and what decodes to them only when decoded twice. */
const ACCEPTED: Array<[string, string]> = [
  ['U+200A HAIR SPACE, percent-encoded (before the range)', 'https://hooks.public.test/a%E2%80%8Ab'],
  ['U+2010 HYPHEN, percent-encoded (after it)', 'https://hooks.public.test/a%E2%80%90b'],
  ['U+00AE REGISTERED SIGN, percent-encoded (after U+00AD)', 'https://hooks.public.test/a%C2%AEb'],
  ['U+2065 and U+206A, percent-encoded (around the isolates)', 'https://hooks.public.test/a%E2%81%A5%E2%81%AAb'],
  ['U+200B percent-encoded twice: the visible text %E2%80%8B once decoded', 'https://hooks.public.test/a%25E2%2580%258Bb'],
  ['a host in another script, without a joiner', 'https://\u0915\u0937.example/hook'],
];

describe('webhook URLs with invisible or bidirectional-control characters → 400 VALIDATION_FAILED at webhookUrl, nothing stored', () => {
  let c: Client;
  let fresh: Client;
  const kept = 'https://hooks.public.test/kept';

  const t = useServerWithAccounts({ webhooks: { resolve: testResolver } });
  beforeAll(async () => {
    c = t.client;
    fresh = client(t.url, (await createTenant(t.dbPath, 'Fresh')).apiKey.rawKey);
    expect((await put(c, kept)).status).toBe(200);
  });

  it.each([...PLACES, ...SPECIAL])('%s', async (_what, url, message) => {
    for (const who of [c, fresh]) {
      const res = await put(who, url);
      expectValidation(res, { detail: { path: 'webhookUrl', message } });
      expect(res.body.message).toMatch(/^Invalid webhookUrl: must not contain invisible or bidirectional-control characters \(/);
      // Named by its code point, never carried back itself.
      expect(res.text).not.toMatch(CARRIES_HIDDEN);
    }
    expect((await c.get(PATH)).body.webhookUrl).toBe(kept);
    expectError(await fresh.get(PATH), 404, 'NOT_FOUND');
  });

  it.each(ACCEPTED)('accepted: %s', async (_what, url) => {
    const res = await put(c, url);
    expect(res.status, res.text).toBe(200);
    expect(res.body.webhookUrl).toBe(new URL(url).href);
  });

  it('refused alike by a server that allows private addresses', async () => {
    const open = await startTestServer({ webhooks: { allowPrivate: true, resolve: testResolver } });
    try {
      const admin = client(open.url, open.tenant.apiKey.rawKey);
      for (const [, url, message] of [...PLACES.filter((_, i) => i % 7 === 0), ...SPECIAL]) {
        expectValidation(await put(admin, url.replace('hooks.public.test', 'localhost:9')), { detail: { path: 'webhookUrl', message: /invisible or bidirectional-control/ } });
        expectValidation(await put(admin, url), { detail: { path: 'webhookUrl', message } });
      }
      expectError(await admin.get(PATH), 404, 'NOT_FOUND');
    } finally {
      await open.stop();
    }
  });
});

/** [as sent, as the URL parser writes it]: the second is what is stored, answered, audited, shown and called. */
const WRITTEN: Array<[string, string]> = [
  ['HTTPS://HOOKS.Public.TEST:443/a/./b/../hook?q=a b#top', 'https://hooks.public.test/a/hook?q=a%20b#top'],
  ['https://8.8.8.8', 'https://8.8.8.8/'],
  ['https://[::ffff:8.8.8.8]/hook', 'https://[::ffff:808:808]/hook'],
  ['https:\\\\8.8.4.4\\v1\\hook', 'https://8.8.4.4/v1/hook'],
  ['https://\uff18.\uff18.\uff18.\uff18/hook', 'https://8.8.8.8/hook'],
  ['https://b\u00fccher.example/hook', 'https://xn--bcher-kva.example/hook'],
  ['https://hooks.public.test/\u00fcber path?n=\u00e9', 'https://hooks.public.test/%C3%BCber%20path?n=%C3%A9'],
  ['https://1.1.1.1:8443/hook?', 'https://1.1.1.1:8443/hook?'],
];

describe('a webhook URL is stored, answered, audited, shown and called as the WHATWG URL parser writes it', () => {
  let c: Client;
  const t = useServerWithAccounts({ webhooks: { resolve: testResolver } });
  beforeAll(() => {
    c = t.client;
  });

  it.each(WRITTEN)('%s → %s', async (sent, written) => {
    expect(new URL(sent).href).toBe(written);
    const before = (await c.get(PATH)).body.webhookUrl ?? null;
    const res = await put(c, sent);
    expect(res.status, res.text).toBe(200);
    expect(res.body.webhookUrl).toBe(written);
    expect((await c.get(PATH)).body.webhookUrl).toBe(written);
    const audit = await c.get('/api/v1/compliance/audit-export?from=2000-01-01T00:00:00.000Z&to=2100-01-01T00:00:00.000Z');
    const last = audit.text.split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((r) => r.action === 'UPDATE_WEBHOOK').at(-1);
    expect(last.payload).toMatchObject({ webhookUrl: written, previousUrl: before });
  });

  it('refused when the URL as written is longer than the limit, though the text sent was not', async () => {
    const sent = `https://hooks.public.test/${'\u00fc'.repeat(400)}`;
    expect(sent.length).toBeLessThan(2048);
    expectValidation(await put(c, sent), { detail: { path: 'webhookUrl', message: /at most 2048 characters as the URL parser writes it \(this one is 2426\)/ } });
  });

  it('a URL stored as sent before issue 41 is shown as it is called', async () => {
    const other = await createTenant(t.dbPath, 'Set before');
    await t.server.ledger.webhooks.set(other.tenantId, { type: 'HUMAN', keyId: CLI_ACTOR_ID }, 'HTTPS://Hooks.Public.TEST:443/old');
    expect((await client(t.url, other.apiKey.rawKey).get(PATH)).body.webhookUrl).toBe('https://hooks.public.test/old');
  });
});

describe('the sender calls the URL shown', () => {
  let r: Receiver;
  beforeAll(async () => {
    r = await startReceiver();
  });
  afterAll(async () => {
    await r?.close();
  });
  const t = useServerWithAccounts(() => ({ webhooks: { allowPrivate: true, ca: r.cert, retry: { delaysMs: [200, 400], windowMs: 60_000 } } }));

  it('PUT 0x7f.1 with dot segments, a space and a non-ASCII query: the receiver is asked for what GET shows', async () => {
    const tenant = await makeTenant(t, 'Caller');
    const sent = `https://0x7f.1:${r.port}/x/./y/../hook?q=a b&r=\u00fc`;
    const shown = `https://127.0.0.1:${r.port}/x/hook?q=a%20b&r=%C3%BC`;
    await tenant.setWebhook(sent);
    expect((await tenant.c.get(PATH)).body.webhookUrl).toBe(shown);
    await tenant.pay();
    const got = await until('the delivery at the receiver', () => r.received.at(0));
    expect(`https://${got.headers.host}${got.path}`).toBe(shown);
  });
});
