// Where webhooks may go: HTTPS to public addresses only. Checked when a URL is set, and again at every connection
// (the name is resolved, every address checked, and the connection made to a checked address).
import ipaddr from 'ipaddr.js';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { invalid } from '../../core/errors.js';
import { WEBHOOK_URL_LENGTH_MAX } from '../../core/limits.js';

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
 * Whether an address is public: ipaddr.js names the special ranges (loopback, private, link-local, CGNAT,
 * benchmarking and documentation, reserved, multicast, unspecified, unique-local...), and only plain unicast passes.
 * IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4, Teredo) are refused outright.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.parse(address).range() === 'unicast';
}

const refuse = (reason: string) =>
  invalid(`Invalid webhookUrl: ${reason}.`, [{ path: 'webhookUrl', message: reason }]);

/** The host of a URL as the WHATWG parser canonicalized it (IPv4 in any spelling becomes dotted decimal). */
const bareHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();

function checkName(host: string, policy: UrlPolicy): void {
  const name = host.replace(/\.$/, '');
  if (!policy.allowPrivate && (LOCAL_NAMES.includes(name) || LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix)))) {
    throw refuse(`the host ${name} is a local name`);
  }
  const denied = policy.denyDomains.find((domain) => name === domain || name.endsWith(`.${domain}`));
  if (denied) throw refuse(`the domain ${denied} is not allowed`);
}

/** Parses and checks a URL as set by PUT: shape, name, and (when it resolves) every address. A name that does not resolve yet is accepted. */
export async function checkWebhookUrl(text: string, policy: UrlPolicy): Promise<URL> {
  if (text.length > WEBHOOK_URL_LENGTH_MAX) throw refuse(`must be at most ${WEBHOOK_URL_LENGTH_MAX} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('is not a valid URL');
  }
  if (url.protocol !== 'https:') throw refuse('must use https');
  if (url.username || url.password) throw refuse('must not carry a user name or password');
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
