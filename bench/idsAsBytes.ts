// `npx tsx bench/idsAsBytes.ts` (issue 33, part 3): what storing ids as their 16 bytes and times as integers would save.
// The posting's tables and indexes as the ledger has them (migration 0023: the tenant's key, digests as bytes, names
// as a character), written with the raw writes' rows (a 2-line posting with metadata and a description), twice on
// fresh files in 8 KiB pages: ids (UUIDs) and times as text, as stored today, then as BLOBs of 16 bytes and integer
// milliseconds. The texts (the document, the views, the payloads) are the same in both: they are stored as answered.
// Prints the growth of each file a posting after a checkpoint.
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v7 } from 'uuid';
import { BetterSqlite3 as D } from '../src/store/sqlite/driver.js';

function ddl(binary: boolean): string {
  const ID = binary ? 'blob' : 'text';
  const T = binary ? 'integer' : 'text';
  return `
CREATE TABLE transactions (seq integer primary key, tenant_id text not null, id ${ID} not null, document text not null, created_at ${T} not null);
CREATE UNIQUE INDEX transactions_tenant_id on transactions (tenant_id, id);
CREATE INDEX transactions_tenant_seq on transactions (tenant_id, seq);
CREATE INDEX transactions_tenant_time on transactions (tenant_id, created_at, seq);
CREATE TABLE entries (seq integer primary key, tenant_id text not null, transaction_id ${ID} not null, account_id ${ID} not null, line_no integer not null, entry_type text not null, asset text not null, amount text not null, details text not null, description text, created_at ${T} not null, balance_after text not null, view text not null);
CREATE INDEX entries_tenant_account_asset_time on entries (tenant_id, account_id, asset, created_at, seq);
CREATE INDEX entries_tenant_transaction_onchain on entries (tenant_id, transaction_id, line_no) where asset in ('USDC', 'USDT', 'BRZ', 'PYUSD');
CREATE TABLE balances (tenant_id text not null, account_id ${ID} not null, asset text not null, balance text not null, limit_min text, limit_max text, pending_out text default '0' not null, pending_in text default '0' not null, primary key (tenant_id, account_id, asset));
CREATE TABLE audit_log (seq integer primary key, tenant_id text not null, id ${ID} not null, type text not null, action text not null, actor_key_id ${ID} not null, occurred_at ${T} not null, payload text not null, prev_hash blob, hash blob not null);
CREATE INDEX audit_log_tenant_time on audit_log (tenant_id, occurred_at, seq);
CREATE INDEX audit_log_tenant_agent_seq on audit_log (tenant_id, seq) where type = 'AGENT';
CREATE INDEX audit_log_tenant_seq on audit_log (tenant_id, seq);
CREATE TABLE outbox (seq integer primary key, tenant_id text not null, id ${ID} not null, type text not null, payload text not null, created_at ${T} not null, transaction_id ${ID});
CREATE INDEX outbox_tenant_seq on outbox (tenant_id, seq);
CREATE UNIQUE INDEX outbox_tenant_id on outbox (tenant_id, id);
CREATE INDEX outbox_tenant_type_seq on outbox (tenant_id, type, seq);
CREATE TABLE transaction_accounts (tenant_id text not null, account_id ${ID} not null, tx_seq integer not null, primary key (tenant_id, account_id, tx_seq)) WITHOUT ROWID;
CREATE TABLE idempotency (tenant_id text not null, endpoint text not null, key text not null, request_hash blob not null, status integer not null, body text not null, created_at ${T} not null, primary key (tenant_id, endpoint, key)) WITHOUT ROWID;`;
}

