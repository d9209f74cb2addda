// Migration 0018 (issue 33, part 3) on a ledger written before it: a transaction and its entries stored with their
// rendered texts are read as they were, byte for byte, beside the transactions written after, which store none.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { BetterSqlite3 } from '../../src/store/sqlite/driver.js';
import { openSchema } from '../../src/store/migrate.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { entryText, entryViewHead, lineText, linkedTransactionText, transactionText } from '../../src/core/views.js';
import { cli, testDb } from '../helpers/server.js';
import { TEST_ENGINE } from '../helpers/postgres.js';
import { sqlOn } from '../helpers/sql.js';

describe('migration 0018 on a ledger written before it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-0018-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a transaction and its entries stored whole as they were written', async () => {
    const db = await testDb(dir);
    if (TEST_ENGINE === 'sqlite') new BetterSqlite3(db).close();
    const schema = (await openSchema(db, { migrate: false }))!;
    try {
      const { error } = await new Migrator({ db: schema.kysely, provider: migrationProvider }).migrateTo('0017_trial_balance');
      expect(error).toBeUndefined();
    } finally {
      await schema.close();
    }
    const [tenant, cash, sales, tx] = Array.from({ length: 4 }, () => randomUUID());
    const at = '2030-01-01T00:00:00.000Z';
    await sqlOn(db, 'INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)', [tenant, 'Old', at]);
    for (const [id, name, type] of [[cash, 'cash', 'ASSET'], [sales, 'sales', 'REVENUE']]) {
      await sqlOn(db, "INSERT INTO accounts (tenant_id, id, name, description, currency, type, created_at) VALUES (?, ?, ?, NULL, 'USD', ?, ?)", [tenant, id, name, type, at]);
    }
    // As the code before 0018 wrote them: the entries' views and the document, rendered by core/views.ts.
    const lines = [
      { accountId: cash!, entryType: 'DEBIT' as const, description: 'a "quoted" é 😀' },
      { accountId: sales!, entryType: 'CREDIT' as const, description: null },
    ].map((l, lineNo) => ({ ...l, lineNo, id: randomUUID(), asset: 'USD' as const, amountMinor: 500n, details: { kind: 'FIAT' as const, rail: 'ACH' as const, bankReference: null } }));
    const heads = lines.map((l) => entryViewHead({ ...l, transactionId: tx! }));
    const document = transactionText(tx!, { order: '1001' }, lines.map((l, i) => lineText(heads[i]!, at, l.accountId)), at);
    await sqlOn(db, 'INSERT INTO transactions (tenant_id, id, document, created_at) VALUES (?, ?, ?, ?)', [tenant, tx, document, at]);
    for (const [i, l] of lines.entries()) {
      await sqlOn(
        db,
        `INSERT INTO entries (tenant_id, id, transaction_id, account_id, line_no, entry_type, asset, amount, details, description, created_at, balance_after, view)
         VALUES (?, ?, ?, ?, ?, ?, 'USD', '500', '{"kind":"FIAT","rail":"ACH","bankReference":null}', ?, ?, '500', ?)`,
        [tenant, l.id, tx, l.accountId, l.lineNo, l.entryType, l.description, at, entryText(heads[i]!, at)],
      );
    }

    const migrated = await cli(['--db', db, 'db', 'migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    const read = await cli(['--db', db, 'transactions', 'get', tx!, '--tenant', tenant!, '--json']);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout.trim()).toBe(linkedTransactionText(document, { reversesTransactionId: null, reversedByTransactionId: null }));
    const statement = await cli(['--db', db, 'statement', cash!, '--tenant', tenant!, '--from', at, '--to', at, '--json']);
    expect(statement.code, statement.stderr).toBe(0);
    expect(JSON.parse(statement.stdout).movements).toMatchObject([{ transactionId: tx, type: 'DEBIT', description: 'a "quoted" é 😀' }]);
  });
});
