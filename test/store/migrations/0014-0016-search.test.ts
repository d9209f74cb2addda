// Migrations 0014 to 0016 (issues 30 and 31) on a ledger written before them: an agent rollback made earlier is a
// reversal link, a transaction's metadata and accounts are found by the new filters, and an account answers {}.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/server.js';
import { sqlOn } from '../../helpers/sql.js';
import { ledgerAtMigration } from '../../helpers/migrations.js';

describe('migrations 0014 to 0016 on a ledger written before them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-0016-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('links earlier rollbacks, indexes earlier metadata and accounts, and gives earlier accounts {}', async () => {
    const db = await ledgerAtMigration(dir, '0013_line_counts');
    const [tenant, cash, sales, original, reversal] = Array.from({ length: 5 }, () => randomUUID());
    const at = '2030-01-01T00:00:00.000Z';
    await sqlOn(db, 'INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)', [tenant, 'Old', at]);
    for (const [id, name, type] of [[cash, 'cash', 'ASSET'], [sales, 'sales', 'REVENUE']]) {
      await sqlOn(db, "INSERT INTO accounts (tenant_id, id, name, description, currency, type, created_at) VALUES (?, ?, ?, NULL, 'USD', ?, ?)", [tenant, id, name, type, at]);
    }
    const line = (tx: string, account: string, type: string) =>
      `{"entryId":"${randomUUID()}","transactionId":"${tx}","type":"${type}","monetary":{"type":"FIAT","amount":5,"currency":"USD","rail":"ACH","bankReference":null},"createdAt":"${at}","accountId":"${account}"}`;
    const post = async (tx: string, metadata: string, debit: string, credit: string) => {
      const document = `{"transactionId":"${tx}","metadata":${metadata},"lines":[${line(tx, debit, 'DEBIT')},${line(tx, credit, 'CREDIT')}],"createdAt":"${at}"}`;
      await sqlOn(db, 'INSERT INTO transactions (tenant_id, id, document, created_at) VALUES (?, ?, ?, ?)', [tenant, tx, document, at]);
      for (const [lineNo, account, type] of [[0, debit, 'DEBIT'], [1, credit, 'CREDIT']] as const) {
        await sqlOn(
          db,
          `INSERT INTO entries (tenant_id, id, transaction_id, account_id, line_no, entry_type, asset, amount, details, description, created_at, balance_after, view)
           VALUES (?, ?, ?, ?, ?, ?, 'USD', '500', '{"kind":"FIAT","rail":"ACH","bankReference":null}', NULL, ?, '0', '{}')`,
          [tenant, randomUUID(), tx, account, lineNo, type, at],
        );
      }
    };
    await post(original!, '{"order":"1001","channel":"web"}', cash!, sales!);
    await post(reversal!, `{"reversesTransactionId":"${original}"}`, sales!, cash!);
    const input = JSON.stringify({ metadata: {}, lines: [] });
    await sqlOn(
      db,
      "INSERT INTO agent_transactions (tenant_id, id, status, session_id, actor_key_id, input, debits, created_at, reversal_transaction_id) VALUES (?, ?, 'ROLLED_BACK', 's', 'k', ?, '{}', ?, ?)",
      [tenant, original, input, at, reversal],
    );

    const migrated = await cli(['--db', db, 'db', 'migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    const run = async (...args: string[]) => {
      const res = await cli(['--db', db, ...args, '--tenant', tenant!]);
      expect(res.code, res.stderr).toBe(0);
      return res.stdout;
    };
    const found = async (...filters: string[]) =>
      (await run('transactions', 'list', ...filters, '--json'))
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).transactionId as string);
    expect(await found('--metadata', 'order=1001', '--metadata', 'channel=web')).toEqual([original]);
    expect((await found('--account', sales!)).sort()).toEqual([original, reversal].sort());
    const read = JSON.parse(await run('transactions', 'get', original!, '--json'));
    expect(read.reversedByTransactionId).toBe(reversal);
    expect(JSON.parse(await run('transactions', 'get', reversal!, '--json')).reversesTransactionId).toBe(original);
    const accounts = JSON.parse(await run('accounts', 'list', '--json')).items as Array<{ metadata: unknown }>;
    expect(accounts.map((a) => a.metadata)).toEqual([{}, {}]);
  });
});
