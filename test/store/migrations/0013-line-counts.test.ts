// Migration 0013 (issue 29): holds and agent transactions written before it get their line counts from their stored
// request, so the weight of a capture, void, expiry, approval or rollback is right on an upgraded database too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/server.js';
import { sqlOn } from '../../helpers/sql.js';
import { ledgerAtMigration } from '../../helpers/migrations.js';

describe('migration 0013: line counts of holds and agent transactions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-0013-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('counts the lines of every hold and agent transaction written before it', async () => {
    const db = await ledgerAtMigration(dir, '0012_holds');
    const input = (n: number) => JSON.stringify({ metadata: {}, lines: Array.from({ length: n }, () => ({ accountId: 'a', amountMinor: '1' })) });
    await sqlOn(db, "INSERT INTO tenants (id, name, created_at) VALUES ('t', 'T', '2030-01-01T00:00:00.000Z')");
    for (const [id, n] of [['h3', 3], ['h1000', 1000]] as const) {
      await sqlOn(db, "INSERT INTO holds (tenant_id, id, status, input, expires_at, created_at) VALUES ('t', ?, 'PENDING', ?, '2030-01-02T00:00:00.000Z', '2030-01-01T00:00:00.000Z')", [id, input(n)]);
    }
    await sqlOn(
      db,
      "INSERT INTO agent_transactions (tenant_id, id, status, session_id, actor_key_id, input, debits, created_at) VALUES ('t', 'a7', 'POSTED', 's', 'k', ?, '{}', '2030-01-01T00:00:00.000Z')",
      [input(7)],
    );
    const migrated = await cli(['--db', db, 'db', 'migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    const counts = async (table: string) =>
      Object.fromEntries((await sqlOn<{ id: string; line_count: unknown }>(db, `SELECT id, line_count FROM ${table}`)).rows.map((r) => [r.id, Number(r.line_count)]));
    expect(await counts('holds')).toEqual({ h3: 3, h1000: 1000 });
    expect(await counts('agent_transactions')).toEqual({ a7: 7 });
  });
});
