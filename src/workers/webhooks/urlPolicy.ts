// Where webhooks may go: HTTPS to public addresses only, checked when a URL is set and again at every connection; a
// URL is stored as the WHATWG parser writes it, which is what the sender calls.
import ipaddr from 'ipaddr.js';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { domainToUnicode } from 'node:url';
import { invalid } from '../../core/errors.js';
import { WEBHOOK_URL_LENGTH_MAX } from '../../core/limits.js';
import { hiddenCharacterIn, type HiddenCharacter } from './hiddenCharacters.js';

/** Names that never lead to the public internet. */
const LOCAL_NAMES = ['localhost'];
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa'];

/** Resolves a host name to every address it has; replaceable in tests. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface UrlPolicy {
  /** Test and development only: loopback and private addresses (and local names) are allowed. */
  allowPrivate: boolean;
  /** Operator's deny list: these domains and every name under them. */
  denyDomains: readonly string[];
  resolve: Resolver;
}

/**
 * The IPv4 addresses an IPv6 address carries, by the ranges that embed or map one: IPv4-mapped (::ffff:a.b.c.d), the
 * deprecated IPv4-compatible form (::a.b.c.d), SIIT (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96), 6to4 (2002::/16, at
 * bits 16 to 48), Teredo (2001::/32: its server, and its client with every bit flipped) and ISATAP (…:5efe:a.b.c.d).
 * Empty for any other address. A connection to such an address may reach the IPv4 address it carries.
 */
function embeddedIpv4(address: ipaddr.IPv6): string[] {
  const p = address.parts;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  if (zeros(0, 5) && p[5] === 0xffff) return [v4(p[6]!, p[7]!)]; // mapped
  if (zeros(0, 6) && (p[6] !== 0 || p[7]! > 1)) return [v4(p[6]!, p[7]!)]; // compatible (not :: or ::1)
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return [v4(p[6]!, p[7]!)]; // SIIT
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return [v4(p[6]!, p[7]!)]; // NAT64
  if (p[0] === 0x2002) return [v4(p[1]!, p[2]!)]; // 6to4
  if (p[0] === 0x2001 && p[1] === 0) return [v4(p[2]!, p[3]!), v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff)]; // Teredo
  if ((p[4] === 0 || p[4] === 0x200) && p[5] === 0x5efe) return [v4(p[6]!, p[7]!)]; // ISATAP
  return [];
}

/** Ranges that carry an IPv4 address: allowed only when every address they carry is public. */
const CARRIES_IPV4 = new Set(['unicast', 'ipv4Mapped', 'rfc6145', 'rfc6052', '6to4', 'teredo']);

/**
 * Whether an address is public: ipaddr.js names the special ranges (loopback, private, link-local, CGNAT,
 * benchmarking and documentation, reserved, multicast, unspecified, unique-local...), and only plain unicast passes.
 * An IPv6 address that carries an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo, ISATAP) passes only if the
 * IPv4 addresses it carries are public themselves: `[::127.0.0.1]` is loopback in disguise.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    // Local-use NAT64 (64:ff9b:1::/48, RFC 8215): a translator of the operator's own network, wherever it leads.
    if (parsed.match(ipaddr.parse('64:ff9b:1::'), 48)) return false;
    const carried = embeddedIpv4(parsed as ipaddr.IPv6);
    if (carried.length > 0) return CARRIES_IPV4.has(parsed.range()) && carried.every(isPublicAddress);
  }
  return parsed.range() === 'unicast';
}

const refuse = (reason: string) =>
  invalid(`Invalid webhookUrl: ${reason}.`, [{ path: 'webhookUrl', message: reason }]);

/**
 * The host of a URL as the WHATWG parser canonicalized it (IPv4 in any spelling becomes dotted decimal), without the
 * trailing dot of a fully qualified name: `localhost.` is `localhost`, checked and resolved alike.
 */
const bareHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();

function checkName(name: string, policy: UrlPolicy): void {
  if (!policy.allowPrivate && (LOCAL_NAMES.includes(name) || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix)))) {
    throw refuse(`the host ${name} is a local name`);
  }
  // `intranet`, `db`: a name without a dot is completed by the resolver's search domains, so it leads into the
  // operator's own network, whatever public DNS says of it.
  if (!policy.allowPrivate && !name.includes('.')) throw refuse(`the host ${name} is a single-label name, which only a local network resolves`);
  const denied = policy.denyDomains.find((domain) => name === domain || name.endsWith(`.${domain}`));
  if (denied) throw refuse(`the domain ${denied} is not allowed`);
}

