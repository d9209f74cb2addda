// A filtered page reads at most SCAN_ROWS_MAX index rows (issue 41): the filter with the fewest rows leads, so a narrow
// filter answers at once beside a wide one; where every filter is wide, a page answers what it found among the rows it
// read, fewer than `limit` or none, with a cursor that continues from there, and paging on finds exactly what the
// filters hold. Transactions, accounts, holds and the trial balance, on both engines; the data is made through the
// server's own ledger (its writes are those of the API), the reads go over HTTP.
import { beforeAll, describe, expect, it } from 'vitest';
import { useServerWithAccounts, type Client } from '../helpers/server.js';
import { SCAN_ROWS_MAX } from '../../src/core/limits.js';
import { JsonNumber } from '../../src/core/money.js';
import { cliActor } from '../../src/cli/common.js';

/** More rows than one page reads, for every wide filter. */
const WIDE = SCAN_ROWS_MAX + 50;
const POSTINGS = 2 * WIDE;
/** The postings of one atomic batch (2 lines each; an atomic batch takes 1,000 lines). */
const BATCH = 500;

const usd = (accountId: string, entryType: 'DEBIT' | 'CREDIT') => ({ accountId, entryType, monetaryEntry: { type: 'FIAT' as const, amount: new JsonNumber('1.00'), currency: 'USD' as const, rail: 'ACH' as const } });

interface Page {
  items: any[];
  nextCursor: string | null;
}

