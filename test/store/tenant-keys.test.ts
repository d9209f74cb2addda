// A tenant's rows hold its key, not its public id (src/store/sql/tenantKeys.ts): statements bind the key for the
// public id they are given and rows come back with the public id. What a store learned of a tenant its open write
// transaction created lasts only for that transaction: SQLite gives a rolled-back tenant's key to the next tenant.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import { TenantKeys } from '../../src/store/sql/tenantKeys.js';
import type { Tenant } from '../../src/core/types.js';

const tenant = (name: string): Tenant => ({ id: randomUUID(), name, createdAt: '2030-01-01T00:00:00.000Z' });

describe('tenant keys', () => {
  let dir: string;
  let store: SqliteStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-tenant-keys-'));
    store = await SqliteStore.open(join(dir, 'ledger.db'));
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One write transaction around `work`, ended as the group committer ends one (committed or rolled back). */
  async function inWrite(work: () => Promise<void>, end: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    store.sqlite.exec('BEGIN IMMEDIATE');
    try {
      await work();
    } finally {
      store.sqlite.exec(end);
      store.forgetWriteState();
    }
  }

  it('stores a few digits for the tenant and answers its public id', async () => {
    const acme = tenant('Acme');
    await inWrite(() => store.insertTenant(acme), 'COMMIT');
    const { id, public_id } = store.sqlite.prepare('SELECT id, public_id FROM tenants').get() as { id: string; public_id: string };
    expect(public_id).toBe(acme.id);
    expect(id).toMatch(/^\d{1,3}$/);
    expect(await store.tenant(acme.id)).toEqual(acme);
    expect(await store.tenant(id)).toBeUndefined();
    expect(await store.tenant('')).toBeUndefined();
  });

  it('forgets a tenant whose creation rolled back, whose key the next tenant gets', async () => {
    const gone = tenant('Gone');
    await inWrite(async () => {
      await store.insertTenant(gone);
      expect(await store.tenant(gone.id)).toEqual(gone); // learned inside its transaction
    }, 'ROLLBACK');
    const next = tenant('Next');
    await inWrite(() => store.insertTenant(next), 'COMMIT');
    expect(await store.tenant(next.id)).toEqual(next);
    expect(await store.tenant(gone.id)).toBeUndefined();
    const keys = store.sqlite.prepare('SELECT id FROM tenants ORDER BY seq').pluck().all() as string[];
    expect(keys).toHaveLength(2);
  });

  it('keeps what it learned of committed tenants, and drops what a rolled-back transaction created', () => {
    const keys = new TenantKeys();
    keys.learn('kept', '1');
    keys.creating('made');
    keys.learn('made', '2');
    expect([keys.key('made'), keys.publicId('2')]).toEqual(['2', 'made']);
    keys.forgetWriteState();
    expect([keys.key('made'), keys.publicId('2')]).toEqual([undefined, undefined]);
    expect([keys.key('kept'), keys.publicId('1')]).toEqual(['1', 'kept']);
  });
});
