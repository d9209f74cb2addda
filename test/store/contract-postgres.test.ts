// The store on PostgreSQL, where another process can hold the writer's locks (the postgres project alone runs it,
// vitest.config.ts): a lock held past its time-out answers 503 and writes nothing; the locks are per tenant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openLedger, type OpenLedger } from '../../src/store/open.js';
import { JsonNumber } from '../../src/core/json.js';
import type { Actor } from '../../src/core/audit.js';
import { WRITER_LOCK_KEY, writeLockStatements } from '../../src/store/postgres/connect.js';
import { freshDatabaseUrl } from '../helpers/postgres.js';

const cli: Actor = { type: 'HUMAN', keyId: 'cli' };
const usd = (accountId: string, entryType: 'DEBIT' | 'CREDIT', amount: string) => ({
  accountId,
  entryType,
  monetaryEntry: { type: 'FIAT' as const, amount: new JsonNumber(amount), currency: 'USD' as const, rail: 'ACH' as const },
});

describe('the store on PostgreSQL, beside another process holding its locks', () => {
  let db: string;
  let opened: OpenLedger;
  let tenantId: string;
  const account = async () => (await opened.ledger.accounts.create(tenantId, { name: 'a', currency: 'USD', type: 'ASSET' }, cli)).id;
  const post = (key: string, lines: ReturnType<typeof usd>[]) => opened.ledger.transactions.post(tenantId, cli, key, { lines });

  beforeAll(async () => {
    db = await freshDatabaseUrl();
    opened = await openLedger(db, { writer: 'local' });
    tenantId = (await opened.ledger.tenants.create('Contract', cli)).tenantId;
  });
  afterAll(async () => {
    await opened?.close();
  });

  it('answers 503 UNAVAILABLE, writing nothing, while another process holds the writer lock past its time-out', async () => {
    const a = await account();
    const b = await account();
    const other = new pg.Client({ connectionString: db });
    await other.connect();
    try {
      await other.query(`BEGIN; SELECT pg_advisory_xact_lock(${WRITER_LOCK_KEY})`);
      await expect(post('locked-1', [usd(a, 'DEBIT', '1.00'), usd(b, 'CREDIT', '1.00')])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      await other.query('ROLLBACK');
      await other.end();
    }
    expect(await opened.store.currentBalance(tenantId, a, 'USD')).toBe(0n);
    await post('locked-1', [usd(a, 'DEBIT', '1.00'), usd(b, 'CREDIT', '1.00')]);
    expect(await opened.store.currentBalance(tenantId, a, 'USD')).toBe(100n);
  });

  it('locks per tenant: while another process holds one tenant\'s lock, other processes write other tenants, and that tenant waits its turn', async () => {
    const a = await account();
    const b = await account();
    const otherTenant = (await opened.ledger.tenants.create('Parallel', cli)).tenantId;
    const c = (await opened.ledger.accounts.create(otherTenant, { name: 'c', currency: 'USD', type: 'ASSET' }, cli)).id;
    const d = (await opened.ledger.accounts.create(otherTenant, { name: 'd', currency: 'USD', type: 'ASSET' }, cli)).id;
    const other = new pg.Client({ connectionString: db });
    await other.connect();
    let waiting: Promise<unknown>;
    let done = false;
    try {
      await other.query(['BEGIN', ...writeLockStatements([tenantId])].join(';'));
      waiting = post('tenant-locked', [usd(a, 'DEBIT', '1.00'), usd(b, 'CREDIT', '1.00')]).finally(() => (done = true));
      // The other tenant's posting, from another writer (a process has one), commits meanwhile.
      const second = await openLedger(db, { writer: 'local' });
      try {
        await second.ledger.transactions.post(otherTenant, cli, 'not-locked', { lines: [usd(c, 'DEBIT', '2.00'), usd(d, 'CREDIT', '2.00')] });
      } finally {
        await second.close();
      }
      expect(await opened.store.currentBalance(otherTenant, c, 'USD')).toBe(200n);
      expect(done).toBe(false);
    } finally {
      await other.query('ROLLBACK');
      await other.end();
    }
    await waiting;
    expect(await opened.store.currentBalance(tenantId, a, 'USD')).toBe(100n);
    expect(await opened.ledger.audit.verifyChain(tenantId)).toMatchObject({ ok: true });
    expect(await opened.ledger.audit.verifyChain(otherTenant)).toMatchObject({ ok: true });
  });
});
