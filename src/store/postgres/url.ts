// A PostgreSQL URL as messages show it, apart from the driver so that SQLite commands never load pg.
/** The URL without its password, for messages and logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the PostgreSQL URL given';
  }
}