describe('filtered pages read a bounded number of rows', () => {
  let c: Client;
  let tenantId: string;
  let debit: string;
  let credit: string;
  let rare: string;
  /** Each posting's id and metadata, in the order they were committed. */
  const postings: Array<{ id: string; metadata: Record<string, string>; debit: string }> = [];

  const page = async (path: string, cursor: string | null = null): Promise<Page> => {
    const res = await c.get(`${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status, res.text).toBe(200);
    return res.body as Page;
  };
  /** Every page to the end: the items in order, and each page's size. */
  const walk = async (path: string) => {
    const items: any[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const p: Page = await page(path, cursor);
      items.push(...p.items);
      sizes.push(p.items.length);
      cursor = p.nextCursor;
    } while (cursor !== null && sizes.length < 100);
    expect(cursor).toBeNull();
    return { items, sizes };
  };
  const newestFirst = (keep: (p: (typeof postings)[number]) => boolean) => postings.filter(keep).map((p) => p.id).reverse();
  const ids = (items: any[]) => items.map((x) => x.transactionId);

  const t = useServerWithAccounts();
  beforeAll(async () => {
    c = t.client;
    tenantId = t.tenant.tenantId;
    const { ledger } = t.server;
    const account = (name: string, extra: Record<string, unknown> = {}) => ledger.accounts.create(tenantId, { name, currency: 'USD', type: 'ASSET', ...extra } as never, cliActor).then((a) => a.id);
    [debit, credit, rare] = [await account('debit'), await account('credit'), await account('rare')];
    // Every posting k0=A; evens side=L, odds other=R (two wide filters that never meet); y=1 on the odds and on the
    // oldest 20 evens (a wide filter whose few items beside side=L are all beyond the first page's rows); one needle=B
    // that debits the rare account.
    const needle = POSTINGS - 1000;
    for (let i = 0; i < POSTINGS; i++) {
      const metadata: Record<string, string> = { k0: 'A', ...(i % 2 === 0 ? { side: 'L' } : { other: 'R' }), ...(i % 2 === 1 || i < 40 ? { y: '1' } : {}), ...(i === needle ? { needle: 'B' } : {}) };
      postings.push({ id: '', metadata, debit: i === needle ? rare : debit });
    }
    for (let b = 0; b < POSTINGS; b += BATCH) {
      const batch = postings.slice(b, b + BATCH);
      const results = await ledger.batches.post(tenantId, cliActor, {
        atomic: true,
        transactions: batch.map((p, i) => ({ idempotencyKey: `p-${b + i}`, lines: [usd(p.debit, 'DEBIT'), usd(credit, 'CREDIT')], metadata: p.metadata })),
      } as never);
      results.forEach((r, i) => (batch[i]!.id = JSON.parse((r as { response: { body: string } }).response.body).transactionId));
    }
  });

  describe('GET /api/v1/transactions', () => {
    it('a narrow filter beside a wide one answers its item on the first page, with no cursor', async () => {
      const needle = newestFirst((p) => p.metadata.needle === 'B');
      expect(needle).toHaveLength(1);
      for (const query of ['metadata[k0]=A&metadata[needle]=B', `metadata[k0]=A&accountId=${rare}`, `accountId=${debit}&metadata[k0]=A&metadata[side]=L&metadata[needle]=B`]) {
        const first = await page(`/api/v1/transactions?${query}`);
        expect(ids(first.items), query).toEqual(query.includes(debit) ? [] : needle);
        expect(first.nextCursor, query).toBeNull();
      }
    });

    it('two wide filters that never meet: an empty page with a cursor, and paging on finds nothing', async () => {
      const path = '/api/v1/transactions?metadata[other]=R&metadata[side]=L&limit=50';
      const first = await page(path);
      expect(first.items).toEqual([]);
      expect(first.nextCursor).not.toBeNull();
      const { items, sizes } = await walk(path);
      expect(items).toEqual([]);
      // Each page read its SCAN_ROWS_MAX rows: as many pages as the wider filter's rows take, give or take one.
      expect(sizes.length).toBeGreaterThanOrEqual(Math.floor(WIDE / SCAN_ROWS_MAX));
    });

    it("items beyond the first page's rows: short pages with cursors, then exactly the items, newest first", async () => {
      const path = '/api/v1/transactions?metadata[side]=L&metadata[y]=1&limit=50';
      const first = await page(path);
      expect(first.items).toEqual([]);
      expect(first.nextCursor).not.toBeNull();
      const { items, sizes } = await walk(path);
      expect(ids(items)).toEqual(newestFirst((p) => p.metadata.side === 'L' && p.metadata.y === '1'));
      expect(sizes.some((n) => n < 50)).toBe(true);
    });

    it('two wide filters that mostly meet fill their pages, and paging on finds every item once', async () => {
      const path = '/api/v1/transactions?metadata[k0]=A&metadata[side]=L&limit=200';
      const first = await page(path);
      expect(first.items).toHaveLength(200);
      const { items } = await walk(path);
      expect(ids(items)).toEqual(newestFirst((p) => p.metadata.side === 'L'));
    });

    it('with a time bound, and a cursor only with its own query', async () => {
      const at = async (id: string) => (await c.get(`/api/v1/transactions/${id}`)).body.createdAt as string;
      const [from, to] = [await at(postings[100]!.id), await at(postings[POSTINGS - 100]!.id)];
      const query = `metadata[other]=R&metadata[y]=1&from=${from}&to=${to}&limit=200`;
      const { items } = await walk(`/api/v1/transactions?${query}`);
      const inWindow = new Set(postings.slice(100, POSTINGS - 99).map((p) => p.id));
      const expected = newestFirst((p) => p.metadata.other === 'R' && inWindow.has(p.id));
      // Postings of one batch share their commit time: the window holds all of its first and last batches' postings.
      expect(ids(items).filter((id) => inWindow.has(id))).toEqual(expected);
      const short = await page('/api/v1/transactions?metadata[other]=R&metadata[side]=L&limit=50');
      const moved = await c.get(`/api/v1/transactions?metadata[other]=R&metadata[y]=1&limit=50&cursor=${encodeURIComponent(short.nextCursor!)}`);
      expect(moved.status).toBe(400);
    });
  });

  describe('GET /api/v1/accounts, GET /api/v1/holds and the trial balance', () => {
    let bulk: string[];
    let held: string;

    beforeAll(async () => {
      const { ledger } = t.server;
      // Accounts: every one kind=bulk; evens in EUR, odds tier=gold (wide filters that never meet); one vip=yes.
      bulk = [];
      for (let n = 0; n < 2 * WIDE; n += 250) {
        bulk.push(
          ...(await Promise.all(
            Array.from({ length: Math.min(250, 2 * WIDE - n) }, (_, k) => {
              const i = n + k;
              const metadata = { kind: 'bulk', ...(i % 2 === 1 ? { tier: 'gold' } : {}), ...(i === WIDE ? { vip: 'yes' } : {}) };
              return ledger.accounts.create(tenantId, { name: `bulk-${String(i).padStart(5, '0')}`, currency: i % 2 === 0 ? 'EUR' : 'USD', type: 'ASSET', metadata } as never, cliActor).then((a) => a.id);
            }),
          )),
        );
      }
      // Holds: WIDE on the debit account, voided; WIDE on another, PENDING.
      held = (await ledger.accounts.create(tenantId, { name: 'held', currency: 'USD', type: 'ASSET' } as never, cliActor)).id;
      const hold = (account: string, i: number) =>
        ledger.holds.create(tenantId, cliActor, `h-${account}-${i}`, { lines: [usd(account, 'DEBIT'), usd(credit, 'CREDIT')] } as never).then((r) => JSON.parse(r.body).holdId as string);
      for (let n = 0; n < WIDE; n += 250) {
        const count = Math.min(250, WIDE - n);
        const voided = await Promise.all(Array.from({ length: count }, (_, k) => hold(debit, n + k)));
        await Promise.all(voided.map((id, k) => ledger.holds.void(tenantId, cliActor, id, `v-${n + k}`)));
        await Promise.all(Array.from({ length: count }, (_, k) => hold(held, n + k)));
      }
      // Some 10,000 writes: a slow, busy machine takes several times what a quiet one does (12 s on PostgreSQL here).
    }, 240_000);

    it('accounts: a narrow entry beside wide filters at once; wide ones that never meet page on to nothing', async () => {
      const vip = await page('/api/v1/accounts?metadata[kind]=bulk&type=ASSET&currency=USD&metadata[vip]=yes');
      expect(vip.items).toEqual([]);
      expect(vip.nextCursor).toBeNull();
      const eurVip = await page('/api/v1/accounts?metadata[kind]=bulk&currency=EUR&metadata[vip]=yes');
      expect(eurVip.items.map((a) => a.id)).toEqual([bulk[WIDE]]);
      expect(eurVip.nextCursor).toBeNull();
      const apart = '/api/v1/accounts?currency=EUR&metadata[tier]=gold&limit=50';
      expect((await page(apart)).items).toEqual([]);
      expect((await page(apart)).nextCursor).not.toBeNull();
      expect((await walk(apart)).items).toEqual([]);
      const together = await walk('/api/v1/accounts?currency=USD&metadata[tier]=gold&metadata[kind]=bulk&limit=200');
      // Made 250 at a time, so not quite in their order: every one, once.
      expect(together.items.map((a) => a.id).sort()).toEqual(bulk.filter((_, i) => i % 2 === 1).sort());
    });

    it("holds: an account's PENDING holds among thousands voided page on to none; its voided ones, every one", async () => {
      const none = `/api/v1/holds?accountId=${debit}&status=PENDING&limit=50`;
      const first = await page(none);
      expect(first.items).toEqual([]);
      expect(first.nextCursor).not.toBeNull();
      expect((await walk(none)).items).toEqual([]);
      const voided = await walk(`/api/v1/holds?accountId=${debit}&status=VOIDED&limit=200`);
      expect(voided.items).toHaveLength(WIDE);
      expect(new Set(voided.items.map((h) => h.holdId)).size).toBe(WIDE);
      expect((await walk(`/api/v1/holds?accountId=${held}&status=PENDING&limit=200`)).items).toHaveLength(WIDE);
    });

    it('the trial balance as of before every posting: pages of no item with cursors, to its end', async () => {
      // The bulk accounts' balances: each debited once.
      for (let b = 0; b < bulk.length; b += BATCH) {
        await t.server.ledger.batches.post(tenantId, cliActor, {
          atomic: true,
          transactions: bulk.slice(b, b + BATCH).flatMap((id, i) => (b + i) % 2 === 1 ? [{ idempotencyKey: `tb-${b + i}`, lines: [usd(id, 'DEBIT'), usd(credit, 'CREDIT')] }] : []),
        } as never);
      }
      const before = '/api/v1/reports/trial-balance?asOf=2000-01-01T00:00:00Z&limit=50';
      const first = await page(before);
      expect(first.items).toEqual([]);
      expect(first.nextCursor).not.toBeNull();
      expect((await walk(before)).items).toEqual([]);
      const now = await walk('/api/v1/reports/trial-balance?limit=200');
      // The USD bulk accounts, the three made first and the held one (no balance) aside: debit, credit, rare, then each bulk one.
      expect(now.items.map((i) => i.accountId).filter((id) => bulk.includes(id))).toEqual(bulk.filter((_, i) => i % 2 === 1));
      expect(now.items.filter((i) => [debit, credit, rare].includes(i.accountId))).toHaveLength(3);
    });
  });
});
