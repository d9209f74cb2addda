// The storage rules under the API: durability settings, tenant-leading indexes, the audit chain and the outbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BetterSqlite3 } from '../../src/store/sqlite/driver.js';
import { randomUUID } from 'node:crypto';
import { SqliteStore } from '../../src/store/sqlite/sqliteStore.js';
import { auditHash } from '../../src/core/audit.js';
import { hexOf, toEntry } from '../../src/store/sql/mappers.js';
import { EVENT_TYPES } from '../../src/store/sql/storedNames.js';
import { client, createTenant, fiat, makeAccount, post, useServerWithAccounts } from '../helpers/server.js';
import { expectError } from '../helpers/expect.js';

describe('storage', () => {
  let transactionId: string;

  const t = useServerWithAccounts({ accounts: { cash: { name: 'acct', type: 'ASSET' }, sales: { name: 'acct', type: 'REVENUE' } } });
  beforeAll(async () => {
    const c = t.client;
    const { cash, sales } = t.accounts;
    const res = await post(c, [fiat(cash, 'DEBIT', '5.00'), fiat(sales, 'CREDIT', '5.00')]);
    expect(res.status, res.text).toBe(201);
    transactionId = res.body.transactionId;
    const key = await c.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    expect(key.status, key.text).toBe(201);
    expect((await c.del(`/api/v1/api-keys/${key.body.id}`)).status).toBe(204);
  });

  /** A client of a tenant of its own, so that what a test writes leaves the first tenant's exact history alone. */
  const ownTenant = async () => {
    const tenant = await createTenant(t.dbPath, 'Own');
    return { tenantId: tenant.tenantId, c: client(t.url, tenant.apiKey.rawKey) };
  };

  it('opens every connection in WAL mode with synchronous=FULL and foreign keys on', async () => {
    const store = await SqliteStore.open(t.dbPath);
    try {
      expect(store.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(Number(store.sqlite.pragma('synchronous', { simple: true }))).toBe(2);
      expect(Number(store.sqlite.pragma('foreign_keys', { simple: true }))).toBe(1);
    } finally {
      await store.close();
    }
  });

  // Instance-level tables hold no tenant's data: the database's own secrets, the tenants, and where each chain
  // watcher stopped (one scan of a chain serves every tenant).
  it('leads every index with tenant_id, except the key-hash lookup that finds the tenant', () => {
    const db = new BetterSqlite3(t.dbPath, { readonly: true });
    try {
      const indexes = db
        .prepare("SELECT name, tbl_name AS tbl FROM sqlite_master WHERE type = 'index' AND tbl_name NOT IN ('kysely_migration', 'kysely_migration_lock', 'instance_secrets', 'tenants', 'chain_checkpoints')")
        .all() as Array<{ name: string; tbl: string }>;
      expect(indexes.length).toBeGreaterThan(5);
      for (const { name } of indexes) {
        const first = (db.prepare(`PRAGMA index_info(${JSON.stringify(name)})`).all() as Array<{ name: string }>)[0]?.name;
        if (name === 'api_keys_key_hash') expect(first).toBe('key_hash');
        else expect(first, name).toBe('tenant_id');
      }
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'kysely%' AND name NOT IN ('instance_secrets', 'tenants', 'chain_checkpoints', 'sqlite_sequence')").all() as Array<{ name: string }>;
      for (const { name } of tables) {
        const columns = (db.prepare(`PRAGMA table_info(${JSON.stringify(name)})`).all() as Array<{ name: string }>).map((c) => c.name);
        expect(columns, name).toContain('tenant_id');
      }
    } finally {
      db.close();
    }
  });

  it('appends an audit record for every state change, chained by hash per tenant', () => {
    const db = new BetterSqlite3(t.dbPath, { readonly: true });
    try {
      // The hashes are stored as their bytes (migration 0023); the chain is read here in hexadecimal, as the API shows it.
      const rows = (db.prepare('SELECT * FROM audit_log WHERE tenant_id = (select id from tenants where public_id = ?) ORDER BY seq').all(t.tenant.tenantId) as Array<Record<string, string | Buffer | null>>).map(
        (r) => ({ ...r, hash: hexOf(r.hash as Buffer), prev_hash: r.prev_hash === null ? null : hexOf(r.prev_hash as Buffer) }) as Record<string, string | null>,
      );
      expect(rows.map((r) => r.action)).toEqual([
        'CREATE_TENANT',
        'CREATE_API_KEY',
        'CREATE_ACCOUNT',
        'CREATE_ACCOUNT',
        'POST_TRANSACTION',
        'CREATE_API_KEY',
        'REVOKE_API_KEY',
      ]);
      let prev: string | null = null;
      for (const r of rows) {
        expect(r.type).toBe('HUMAN');
        expect(r.prev_hash).toBe(prev);
        const record = {
          id: r.id!,
          type: r.type as 'HUMAN',
          action: r.action as 'CREATE_TENANT',
          actorKeyId: r.actor_key_id!,
          occurredAt: r.occurred_at!,
          payload: JSON.parse(r.payload!) as Record<string, unknown>,
          prevHash: prev,
        };
        expect(r.hash).toBe(auditHash(record));
        prev = r.hash!;
      }
      const posting = rows.find((r) => r.action === 'POST_TRANSACTION')!;
      expect(JSON.parse(posting.payload!)).toMatchObject({ transactionId });
      expect(posting.actor_key_id).toBe(t.tenant.apiKey.id);
      expect(rows[0]!.actor_key_id).toBe('cli');
      // Prefixes (12 characters) may appear; a whole raw key never does.
      for (const r of rows) expect(r.payload).not.toMatch(/sk_live_[0-9a-f]{32}/);
    } finally {
      db.close();
    }
  });

  it("stores a fiat line's details in its view alone, and reads them back from it", () => {
    const db = new BetterSqlite3(t.dbPath, { readonly: true });
    try {
      const rows = db.prepare('SELECT * FROM entries WHERE transaction_id = ? ORDER BY line_no').all(transactionId) as Array<Parameters<typeof toEntry>[0]>;
      expect(rows.map((r) => r.details)).toEqual(['', '']);
      expect(rows.map((r) => toEntry(r).details)).toEqual([
        { kind: 'FIAT', rail: 'ACH', bankReference: null },
        { kind: 'FIAT', rail: 'ACH', bankReference: null },
      ]);
      // Rows written before keep their details' JSON, read as it is.
      expect(toEntry({ ...rows[0]!, details: '{"kind":"FIAT","rail":"PIX","bankReference":"r-1"}' }).details).toEqual({ kind: 'FIAT', rail: 'PIX', bankReference: 'r-1' });
    } finally {
      db.close();
    }
  });

  it('writes a transaction.committed outbox event whose body is the transaction with its lines, stored once', () => {
    const db = new BetterSqlite3(t.dbPath, { readonly: true });
    try {
      const events = db
        .prepare(
          `SELECT o.type, o.payload AS own, o.transaction_id, t.document AS payload FROM outbox o
           JOIN transactions t ON t.tenant_id = o.tenant_id AND t.id = o.transaction_id WHERE o.tenant_id = (select id from tenants where public_id = ?)`,
        )
        .all(t.tenant.tenantId) as Array<{ type: string; own: string; transaction_id: string; payload: string }>;
      expect(events).toHaveLength(1);
      // Its type is stored as a character (src/store/sql/storedNames.ts).
      expect(events[0]!.type).toBe('c');
      expect(EVENT_TYPES.name(events[0]!.type)).toBe('transaction.committed');
      // The document is not copied into the event: the event refers to its transaction.
      expect(events[0]!.own).toBe('');
      expect(events[0]!.transaction_id).toBe(transactionId);
      const data = JSON.parse(events[0]!.payload);
      expect(data.transactionId).toBe(transactionId);
      expect(data.lines).toHaveLength(2);
      expect(data.lines[0].monetary).toMatchObject({ type: 'FIAT', amount: 5, currency: 'USD' });
    } finally {
      db.close();
    }
  });

  it('answers 503 UNAVAILABLE, writing nothing, while another process holds the write lock past the busy timeout', async () => {
    const { c } = await ownTenant();
    const a = await makeAccount(c);
    const b = await makeAccount(c);
    const other = new BetterSqlite3(t.dbPath);
    other.exec('BEGIN IMMEDIATE');
    try {
      const res = await post(c, [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')], { key: 'busy-1' });
      expectError(res, 503, 'UNAVAILABLE');
      expect(res.headers.get('retry-after')).toBe('1');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    // Nothing was written and the key was not consumed.
    expect((await c.get(`/api/v1/accounts/${a}/entries`)).body.entries).toEqual([]);
    expect((await post(c, [fiat(a, 'DEBIT', '1.00'), fiat(b, 'CREDIT', '1.00')], { key: 'busy-1' })).status).toBe(201);
  });

  it('keeps balances, running balances and the audit chain right when concurrent postings share a commit, some failing', async () => {
    const { c, tenantId } = await ownTenant();
    const accounts = [await makeAccount(c), await makeAccount(c), await makeAccount(c)];
    const requests = Array.from({ length: 60 }, (_, i) => {
      const a = accounts[i % 3]!;
      const b = accounts[(i + 1) % 3]!;
      // Every fifth posting credits an account that does not exist: it fails in the writer, inside the shared
      // commit, and its savepoint rolls back.
      return post(c, [fiat(a, 'DEBIT', `${i + 1}.00`), fiat(i % 5 === 4 ? randomUUID() : b, 'CREDIT', `${i + 1}.00`)]);
    });
    const results = await Promise.all(requests);
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(48);
    expect(statuses.filter((s) => s === 422)).toHaveLength(12);
    results.forEach((r, i) => (i % 5 === 4 ? expectError(r, 422, 'ACCOUNT_NOT_FOUND') : expect(r.status, r.text).toBe(201)));

    const db = new BetterSqlite3(t.dbPath, { readonly: true });
    try {
      for (const account of accounts) {
        const entries = db.prepare('SELECT entry_type, amount, balance_after FROM entries WHERE account_id = ? ORDER BY seq').all(account) as Array<{ entry_type: string; amount: string; balance_after: string }>;
        let running = 0n;
        for (const e of entries) {
          running += e.entry_type === 'DEBIT' ? BigInt(e.amount) : -BigInt(e.amount);
          expect(BigInt(e.balance_after)).toBe(running);
        }
        const kept = db.prepare('SELECT balance FROM balances WHERE account_id = ?').get(account) as { balance: string } | undefined;
        expect(BigInt(kept?.balance ?? '0')).toBe(running);
      }
      const chain = db.prepare('SELECT prev_hash, hash FROM audit_log WHERE tenant_id = (select id from tenants where public_id = ?) ORDER BY seq').all(tenantId) as Array<{ prev_hash: Buffer | null; hash: Buffer }>;
      // the tenant's record, its key's, three accounts' and the 48 postings'
      expect(chain).toHaveLength(2 + 3 + 48);
      chain.forEach((r, i) => expect(r.prev_hash).toEqual(i === 0 ? null : chain[i - 1]!.hash));
    } finally {
      db.close();
    }
  });

  it('a failed posting leaves no audit record and no event', async () => {
    const { c } = await ownTenant();
    const a = await makeAccount(c);
    const db = new BetterSqlite3(t.dbPath, { readonly: true });
    const count = () => (db.prepare('SELECT (SELECT count(*) FROM audit_log) + (SELECT count(*) FROM outbox) AS n').get() as { n: number }).n;
    try {
      const before = count();
      const res = await post(c, [fiat(a, 'DEBIT', '1.00'), fiat(a, 'CREDIT', '2.00')]);
      expectError(res, 422, 'UNBALANCED');
      expect(count()).toBe(before);
    } finally {
      db.close();
    }
  });
});
