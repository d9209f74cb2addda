// Accounts (src/core/usecases/accounts.ts) over a real SQLite store: creation with its audit record, lookup, and the
// newest-first listing paged by a signed cursor (src/core/paging.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger, auditOf, toJsonText, type Harness } from './ledger-harness.js';

describe('accounts', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openLedger();
  });
  afterAll(async () => h?.close());

  it('creates an account with its view, normal balance and audit record', async () => {
    h.clock.set('2030-02-03T04:05:06.007Z');
    const view = await h.ledger.accounts.create(h.tenantId, { name: 'Cash', description: 'the till', currency: 'BRL', type: 'LIABILITY' }, h.actor);
    expect(view).toEqual({
      id: view.id,
      name: 'Cash',
      description: 'the till',
      currency: 'BRL',
      type: 'LIABILITY',
      normalBalance: 'CREDIT',
      createdAt: '2030-02-03T04:05:06.007Z',
      metadata: {},
    });
    const record = (await auditOf(h)).at(-1)!;
    expect(record.action).toBe('CREATE_ACCOUNT');
    expect(record.occurredAt).toBe('2030-02-03T04:05:06.007Z');
    expect(record.actorKeyId).toBe(h.actor.keyId);
    expect(record.payload).toEqual({ accountId: view.id, name: 'Cash', currency: 'BRL', type: 'LIABILITY' });
    const stored = await h.ledger.accounts.get(h.tenantId, view.id);
    expect(stored).toMatchObject({ id: view.id, tenantId: h.tenantId, name: 'Cash', description: 'the till', currency: 'BRL', type: 'LIABILITY' });
  });

  it('a missing description is stored as null', async () => {
    const view = await h.ledger.accounts.create(h.tenantId, { name: 'Bank', currency: 'USD', type: 'ASSET' }, h.actor);
    expect(view.description).toBeNull();
    expect(view.normalBalance).toBe('DEBIT');
    expect((await h.ledger.accounts.get(h.tenantId, view.id)).description).toBeNull();
  });

  it('an unknown account, or one of another tenant, is 404 with its id', async () => {
    const other = await h.ledger.tenants.create('Other', { type: 'HUMAN', keyId: 'cli' });
    const foreign = await h.ledger.accounts.create(other.tenantId, { name: 'Theirs', currency: 'USD', type: 'ASSET' }, h.actor);
    await expect(h.ledger.accounts.get(h.tenantId, foreign.id)).rejects.toThrow(expect.objectContaining({ code: 'NOT_FOUND', message: `Account ${foreign.id} was not found.` }));
  });

  it('lists newest first, a page at a time, with a cursor that continues exactly after the page', async () => {
    const t = await h.ledger.tenants.create('Pager', { type: 'HUMAN', keyId: 'cli' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await h.ledger.accounts.create(t.tenantId, { name: `a${i}`, currency: 'USD', type: 'ASSET' }, h.actor)).id);
    const first = await h.ledger.accounts.list(t.tenantId, { limit: 2 });
    expect(first.items.map((i) => i.value.id)).toEqual([ids[4], ids[3]]);
    expect(first.nextCursor).toEqual(expect.any(String));
    // Items are written as their rendered text.
    expect(JSON.parse(toJsonText(first.items[0]))).toEqual(JSON.parse(JSON.stringify(first.items[0]!.value)));
    const second = await h.ledger.accounts.list(t.tenantId, { limit: 2, cursor: first.nextCursor! });
    expect(second.items.map((i) => i.value.id)).toEqual([ids[2], ids[1]]);
    const third = await h.ledger.accounts.list(t.tenantId, { limit: 2, cursor: second.nextCursor! });
    expect(third.items.map((i) => i.value.id)).toEqual([ids[0]]);
    expect(third.nextCursor).toBeNull();
    // Exactly a page: no cursor to an empty page.
    const all = await h.ledger.accounts.list(t.tenantId, { limit: 5 });
    expect(all.items).toHaveLength(5);
    expect(all.nextCursor).toBeNull();
    // The default page holds them all.
    expect((await h.ledger.accounts.list(t.tenantId, {})).items).toHaveLength(5);
  });

  it("a cursor of one tenant's list does not page another's", async () => {
    const a = await h.ledger.tenants.create('A', { type: 'HUMAN', keyId: 'cli' });
    const b = await h.ledger.tenants.create('B', { type: 'HUMAN', keyId: 'cli' });
    for (let i = 0; i < 2; i++) await h.ledger.accounts.create(a.tenantId, { name: `a${i}`, currency: 'USD', type: 'ASSET' }, h.actor);
    const page = await h.ledger.accounts.list(a.tenantId, { limit: 1 });
    await expect(h.ledger.accounts.list(b.tenantId, { limit: 1, cursor: page.nextCursor! })).rejects.toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', details: [{ path: 'cursor', message: 'not valid for this list' }] }),
    );
  });
});
