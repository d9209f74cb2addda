// Raw SQL on a test's database, whichever engine it is (a test that looks under the ledger, or changes a row by
// hand). Placeholders are written `?`; on PostgreSQL they become $1, $2, ...
import { BetterSqlite3 } from '../../src/store/sqlite/driver.js';
import pg from 'pg';

export async function sqlOn<T = Record<string, unknown>>(db: string, text: string, params: unknown[] = []): Promise<{ rows: T[]; changes: number }> {
  if (/^postgres(ql)?:\/\//.test(db)) {
    let n = 0;
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    try {
      const result = await client.query(text.replace(/\?/g, () => `$${++n}`), params);
      return { rows: result.rows as T[], changes: result.rowCount ?? 0 };
    } finally {
      await client.end();
    }
  }
  const sqlite = new BetterSqlite3(db);
  try {
    const statement = sqlite.prepare(text);
    if (statement.reader) return { rows: statement.all(...params) as T[], changes: 0 };
    return { rows: [], changes: statement.run(...params).changes };
  } finally {
    sqlite.close();
  }
}
