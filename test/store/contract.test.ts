// The store's contract, the same cases over each adapter: the sqlite project runs them on a SQLite file, the
// postgres project on a PostgreSQL database. Each case speaks to the ports (core/ports.ts) through the one
// composition root, as the server and the CLI do. PostgreSQL's writer locks are in contract-postgres.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger, type OpenLedger } from '../../src/store/open.js';
import { JsonNumber } from '../../src/core/json.js';
import type { Actor } from '../../src/core/audit.js';
import { testDb } from '../helpers/server.js';
import { TEST_ENGINE } from '../helpers/postgres.js';
import { collect } from '../helpers/rows.js';
import { sqlOn } from '../helpers/sql.js';
import { until } from '../helpers/poll.js';
import { toTransactionInput } from '../../src/core/posting.js';
import { uuidV7 } from '../../src/core/ids.js';
import { renderPosting } from '../../src/core/commands/posting.js';

const cli: Actor = { type: 'HUMAN', keyId: 'cli' };
const usd = (accountId: string, entryType: 'DEBIT' | 'CREDIT', amount: string) => ({
  accountId,
  entryType,
  monetaryEntry: { type: 'FIAT' as const, amount: new JsonNumber(amount), currency: 'USD' as const, rail: 'ACH' as const },
});

describe(`the store contract on ${TEST_ENGINE}`, () => {
  let dir: string;
  let db: string;
  let opened: OpenLedger;
  let tenantId: string;
  const account = async (currency: 'USD' | 'BRL' = 'USD') => (await opened.ledger.accounts.create(tenantId, { name: 'a', currency, type: 'ASSET' }, cli)).id;
  const post = (key: string, lines: ReturnType<typeof usd>[]) => opened.ledger.transactions.post(tenantId, cli, key, { lines });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-contract-'));
    db = await testDb(dir);
    opened = await openLedger(db, { writer: 'local' });
    tenantId = (await opened.ledger.tenants.create('Contract', cli)).tenantId;
  });
  afterAll(async () => {
    await opened?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a secret once made: the same bytes from every connection and after reopening', async () => {
    const first = await opened.store.secret('contract-test');
    expect(first).toHaveLength(32);
    const other = await openLedger(db, { writer: 'local' });
    try {
      expect((await other.store.secret('contract-test')).equals(first)).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('reads back what a command wrote, once its commit is acknowledged, from another connection too', async () => {
    const id = await account();
    expect((await opened.store.account(tenantId, id))?.id).toBe(id);
    const other = await openLedger(db, { writer: 'local' });
    try {
      expect((await other.store.account(tenantId, id))?.currency).toBe('USD');
      expect(await other.store.account(tenantId, randomUUID())).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('lists newest first by commit sequence, and a list stopped early releases its connection', async () => {
    const ids = [await account(), await account(), await account()];
    const page = await collect(opened.store.accountsPage(tenantId, null, 3));
    expect(page.map((a) => a.id)).toEqual([...ids].reverse());
    const after = await collect(opened.store.accountsPage(tenantId, page[0]!.seq, 2));
    expect(after.map((a) => a.id)).toEqual([ids[1], ids[0]]);
    // Stopped after one row, 40 times: more than any pool holds, so a connection kept would stall the last ones.
    for (let i = 0; i < 40; i++) {
      for await (const row of opened.store.accountsPage(tenantId, null, 50)) {
        expect(row.tenantId).toBe(tenantId);
        break;
      }
    }
    expect(await opened.store.tenant(tenantId)).toMatchObject({ id: tenantId });
  });

  it('keeps every digit: 10^15 BRZ (18 places) and one minor unit more, in entries and balances', async () => {
    const a = await account();
    const b = await account();
    const huge = '1000000000000000.000000000000000001';
    const line = (accountId: string, entryType: 'DEBIT' | 'CREDIT') => ({
      accountId,
      entryType,
      monetaryEntry: {
        type: 'ONCHAIN' as const,
        amount: new JsonNumber(huge),
        token: 'BRZ' as const,
        chainId: 'EVM' as const,
        txHash: `0x${'1'.repeat(64)}`,
        blockNumber: 1,
        walletAddress: `0x${'2'.repeat(40)}`,
        tokenContract: `0x${'3'.repeat(40)}`,
      },
    });
    await opened.ledger.transactions.post(tenantId, cli, 'brz-1', { lines: [line(a, 'DEBIT'), line(b, 'CREDIT')] });
    expect(await opened.store.currentBalance(tenantId, a, 'BRZ')).toBe(10n ** 33n + 1n);
    expect(await opened.store.currentBalance(tenantId, b, 'BRZ')).toBe(-(10n ** 33n + 1n));
    const balance = await opened.ledger.entries.balance(tenantId, a, undefined);
    expect(String(balance.onChainBalances[0]!.amount)).toBe(huge);
  });

  it('keeps balances, running balances and the audit chain right when postings share a commit, some failing', async () => {
    const accounts = [await account(), await account(), await account()];
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        post(`group-${i}`, [usd(accounts[i % 3]!, 'DEBIT', `${i + 1}.00`), usd(i % 5 === 4 ? randomUUID() : accounts[(i + 1) % 3]!, 'CREDIT', `${i + 1}.00`)]),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(24);
    for (const id of accounts) {
      const { rows } = await sqlOn<{ entry_type: string; amount: string | number; balance_after: string | number }>(
        db,
        'SELECT entry_type, amount, balance_after FROM entries WHERE account_id = ? ORDER BY seq',
        [id],
      );
      let running = 0n;
      for (const e of rows) {
        running += e.entry_type === 'DEBIT' ? BigInt(e.amount) : -BigInt(e.amount);
        expect(BigInt(e.balance_after)).toBe(running);
      }
      expect(await opened.store.currentBalance(tenantId, id, 'USD')).toBe(running);
    }
    expect(await opened.ledger.audit.verifyChain(tenantId)).toMatchObject({ ok: true });
  });

  it('commit times keep their milliseconds and never go backwards along the commit order', async () => {
    const a = await account();
    const b = await account();
    for (let i = 0; i < 5; i++) await post(`time-${i}`, [usd(a, 'DEBIT', '1.00'), usd(b, 'CREDIT', '1.00')]);
    const entries = await opened.store.entriesBetween(tenantId, a, 'USD', '2000-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z', null, 100);
    expect(entries).toHaveLength(5);
    entries.forEach((e) => expect(e.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/));
    for (let i = 1; i < entries.length; i++) expect(entries[i]!.createdAt >= entries[i - 1]!.createdAt).toBe(true);
    expect((await opened.store.lastCommitTime())! >= entries.at(-1)!.createdAt).toBe(true);
  });

  it('changes its change version when another connection commits', async () => {
    const other = await openLedger(db, { writer: 'local' });
    try {
      const before = await other.store.changeVersion();
      await account();
      // SQLite sees it at once; PostgreSQL hears it (LISTEN) a moment after the commit.
      await until('the change version to move', async () => (await other.store.changeVersion()) !== before);
    } finally {
      await other.close();
    }
  });

  it('rolls back only the command that failed: the others of its group commit', async () => {
    const a = await account();
    const b = await account();
    const [ok, bad, ok2] = await Promise.allSettled([
      post('rb-1', [usd(a, 'DEBIT', '1.00'), usd(b, 'CREDIT', '1.00')]),
      post('rb-2', [usd(a, 'DEBIT', '1.00'), usd(randomUUID(), 'CREDIT', '1.00')]),
      post('rb-3', [usd(a, 'DEBIT', '2.00'), usd(b, 'CREDIT', '2.00')]),
    ]);
    expect([ok.status, bad.status, ok2.status]).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await opened.store.idempotency(tenantId, 'POST /api/v1/transactions', 'rb-2')).toBeUndefined();
    expect(await opened.store.currentBalance(tenantId, a, 'USD')).toBe(300n);
  });

  it('a key stored by a write the request did not see (another process, an earlier command of the group) is answered inside the write: a replay, or 422 for another body', async () => {
    const a = await account();
    const b = await account();
    // Straight to the writer, past the in-flight guard and the pre-read, as a second process would be: three commands
    // of one group under one Idempotency-Key.
    const write = (amount: string, hash: string) => {
      const input = toTransactionInput({ lines: [usd(a, 'DEBIT', amount), usd(b, 'CREDIT', amount)] });
      return opened.writer.run('postTransaction', { tenantId, actor: cli, input, rendered: renderPosting(input, uuidV7), key: 'dup-1', hash });
    };
    // Request hashes are SHA-256 digests in hexadecimal (stored as their bytes).
    const [h1, h2] = ['1', '2'].map((c) => c.repeat(64)) as [string, string];
    const [first, again, other] = await Promise.allSettled([write('1.00', h1), write('1.00', h1), write('2.00', h2)]);
    expect(first).toMatchObject({ status: 'fulfilled', value: { status: 201 } });
    expect(again).toEqual(first);
    expect(other).toMatchObject({ status: 'rejected', reason: { code: 'IDEMPOTENCY_KEY_REUSED' } });
    expect(await opened.store.currentBalance(tenantId, a, 'USD')).toBe(100n);
    expect(await opened.ledger.audit.verifyChain(tenantId)).toMatchObject({ ok: true });
    // In a later group too.
    await expect(write('1.00', h1)).resolves.toEqual((first as PromiseFulfilledResult<unknown>).value);
    await post('dup-after', [usd(a, 'DEBIT', '4.00'), usd(b, 'CREDIT', '4.00')]);
    expect(await opened.store.currentBalance(tenantId, a, 'USD')).toBe(500n);
  });
});