const bytesOf = (uuid: string) => Buffer.from(uuid.replace(/-/g, ''), 'hex');
function run(binary: boolean, file: string): number {
  rmSync(file, { force: true });
  const db = new D(file);
  db.pragma('page_size = 8192');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(ddl(binary));
  const id = (u: string) => (binary ? bytesOf(u) : u);
  const time = (iso: string) => (binary ? Date.parse(iso) : iso);
  const s = {
    tx: db.prepare('INSERT INTO transactions (tenant_id, id, document, created_at) VALUES (?, ?, ?, ?)'),
    acc: db.prepare('INSERT INTO transaction_accounts (tenant_id, account_id, tx_seq) VALUES (?, ?, ?), (?, ?, ?)'),
    entry: db.prepare('INSERT INTO entries (tenant_id, transaction_id, account_id, line_no, entry_type, asset, amount, details, description, created_at, balance_after, view) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)'),
    bal: db.prepare('INSERT INTO balances (tenant_id, account_id, asset, balance) VALUES (?, ?, ?, ?) ON CONFLICT (tenant_id, account_id, asset) DO UPDATE SET balance = excluded.balance'),
    idem: db.prepare('INSERT INTO idempotency (tenant_id, endpoint, key, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, 201, ?, ?)'),
    audit: db.prepare('INSERT INTO audit_log (tenant_id, id, type, action, actor_key_id, occurred_at, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'),
    out: db.prepare('INSERT INTO outbox (tenant_id, id, type, payload, created_at, transaction_id) VALUES (?, ?, ?, ?, ?, ?)'),
  };
  const tenant = '1';
  const accounts = Array.from({ length: 64 }, () => v7());
  const actor = v7();
  const balances = new Map<string, bigint>();
  let prev: Buffer | null = null;
  const write = (k: number) => {
    const txId = v7();
    const at = new Date().toISOString();
    const pair = [accounts[k % 64]!, accounts[(k + 1) % 64]!];
    const lines = pair.map((accountId, lineNo) => {
      const entryId = v7();
      const balance = (balances.get(accountId) ?? 0n) + (lineNo === 0 ? 1234n : -1234n);
      balances.set(accountId, balance);
      const view = JSON.stringify({ entryId, transactionId: txId, type: lineNo === 0 ? 'DEBIT' : 'CREDIT', monetary: { type: 'FIAT', amount: 12.34, currency: 'USD', rail: 'ACH', bankReference: null }, description: 'order 1234', createdAt: at });
      return { accountId, lineNo, balance, view };
    });
    const document = JSON.stringify({ transactionId: txId, metadata: { order: `o-${k}` }, lines: lines.map((l) => ({ ...JSON.parse(l.view), accountId: l.accountId })), createdAt: at, reversesTransactionId: null, reversedByTransactionId: null });
    const seq = s.tx.run(tenant, id(txId), document, time(at)).lastInsertRowid;
    s.acc.run(tenant, id(pair[0]!), seq, tenant, id(pair[1]!), seq);
    for (const l of lines) s.entry.run(tenant, id(txId), id(l.accountId), l.lineNo, l.lineNo === 0 ? 'DEBIT' : 'CREDIT', 'USD', '1234', '', time(at), l.balance.toString(), l.view);
    for (const l of lines) s.bal.run(tenant, id(l.accountId), 'USD', l.balance.toString());
    const key = `raw-${k}-${randomUUID()}`;
    s.idem.run(tenant, 'p', key, createHash('sha256').update(document).digest(), JSON.stringify({ transactionId: txId }), time(at));
    const payload = JSON.stringify({ transactionId: txId, lineCount: 2, idempotencyKey: key });
    const hash = createHash('sha256').update(`${prev?.toString('hex') ?? ''}|${at}|${payload}`).digest();
    s.audit.run(tenant, id(v7()), 'HUMAN', 'POST_TRANSACTION', id(actor), time(at), payload, prev, hash);
    prev = hash;
    s.out.run(tenant, id(v7()), 'c', '{}', time(at), id(txId));
  };
  const group = db.transaction((from: number, to: number) => {
    for (let k = from; k < to; k++) write(k);
  });
  for (let n = 0; n < 500; n += 16) group(n, n + 16);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const before = statSync(file).size;
  const N = 3000;
  for (let n = 500; n < 500 + N; n += 16) group(n, Math.min(n + 16, 500 + N));
  db.pragma('wal_checkpoint(TRUNCATE)');
  const after = statSync(file).size;
  db.close();
  return (after - before) / N;
}
const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-ids-'));
try {
  for (let round = 0; round < 2; round++) {
    const text = run(false, join(dir, 'text.db'));
    const binary = run(true, join(dir, 'binary.db'));
    console.log(`round ${round}: ids and times as text ${text.toFixed(0)} bytes a posting; ids as 16 bytes and times as integers ${binary.toFixed(0)}; saved ${(text - binary).toFixed(0)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
