// A PostgreSQL URL as messages and logs show it, without the secrets it carries, read as the driver reads it. Apart from
// the driver so that SQLite commands never load pg.

/**
 * Query parameters that carry a secret: libpq's `password` and `sslpassword` (the driver honours `password` over the
 * user-info's). Matched on the name as decoded (`pass%77ord` is `password`), in any case, and wherever it appears in a
 * name: hiding one more parameter costs nothing.
 */
const SECRET_PARAMETER = /password/i;
const HIDDEN = '***';

/**
 * The URL as the driver's parser (pg-connection-string 2) reads it: spaces and stray `%` escaped first, and a URL
 * without a host (`user:pw@/db`, the host in `?host=`) given a stand-in one. Undefined when the driver could not
 * parse it either.
 */
function asTheDriverParses(url: string): { parsed: URL; hostless: boolean } | undefined {
  try {
    const escaped = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(url) ? encodeURI(url).replace(/%25(\d\d)/g, '%$1') : url;
    try {
      return { parsed: new URL(escaped, 'postgres://base'), hostless: false };
    } catch {
      return { parsed: new URL(escaped.replace('@/', '@___DUMMY___/'), 'postgres://base'), hostless: true };
    }
  } catch {
    return undefined;
  }
}

/**
 * The URL without its secrets, for messages and logs: the user-info's password and every secret parameter shown as
 * `***`, and no fragment (the driver reads nothing after `#`). A URL that cannot be parsed is not shown at all.
 */
export function redactedUrl(url: string): string {
  const read = asTheDriverParses(url);
  if (!read) return 'the PostgreSQL URL given (not shown: it is not a URL)';
  const { parsed, hostless } = read;
  // The user-info ends at the first `/`, `?` or `#`: a password holding one unescaped spills into the database name,
  // the query or the fragment, where an `@` is then left.
  if ((parsed.pathname + parsed.search + parsed.hash).includes('@')) {
    return 'the PostgreSQL URL given (not shown: an @ after its host says a password in it may hold an unescaped /, ? or #)';
  }
  const userInfo = parsed.username || parsed.password ? `${parsed.username}${parsed.password ? `:${HIDDEN}` : ''}@` : '';
  const query = new URLSearchParams([...parsed.searchParams].map(([name, value]): [string, string] => [name, SECRET_PARAMETER.test(name) ? HIDDEN : value]));
  const search = query.size > 0 ? `?${query.toString()}` : '';
  return `${parsed.protocol}//${userInfo}${hostless ? '' : parsed.host}${parsed.pathname}${search}`;
}