/**
 * C0 controls, DEL and C1 controls. The URL parser drops a tab or a newline silently (what it stores would not be what
 * was sent), percent-encodes the others in a path, and a URL it refuses would be echoed into logs and terminals as
 * sent. Percent-encoded (`%0D`), they are ordinary bytes of a path or a query and are sent as written.
 */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Whether the URL as written has a user-info part, empty or not: an `@` in its authority (what follows the scheme and
 * its slashes, up to the path, query or fragment). The parser drops an empty one (`https://@host/`) without a trace.
 */
function hasUserInfo(text: string): boolean {
  const afterScheme = text.slice(text.indexOf(':') + 1).replace(/^[/\\]*/, '');
  return afterScheme.split(/[/\\?#]/, 1)[0]!.includes('@');
}

const HIDDEN_REASON = 'must not contain invisible or bidirectional-control characters';
const hiddenRefusal = (found: HiddenCharacter, where: string) =>
  refuse(`${HIDDEN_REASON} (${found.label}${found.encoded ? `, percent-encoded as ${found.encoded},` : ''} ${where})`);

/**
 * Parses and checks a URL as set by PUT: shape, characters, name, and (when it resolves) every address. A name that
 * does not resolve yet is accepted. What to store is the answer's `href`.
 */
export async function checkWebhookUrl(text: string, policy: UrlPolicy): Promise<URL> {
  if (text.length > WEBHOOK_URL_LENGTH_MAX) throw refuse(`must be at most ${WEBHOOK_URL_LENGTH_MAX} characters`);
  const control = CONTROL_CHARACTER.exec(text);
  if (control) {
    const code = `U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    throw refuse(`must not contain control characters (${code} at position ${control.index + 1}); percent-encode what a path or query needs`);
  }
  // In the text as sent, before the parser: it maps U+00AD, U+200B and U+FEFF out of a host without a trace (and trims
  // U+FEFF as whitespace), and percent-decodes a host before it does.
  const hidden = hiddenCharacterIn(text);
  if (hidden) throw hiddenRefusal(hidden, `at position ${hidden.position}`);
  // The URL parser would drop them silently: what is stored must be what was sent, give or take its spelling.
  if (text !== text.trim()) throw refuse('must not begin or end with whitespace');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('is not a valid URL');
  }
  // A host sent as punycode (`xn--…`) holds in Unicode what its ASCII form hides: a joiner is valid IDNA after a virama.
  const unicodeHost = domainToUnicode(url.hostname);
  const inHost = hiddenCharacterIn(unicodeHost);
  if (inHost) throw hiddenRefusal(inHost, `in the host ${url.hostname}, read as Unicode`);
  // Stored as written here: percent-encoding and punycode make it longer than the text sent.
  if (url.href.length > WEBHOOK_URL_LENGTH_MAX) throw refuse(`must be at most ${WEBHOOK_URL_LENGTH_MAX} characters as the URL parser writes it (this one is ${url.href.length})`);
  if (url.protocol !== 'https:') throw refuse('must use https');
  if (url.username || url.password || hasUserInfo(text)) throw refuse('must not carry a user name or password, nor an empty user-info part before @');
  if (url.port === '0') throw refuse('port 0 is not a port one can connect to');
  const host = bareHost(url);
  if (isIP(host)) {
    if (!policy.allowPrivate && !isPublicAddress(host)) throw refuse(`${host} is not a public address`);
    return url;
  }
  checkName(host, policy);
  if (policy.allowPrivate) return url;
  let addresses: string[];
  try {
    addresses = await policy.resolve(host);
  } catch {
    return url; // Not resolvable now; delivery resolves and checks again.
  }
  const blocked = addresses.find((address) => !isPublicAddress(address));
  if (blocked) throw refuse(`${host} resolves to ${blocked}, which is not a public address`);
  return url;
}

/** At connect time: every address the host has must be allowed; answers the ones to connect to. */
export async function addressesToConnect(url: URL, policy: UrlPolicy): Promise<string[]> {
  const host = bareHost(url);
  checkName(host, policy);
  const addresses = isIP(host) ? [host] : await policy.resolve(host);
  if (addresses.length === 0) throw new Error(`${host} has no address`);
  if (!policy.allowPrivate) {
    const blocked = addresses.find((address) => !isPublicAddress(address));
    if (blocked) throw new Error(`${host} resolves to ${blocked}, which is not a public address; not connecting`);
  }
  return addresses;
}
