// Migrations 0018 to 0022 (issue 33, part 3) on a ledger written before them: the keyed tables and the idempotency
// records rebuilt WITHOUT ROWID on SQLite (untouched on PostgreSQL) keep every row as it was, but for the tenant,
// which every row now names by its key (0020), the endpoint, by its character (0022), and the hashes, by their bytes
// (0023); a key used before still finds its record, and an audit chain written before still verifies.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../../src/store/open.js';
import { cli } from '../../helpers/server.js';
import { TEST_ENGINE } from '../../helpers/postgres.js';
import { sqlOn } from '../../helpers/sql.js';
import { ledgerAtMigration } from '../../helpers/migrations.js';
import { auditHash } from '../../../src/core/audit.js';

const KEYED = [
  ['transaction_metadata', 'tenant_id, key, value, tx_seq'],
  ['transaction_accounts', 'tenant_id, account_id, tx_seq'],
  ['account_metadata', 'tenant_id, key, value, account_seq'],
  ['idempotency', 'tenant_id, endpoint, key'],
] as const;

describe('migrations 0018 to 0022 on a ledger written before them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-0019-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every row of the rebuilt tables, and a key used before still finds its record', async () => {
    const db = await ledgerAtMigration(dir, '0017_trial_balance');
    const [tenant, account, tx] = Array.from({ length: 3 }, () => randomUUID());
    const at = '2030-01-01T00:00:00.000Z';
    await sqlOn(db, 'INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)', [tenant, 'Old', at]);
    await sqlOn(db, "INSERT INTO transaction_metadata (tenant_id, key, value, tx_seq) VALUES (?, 'order', '1001', 1), (?, 'order', '1002', 2)", [tenant, tenant]);
    await sqlOn(db, 'INSERT INTO transaction_accounts (tenant_id, account_id, tx_seq) VALUES (?, ?, 1), (?, ?, 2)', [tenant, account, tenant, account]);
    await sqlOn(db, "INSERT INTO account_metadata (tenant_id, key, value, account_seq) VALUES (?, 'team', 'ops', 1)", [tenant]);
    const answer = JSON.stringify({ transactionId: tx });
    const requestHash = 'ab'.repeat(32);
    await sqlOn(db, "INSERT INTO idempotency (tenant_id, endpoint, key, request_hash, status, body, created_at) VALUES (?, 'POST /api/v1/transactions', 'k-1', ?, 201, ?, ?)", [tenant, requestHash, answer, at]);
    // A chain of two audit records, hashed as the ledger hashes them: carried over the tenant's key (0020) and the
    // hashes' bytes (0023), it still verifies.
    const chain: string[] = [];
    for (const [action, payload] of [['CREATE_TENANT', { tenantId: tenant, name: 'Old' }], ['CREATE_ACCOUNT', { accountId: account }]] as const) {
      const record = { id: randomUUID(), type: 'HUMAN' as const, action, actorKeyId: 'cli', occurredAt: at, payload, prevHash: chain.at(-1) ?? null };
      chain.push(auditHash(record));
      await sqlOn(db, 'INSERT INTO audit_log (tenant_id, id, type, action, actor_key_id, occurred_at, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
        tenant, record.id, record.type, action, record.actorKeyId, at, JSON.stringify(payload), record.prevHash, chain.at(-1),
      ]);
    }
    const event = randomUUID();
    await sqlOn(db, "INSERT INTO outbox (tenant_id, id, type, payload, created_at) VALUES (?, ?, 'settlement.matched', '{}', ?)", [tenant, event, at]);
    const rowsOf = async () => {
      const all: Record<string, unknown[]> = {};
      for (const [table, key] of KEYED) all[table] = (await sqlOn(db, `SELECT * FROM ${table} ORDER BY ${key}`)).rows;
      return all;
    };
    const before = await rowsOf();

    const migrated = await cli(['--db', db, 'db', 'migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain('0018_keyed_tables_without_rowid');
    expect(migrated.stdout).toContain('0019_audit_head_by_row');
    expect(migrated.stdout).toContain('0020_tenant_keys');
    expect(migrated.stdout).toContain('0022_stored_names');
    const { rows: tenants } = await sqlOn<{ id: string; public_id: string }>(db, 'SELECT id, public_id FROM tenants');
    expect(tenants).toEqual([{ id: '1', public_id: tenant }]);
    // Every row names the tenant by its key (0020); the idempotency record its endpoint by its character (0022) and
    // its request hash by its bytes (0023).
    const keyed = Object.fromEntries(
      Object.entries(before).map(([table, rows]) => [
        table,
        rows.map((r) => ({ ...(r as object), tenant_id: '1', ...(table === 'idempotency' ? { endpoint: 't', request_hash: Buffer.from(requestHash, 'hex') } : {}) })),
      ]),
    );
    expect(await rowsOf()).toEqual(keyed);
    if (TEST_ENGINE === 'sqlite') {
      for (const [table] of KEYED) {
        const { rows } = await sqlOn<{ sql: string }>(db, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [table]);
        expect(rows[0]!.sql, table).toMatch(/WITHOUT ROWID$/);
      }
    }
    // The store reads the carried record as it reads one written since: a replay would answer it.
    const opened = await openLedger(db, { writer: 'local' });
    try {
      expect(await opened.store.idempotency(tenant!, 'POST /api/v1/transactions', 'k-1')).toMatchObject({ requestHash, status: 201, body: answer });
      expect((await opened.store.auditChainPage(tenant!, 0, 10)).map((r) => [r.prevHash, r.hash])).toEqual([[null, chain[0]], [chain[0], chain[1]]]);
    expect((await sqlOn<{ n: number | string }>(db, 'SELECT length(hash) AS n FROM audit_log')).rows.map((r) => Number(r.n))).toEqual([32, 32]);
    const verified = await cli(['--db', db, 'audit', 'verify', '--tenant', tenant!]);
    expect(verified.code, verified.stderr + verified.stdout).toBe(0);
    // The carried event is found by its type, and read with its type's name.
      const found = [];
      for await (const e of opened.store.eventsPage(tenant!, 0, 10, ['settlement.matched'])) found.push(e);
      expect(found).toMatchObject([{ id: event, tenantId: tenant, type: 'settlement.matched', payload: '{}' }]);
      expect((await sqlOn<{ type: string }>(db, 'SELECT type FROM outbox')).rows).toEqual([{ type: 'm' }]);
    } finally {
      await opened.close();
    }
  });
});
