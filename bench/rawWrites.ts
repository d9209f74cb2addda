// The floor of a posting's write (issue 33): the rows POST /api/v1/transactions writes for a 2-line posting (the
// transaction with its document, its accounts for the search, two entries with running balances and views, two
// kept balances, the idempotency record, the audit record with its chained hash, the event), written straight through
// better-sqlite3 with prepared statements into the ledger's own schema and indexes, WAL and synchronous=FULL, in
// groups of `group` a transaction, with no savepoint and nothing else. What the ledger's path costs beyond it is its
// own.
import { createHash, randomUUID } from 'node:crypto';
import { BetterSqlite3 } from '../src/store/sqlite/driver.js';
import { EVENT_TYPES, IDEMPOTENT_ENDPOINTS } from '../src/store/sql/storedNames.js';

export interface RawFigures {
  postings: number;
  group: number;
  cpuUsPerPosting: number;
  wallUsPerPosting: number;
}

/** Writes `postings` 2-line postings between the given accounts of the tenant into a migrated ledger file. */
export function rawWrites(file: string, publicTenantId: string, accounts: readonly string[], postings: number, group: number): RawFigures {
  const db = new BetterSqlite3(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    // The rows hold the tenant's key (src/store/sql/tenantKeys.ts).
    const tenantId = db.prepare('SELECT id FROM tenants WHERE public_id = ?').pluck().get(publicTenantId) as string;
    const insertTransaction = db.prepare('INSERT INTO transactions (tenant_id, id, document, created_at) VALUES (?, ?, ?, ?)');
    const insertAccounts = db.prepare('INSERT INTO transaction_accounts (tenant_id, account_id, tx_seq) VALUES (?, ?, ?), (?, ?, ?)');
    const insertEntry = db.prepare(
      'INSERT INTO entries (tenant_id, transaction_id, account_id, line_no, entry_type, asset, amount, details, description, created_at, balance_after, view) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)',
    );
    const setBalance = db.prepare('INSERT INTO balances (tenant_id, account_id, asset, balance) VALUES (?, ?, ?, ?) ON CONFLICT (tenant_id, account_id, asset) DO UPDATE SET balance = excluded.balance');
    const insertIdempotency = db.prepare('INSERT INTO idempotency (tenant_id, endpoint, key, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, 201, ?, ?)');
    const insertAudit = db.prepare('INSERT INTO audit_log (tenant_id, id, type, action, actor_key_id, occurred_at, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const insertOutbox = db.prepare('INSERT INTO outbox (tenant_id, id, type, payload, created_at, transaction_id) VALUES (?, ?, ?, ?, ?, ?)');
    const balances = new Map<string, bigint>();
    // Names and digests as the ledger stores them (src/store/sql/storedNames.ts, mappers.ts).
    const endpoint = IDEMPOTENT_ENDPOINTS.stored('POST /api/v1/transactions');
    const committed = EVENT_TYPES.stored('transaction.committed');
    let prevHash: Buffer | null = null;
    const details = ''; // a fiat line's details are in its view (src/store/sql/mappers.ts, storedDetails)
    const write = (k: number) => {
      const id = randomUUID();
      const at = new Date().toISOString();
      const pair = [accounts[k % accounts.length]!, accounts[(k + 1) % accounts.length]!];
      const lines = pair.map((accountId, lineNo) => {
        const entryId = randomUUID();
        const signed = lineNo === 0 ? 1234n : -1234n;
        const balance = (balances.get(accountId) ?? 0n) + signed;
        balances.set(accountId, balance);
        const view = JSON.stringify({ entryId, transactionId: id, type: lineNo === 0 ? 'DEBIT' : 'CREDIT', monetary: { type: 'FIAT', amount: 12.34, currency: 'USD', rail: 'ACH', bankReference: null }, createdAt: at });
        return { accountId, entryId, lineNo, balance, view };
      });
      const document = JSON.stringify({ transactionId: id, metadata: {}, lines: lines.map((l) => ({ ...JSON.parse(l.view), accountId: l.accountId })), createdAt: at });
      const seq = insertTransaction.run(tenantId, id, document, at).lastInsertRowid;
      insertAccounts.run(tenantId, pair[0], seq, tenantId, pair[1], seq);
      for (const l of lines) insertEntry.run(tenantId, id, l.accountId, l.lineNo, l.lineNo === 0 ? 'DEBIT' : 'CREDIT', 'USD', '1234', details, at, l.balance.toString(), l.view);
      for (const l of lines) setBalance.run(tenantId, l.accountId, 'USD', l.balance.toString());
      const key = `raw-${k}`;
      insertIdempotency.run(tenantId, endpoint, key, createHash('sha256').update(document).digest(), JSON.stringify({ transactionId: id }), at);
      const payload = JSON.stringify({ transactionId: id, lineCount: 2, idempotencyKey: key });
      const hash = createHash('sha256').update(`${prevHash?.toString('hex') ?? ''}|${at}|POST_TRANSACTION|${payload}`).digest();
      insertAudit.run(tenantId, randomUUID(), 'HUMAN', 'POST_TRANSACTION', 'bench', at, payload, prevHash, hash);
      prevHash = hash;
      insertOutbox.run(tenantId, randomUUID(), committed, '{}', at, id);
    };
    const groupOf = db.transaction((from: number, to: number) => {
      for (let k = from; k < to; k++) write(k);
    });
    const began = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    for (let n = 0; n < postings; n += group) groupOf(n, Math.min(n + group, postings));
    const used = process.cpuUsage(cpu);
    const wallUs = Number(process.hrtime.bigint() - began) / 1e3;
    return { postings, group, cpuUsPerPosting: (used.user + used.system) / postings, wallUsPerPosting: wallUs / postings };
  } finally {
    db.close();
  }
}
