// `ledger audit export` and `ledger audit verify`: the same bytes as the HTTP export, and a hash chain that exposes tampering.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BetterSqlite3, type SqliteDatabase } from '../../src/store/sqlite/driver.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';

const FROM_ALL = '2000-01-01T00:00:00.000Z';
const TO_ALL = '2100-01-01T00:00:00.000Z';

interface AuditRow {
  seq: number;
  id: string;
  payload: string;
}

describe('ledger audit', () => {
  let c: Client;
  let tenantId: string;
  let copies = 0;

  const httpExport = async (from: string, to: string, type?: string): Promise<string> => {
    const params = new URLSearchParams({ from, to, ...(type ? { type } : {}) });
    const res = await c.get(`/api/v1/compliance/audit-export?${params.toString()}`);
    expect(res.status, res.text).toBe(200);
    return res.text;
  };
  const exportArgs = (db: string, from: string, to: string, extra: string[] = []) => ['--db', db, 'audit', 'export', '--tenant', tenantId, '--from', from, '--to', to, ...extra];

  /** A consistent copy of the live database, made through SQLite's online backup (the server runs in WAL mode). */
  async function copyDb(name: string): Promise<string> {
    const target = join(t.dir, `copy-${copies++}-${name}.db`);
    const source = new BetterSqlite3(t.dbPath, { fileMustExist: true });
    try {
      await source.backup(target);
    } finally {
      source.close();
    }
    return target;
  }

  /** The tenant's audit rows of a database file in commit order. */
  function rowsOf(db: SqliteDatabase): AuditRow[] {
    return db.prepare('SELECT seq, id, payload FROM audit_log WHERE tenant_id = (select id from tenants where public_id = ?) ORDER BY seq').all(tenantId) as AuditRow[];
  }

  function tamper<T>(path: string, fn: (db: SqliteDatabase, rows: AuditRow[]) => T): T {
    const db = new BetterSqlite3(path, { fileMustExist: true });
    try {
      return fn(db, rowsOf(db));
    } finally {
      db.close();
    }
  }

  const verifyDb = (db: string) => cli(['--db', db, 'audit', 'verify', '--tenant', tenantId]);
  // No --db: verifying a file needs no database (LEDGER_DB points into the test directory so nothing lands in the repository).
  const verifyFile = (file: string) => cli(['audit', 'verify', '--file', file], { LEDGER_DB: join(t.dir, 'unused.db') });

  const broken = (run: { code: number; stdout: string; stderr: string }, id: string) => {
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    expect(run.stdout, `stdout names ${id}; stderr: ${run.stderr}`).toContain(id);
  };

  const t = useServerWithAccounts();
  beforeAll(async () => {
    c = t.client;
    tenantId = t.tenant.tenantId;
    // A dozen and more records: CREATE_TENANT, CREATE_API_KEY, then keys, accounts and postings made over HTTP.
    const cash = await makeAccount(c, { name: 'cash', currency: 'USD', type: 'ASSET' });
    const deposits = await makeAccount(c, { name: 'deposits', currency: 'USD', type: 'LIABILITY' });
    const wallet = await makeAccount(c, { name: 'wallet', currency: 'USD', type: 'ASSET' });
    for (let i = 1; i <= 6; i++) {
      const res = await post(c, [fiat(cash, 'DEBIT', `${i}.00`), fiat(deposits, 'CREDIT', `${i}.00`)]);
      if (res.status !== 201) throw new Error(`posting failed: ${res.status} ${res.text}`);
    }
    const chain = await post(c, [onchain(wallet, 'DEBIT', '2'), onchain(deposits, 'CREDIT', '2')]);
    if (chain.status !== 201) throw new Error(`posting failed: ${chain.status} ${chain.text}`);
    const key = await c.post('/api/v1/api-keys', { scopes: ['ACCOUNTS_READ'] });
    if (key.status !== 201) throw new Error(`key create failed: ${key.status} ${key.text}`);
    const revoked = await c.del(`/api/v1/api-keys/${key.body.id}`);
    if (revoked.status !== 204) throw new Error(`key revoke failed: ${revoked.status} ${revoked.text}`);
    await makeAccount(c, { name: 'fees', currency: 'USD', type: 'EXPENSE' });
  });

  describe('audit export', () => {
    it('prints byte for byte the HTTP export of the same range', async () => {
      const http = await httpExport(FROM_ALL, TO_ALL);
      expect(http.split('\n').length - 1).toBeGreaterThanOrEqual(12);
      const run = await cli(exportArgs(t.dbPath, FROM_ALL, TO_ALL));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(http);
    });

    it('prints byte for byte the HTTP export of a partial range and of each type', async () => {
      const records = (await httpExport(FROM_ALL, TO_ALL)).trimEnd().split('\n').map((l) => JSON.parse(l) as { occurredAt: string });
      const T = records[Math.floor(records.length / 2)]!.occurredAt;
      const run = await cli(exportArgs(t.dbPath, T, TO_ALL));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(await httpExport(T, TO_ALL));
      for (const type of ['ALL', 'HUMAN']) {
        const typed = await cli(exportArgs(t.dbPath, FROM_ALL, T, ['--type', type]));
        expect(typed.code, typed.stderr).toBe(0);
        expect(typed.stdout).toBe(await httpExport(FROM_ALL, T, type));
      }
    });

    it('with --type AGENT prints nothing and exits 0', async () => {
      const run = await cli(exportArgs(t.dbPath, FROM_ALL, TO_ALL, ['--type', 'AGENT']));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('');
    });

    it('without --from exits 2 with a message on stderr', async () => {
      const run = await cli(['--db', t.dbPath, 'audit', 'export', '--tenant', tenantId, '--to', TO_ALL]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trim().length).toBeGreaterThan(0);
      expect(run.stdout).toBe('');
    });

    it('with a bad --type exits 2 with a message on stderr', async () => {
      const run = await cli(exportArgs(t.dbPath, FROM_ALL, TO_ALL, ['--type', 'ROBOT']));
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trim().length).toBeGreaterThan(0);
      expect(run.stdout).toBe('');
    });

    it('with a --from that is not an instant exits 2 with a message on stderr', async () => {
      const run = await cli(exportArgs(t.dbPath, 'yesterday', TO_ALL));
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trim().length).toBeGreaterThan(0);
      expect(run.stdout).toBe('');
    });
  });

  describe('audit verify on an intact chain', () => {
    it('--tenant on the live database exits 0 and prints OK', async () => {
      const run = await verifyDb(t.dbPath);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/^OK/);
    });

    it('--tenant on an untouched copy exits 0 and prints OK', async () => {
      const run = await verifyDb(await copyDb('intact'));
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/^OK/);
    });

    it('--file on a saved full export exits 0 and prints OK', async () => {
      const file = join(t.dir, 'intact.ndjson');
      writeFileSync(file, await httpExport(FROM_ALL, TO_ALL));
      const run = await verifyFile(file);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/^OK/);
    });
  });

  describe('audit verify --tenant on a tampered database copy', () => {
    it('an edited payload in the middle → exit 1 naming that record', async () => {
      const path = await copyDb('edited');
      const target = tamper(path, (db, rows) => {
        expect(rows.length).toBeGreaterThanOrEqual(12);
        const row = rows[Math.floor(rows.length / 2)]!;
        const payload = { ...(JSON.parse(row.payload) as Record<string, unknown>), tampered: true };
        expect(db.prepare('UPDATE audit_log SET payload = ? WHERE seq = ?').run(JSON.stringify(payload), row.seq).changes).toBe(1);
        return row.id;
      });
      broken(await verifyDb(path), target);
    });

    it('a deleted record in the middle → exit 1 naming the record that followed it', async () => {
      const path = await copyDb('deleted');
      const next = tamper(path, (db, rows) => {
        const mid = Math.floor(rows.length / 2);
        expect(db.prepare('DELETE FROM audit_log WHERE seq = ?').run(rows[mid]!.seq).changes).toBe(1);
        return rows[mid + 1]!.id;
      });
      broken(await verifyDb(path), next);
    });

    it('two adjacent records swapped in the middle → exit 1 naming the one now at the earlier position', async () => {
      const path = await copyDb('swapped');
      const moved = tamper(path, (db, rows) => {
        const mid = Math.floor(rows.length / 2);
        const a = rows[mid]!;
        const b = rows[mid + 1]!;
        const setSeq = db.prepare('UPDATE audit_log SET seq = ? WHERE seq = ?');
        const temp = (db.prepare('SELECT max(seq) + 1000 AS s FROM audit_log').get() as { s: number }).s;
        db.transaction(() => {
          setSeq.run(temp, a.seq);
          setSeq.run(a.seq, b.seq);
          setSeq.run(b.seq, temp);
        })();
        const after = rowsOf(db);
        expect(after[mid]!.id).toBe(b.id);
        expect(after[mid + 1]!.id).toBe(a.id);
        return b.id;
      });
      broken(await verifyDb(path), moved);
    });
  });

  describe('audit verify --file on a tampered export', () => {
    let lines: string[];
    let ids: string[];
    let mid: number;

    beforeAll(async () => {
      const text = await httpExport(FROM_ALL, TO_ALL);
      lines = text.slice(0, -1).split('\n');
      ids = lines.map((l) => (JSON.parse(l) as { id: string }).id);
      mid = Math.floor(lines.length / 2);
    });

    const save = (name: string, content: string[]) => {
      const file = join(t.dir, `${name}.ndjson`);
      writeFileSync(file, `${content.join('\n')}\n`);
      return file;
    };

    it('an edited payload → exit 1 naming that record', async () => {
      expect(lines.length).toBeGreaterThanOrEqual(12);
      const edited = [...lines];
      const record = JSON.parse(edited[mid]!) as { payload: Record<string, unknown> };
      record.payload = { ...record.payload, tampered: true };
      edited[mid] = JSON.stringify(record);
      broken(await verifyFile(save('edited', edited)), ids[mid]!);
    });

    it('a deleted middle line → exit 1 naming the record that followed it', async () => {
      const deleted = [...lines];
      deleted.splice(mid, 1);
      broken(await verifyFile(save('deleted', deleted)), ids[mid + 1]!);
    });

    it('two adjacent lines swapped → exit 1 naming the one now at the earlier position', async () => {
      const swapped = [...lines];
      [swapped[mid], swapped[mid + 1]] = [swapped[mid + 1]!, swapped[mid]!];
      broken(await verifyFile(save('swapped', swapped)), ids[mid + 1]!);
    });
  });
});
