// GET /api/v1/accounts/{accountId}/entries — black-box, per spec and contract.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, createTenant, fiat, makeAccount, onchain, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError, expectValidation, ISO_MS, UUID } from '../helpers/expect.js';
import { walkPages } from '../helpers/paging.js';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function flip(cursor: string, at = Math.floor(cursor.length / 2)): string {
  const ch = cursor[at] === 'A' ? 'B' : 'A';
  return cursor.slice(0, at) + ch + cursor.slice(at + 1);
}

describe('entries', () => {
  let c: Client;
  let c2: Client;
  let counter: string; // LIABILITY USD, takes the other side
  let big: string; // 120 entries
  let otherTenantAccount: string;

  const entries = (id: string, query = '') => c.get(`/api/v1/accounts/${id}/entries${query}`);
  const q = (params: Record<string, string | number | undefined>) => {
    const s = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) s.set(k, String(v));
    const text = s.toString();
    return text ? `?${text}` : '';
  };

  /** The entries listing's own page shape: `{accountId, entries, nextCursor}`. */
  const ENTRIES_PAGE = { itemsKey: 'entries', extraKeys: ['accountId'] };

  /** Walks an account's entries; every page but the last is full. */
  async function walk(id: string, limit: number, extra: Record<string, string> = {}) {
    const { items, pages } = await walkPages(c, `/api/v1/accounts/${id}/entries${q(extra)}`, {
      ...ENTRIES_PAGE,
      limit,
      onPage: (res) => {
        expect(res.body.accountId).toBe(id);
        if (res.body.nextCursor !== null) expect(res.body.entries.length).toBe(limit);
      },
    });
    return { seen: items as any[], pages };
  }

  const t = useServerWithAccounts({ accounts: { counter: 'LIABILITY', big: 'ASSET' } });
  beforeAll(async () => {
    ({ client: c, accounts: { counter, big } } = t);
    // 12 transactions of 10 lines each on `big` (5 debits, 5 credits): 120 entries, many sharing a createdAt
    for (let i = 0; i < 12; i++) {
      const lines = Array.from({ length: 10 }, (_, j) => fiat(big, j % 2 === 0 ? 'DEBIT' : 'CREDIT', `${i + 1}.0${j >> 1}`));
      const res = await post(c, lines);
      expect(res.status, res.text).toBe(201);
    }
    const other = await createTenant(t.dbPath, 'Other');
    c2 = client(t.url, other.apiKey.rawKey);
    otherTenantAccount = await makeAccount(c2, { name: 'theirs' });
    const otherCounter = await makeAccount(c2, { name: 'theirs counter', type: 'LIABILITY' });
    for (let i = 0; i < 3; i++) await post(c2, [fiat(otherTenantAccount, 'DEBIT', '1'), fiat(otherCounter, 'CREDIT', '1')]);
  });

  it('answers {accountId, entries, nextCursor} with no items and no total', async () => {
    const res = await entries(big, '?limit=5');
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['accountId', 'entries', 'nextCursor']);
    expect(res.body.accountId).toBe(big);
    expect(res.body.entries).toHaveLength(5);
    expect(typeof res.body.nextCursor).toBe('string');
  });

  it('default limit is 50', async () => {
    const res = await entries(big);
    expect(res.status).toBe(200);
    expect(res.body.entries).toHaveLength(50);
    expect(typeof res.body.nextCursor).toBe('string');
  });

  it('limit 1 and 200 are accepted', async () => {
    const one = await entries(big, '?limit=1');
    expect(one.status).toBe(200);
    expect(one.body.entries).toHaveLength(1);
    const max = await entries(big, '?limit=200');
    expect(max.status).toBe(200);
    expect(max.body.entries).toHaveLength(120);
    expect(max.body.nextCursor).toBeNull();
  });

  it('limit outside 1..200 or not an integer → 400', async () => {
    for (const bad of ['0', '201', 'abc', '-1', '1.5', '']) {
      const res = await entries(big, `?limit=${bad}`);
      expect(res.status, `limit=${bad}: ${res.text}`).toBe(400);
      expectValidation(res);
    }
  });

  it('accountId not a UUID → 400', async () => {
    expectValidation(await entries('not-a-uuid'));
    expectValidation(await entries('12345'));
  });

  it('unknown account → 404; another tenant’s account → 404', async () => {
    expectError(await entries(randomUUID()), 404, 'NOT_FOUND');
    expectError(await entries(otherTenantAccount), 404, 'NOT_FOUND');
  });

  it('newest first, the later transaction before the earlier', async () => {
    const all = (await entries(big, '?limit=200')).body.entries as any[];
    for (let i = 1; i < all.length; i++) expect(all[i - 1].createdAt >= all[i].createdAt).toBe(true);
    // transactions appear as contiguous blocks of 10, newest transaction first
    const txOrder = [...new Set(all.map((e) => e.transactionId))];
    expect(txOrder).toHaveLength(12);
    const list = (await walkPages(c, '/api/v1/transactions', { limit: 200 })).items.map((x: any) => x.transactionId);
    expect(list.filter((id: string) => txOrder.includes(id))).toEqual(txOrder);
    for (let i = 0; i < 12; i++) expect(new Set(all.slice(i * 10, i * 10 + 10).map((e) => e.transactionId)).size).toBe(1);
  });

  it('paging through 120 entries with limit 7 visits each exactly once, nextCursor null on the last page', async () => {
    const reference = (await entries(big, '?limit=200')).body.entries.map((e: any) => e.entryId);
    const { seen, pages } = await walk(big, 7);
    expect(pages).toBe(Math.ceil(120 / 7));
    const ids = seen.map((e) => e.entryId);
    expect(new Set(ids).size).toBe(120);
    expect(ids).toEqual(reference);
  });

  it('when the count is a multiple of the limit, the last full page has nextCursor null (spec: null on the last page)', async () => {
    const r = await entries(big, '?limit=120');
    expect(r.status, r.text).toBe(200);
    expect(r.body.entries).toHaveLength(120);
    expect(r.body.nextCursor).toBeNull();
    const { seen, pages } = await walk(big, 60);
    expect(pages).toBe(2);
    expect(new Set(seen.map((e) => e.entryId)).size).toBe(120);
  });

  it('an account holding several assets lists them merged: newest first, a transaction\'s lines in reverse order, each once across pages', async () => {
    const m = await makeAccount(c, { name: 'multi-asset', type: 'ASSET' });
    const posted: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await post(c, [
        fiat(m, 'DEBIT', `${i + 1}.00`),
        onchain(m, 'DEBIT', `0.00000000000000000${i + 1}`, 'BRZ'),
        fiat(counter, 'CREDIT', `${i + 1}.00`),
        onchain(counter, 'CREDIT', `0.00000000000000000${i + 1}`, 'BRZ'),
        ...(i % 2 === 0 ? [onchain(m, 'DEBIT', '0.5', 'USDC'), onchain(counter, 'CREDIT', '0.5', 'USDC')] : []),
      ]);
      expect(res.status, res.text).toBe(201);
      posted.push(res.body.transactionId);
    }
    const assetOf = (e: any) => (e.monetary.type === 'FIAT' ? e.monetary.currency : e.monetary.token);
    // the newest transaction first, and each transaction's lines on the account last first
    const expected = posted
      .map((id, i) => ['USD', 'BRZ', ...(i % 2 === 0 ? ['USDC'] : [])].reverse().map((asset) => `${id} ${asset}`))
      .reverse()
      .flat();
    const { seen, pages } = await walk(m, 2);
    expect(seen.map((e) => `${e.transactionId} ${assetOf(e)}`)).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 2));
    const whole = (await entries(m, '?limit=200')).body.entries as any[];
    expect(whole.map((e) => e.entryId)).toEqual(seen.map((e) => e.entryId));
  });

  it('cursors are stable: entries posted after page 1 cause no duplicates and no gaps', async () => {
    const s = await makeAccount(c, { name: 'stable', type: 'ASSET' });
    for (let i = 0; i < 10; i++) {
      await post(c, [fiat(s, 'DEBIT', `${i + 1}`), fiat(counter, 'CREDIT', `${i + 1}`), fiat(s, 'DEBIT', '0.5'), fiat(counter, 'CREDIT', '0.5')]);
    }
    const snapshot = (await entries(s, '?limit=200')).body.entries.map((e: any) => e.entryId);
    expect(snapshot).toHaveLength(20);

    let arrived = 0;
    const { items, pages } = await walkPages(c, `/api/v1/accounts/${s}/entries`, {
      ...ENTRIES_PAGE,
      limit: 7,
      // more entries arrive between every page
      onPage: async (page) => {
        if (page.body.nextCursor === null) return;
        expect((await post(c, [fiat(s, 'DEBIT', '9'), fiat(counter, 'CREDIT', '9')])).status).toBe(201);
        arrived++;
      },
    });
    expect(pages).toBe(3);
    expect(arrived).toBe(2);
    expect(items.map((e: any) => e.entryId)).toEqual(snapshot);
  });

  describe('from and to', () => {
    let r: string;
    let all: any[];

    beforeAll(async () => {
      r = await makeAccount(c, { name: 'ranged', type: 'ASSET' });
      for (let i = 0; i < 5; i++) {
        if (i > 0) await sleep(5);
        const res = await post(c, [fiat(r, 'DEBIT', `${i + 1}`), fiat(counter, 'CREDIT', `${i + 1}`)]);
        expect(res.status).toBe(201);
      }
      all = (await entries(r, '?limit=200')).body.entries;
      expect(all).toHaveLength(5);
      expect(new Set(all.map((e) => e.createdAt)).size).toBe(5);
    });

    it('both bounds are inclusive', async () => {
      // newest first: all[1] is the 4th posted, all[3] the 2nd
      const from = all[3].createdAt;
      const to = all[1].createdAt;
      const res = await entries(r, q({ from, to }));
      expect(res.status, res.text).toBe(200);
      expect(res.body.entries.map((e: any) => e.entryId)).toEqual([all[1].entryId, all[2].entryId, all[3].entryId]);
    });

    it('from only and to only', async () => {
      const fromOnly = await entries(r, q({ from: all[2].createdAt }));
      expect(fromOnly.body.entries.map((e: any) => e.entryId)).toEqual(all.slice(0, 3).map((e) => e.entryId));
      const toOnly = await entries(r, q({ to: all[2].createdAt }));
      expect(toOnly.body.entries.map((e: any) => e.entryId)).toEqual(all.slice(2).map((e) => e.entryId));
    });

    it('from equal to to selects that instant', async () => {
      const res = await entries(r, q({ from: all[4].createdAt, to: all[4].createdAt }));
      expect(res.status).toBe(200);
      expect(res.body.entries.map((e: any) => e.entryId)).toEqual([all[4].entryId]);
    });

    it('bounds one millisecond inside exclude the boundary entries', async () => {
      const from = new Date(Date.parse(all[3].createdAt) + 1).toISOString();
      const to = new Date(Date.parse(all[1].createdAt) - 1).toISOString();
      const res = await entries(r, q({ from, to }));
      expect(res.body.entries.map((e: any) => e.entryId)).toEqual([all[2].entryId]);
    });

    it('paging within a range keeps the range', async () => {
      const from = all[3].createdAt;
      const to = all[0].createdAt;
      const { seen } = await walk(r, 1, { from, to });
      expect(seen.map((e) => e.entryId)).toEqual(all.slice(0, 4).map((e) => e.entryId));
    });

    it('from after to → 400', async () => {
      expectValidation(await entries(r, q({ from: all[0].createdAt, to: all[4].createdAt })));
    });

    it('invalid from or to → 400', async () => {
      expectValidation(await entries(r, q({ from: 'not-a-date' })));
      expectValidation(await entries(r, q({ to: '2024-02-30T00:00:00Z' })));
    });
  });

  describe('cursors', () => {
    let cursorA: string;
    let a2: string;

    beforeAll(async () => {
      const p = await entries(big, '?limit=3');
      cursorA = p.body.nextCursor;
      expect(typeof cursorA).toBe('string');
      a2 = await makeAccount(c, { name: 'second' });
      for (let i = 0; i < 3; i++) await post(c, [fiat(a2, 'DEBIT', '1'), fiat(counter, 'CREDIT', '1')]);
    });

    it('the verbatim cursor works', async () => {
      expect((await entries(big, q({ limit: 3, cursor: cursorA }))).status).toBe(200);
    });

    it('a tampered cursor → 400', async () => {
      for (const at of [0, Math.floor(cursorA.length / 2), cursorA.length - 1]) {
        const res = await entries(big, q({ limit: 3, cursor: flip(cursorA, at) }));
        expect(res.status, `flip at ${at}: ${res.text}`).toBe(400);
        expectValidation(res);
      }
      expectValidation(await entries(big, q({ cursor: cursorA.slice(0, -1) })));
      expectValidation(await entries(big, q({ cursor: 'garbage' })));
      expectValidation(await entries(big, '?cursor='));
    });

    it('a cursor with characters appended is not verbatim → 400', async () => {
      expectValidation(await entries(big, q({ cursor: `${cursorA}x` })));
      expectValidation(await entries(big, q({ cursor: `${cursorA}==` })));
    });

    it('a cursor from account A used on account B → 400', async () => {
      expectValidation(await entries(a2, q({ limit: 3, cursor: cursorA })));
    });

    it("a cursor of another tenant → 400", async () => {
      const theirs = await c2.get(`/api/v1/accounts/${otherTenantAccount}/entries?limit=1`);
      expect(theirs.status).toBe(200);
      const foreign = theirs.body.nextCursor as string;
      expect(typeof foreign).toBe('string');
      expectValidation(await entries(big, q({ cursor: foreign })));
    });

    it('a transactions-list cursor is not an entries cursor → 400', async () => {
      const list = await c.get('/api/v1/transactions?limit=1');
      const foreign = list.body.nextCursor as string;
      expect(typeof foreign).toBe('string');
      expectValidation(await entries(big, q({ cursor: foreign })));
    });
  });

  it('entry shape: FIAT and ONCHAIN', async () => {
    const e = await makeAccount(c, { name: 'shapes', type: 'ASSET' });
    const res = await post(c, [
      { ...fiat(e, 'DEBIT', '12.30', 'USD', { rail: 'WIRE', bankReference: 'BR-77' }), description: 'wire in' },
      fiat(counter, 'CREDIT', '12.30'),
      fiat(e, 'CREDIT', '0.05', 'USD', { rail: 'ACH' }),
      fiat(counter, 'DEBIT', '0.05'),
      onchain(e, 'DEBIT', '1.000000000000000001', 'BRZ', {
        chainId: 'SOLANA',
        txHash: '5VfYmGC',
        blockNumber: 123456789,
        walletAddress: 'So1anaWa11et',
        tokenContract: 'BrzMint',
      }),
      onchain(counter, 'CREDIT', '1.000000000000000001', 'BRZ'),
    ]);
    expect(res.status, res.text).toBe(201);
    const txId = res.body.transactionId;
    const list = await entries(e);
    expect(list.status).toBe(200);
    const got = list.body.entries as any[];
    expect(got).toHaveLength(3);
    for (const entry of got) {
      expect(entry.entryId).toMatch(UUID);
      expect(entry.transactionId).toBe(txId);
      expect(entry.createdAt).toMatch(ISO_MS);
      if ('description' in entry) expect(typeof entry.description).toBe('string');
    }
    const wire = got.find((x) => x.monetary.type === 'FIAT' && x.type === 'DEBIT');
    const ach = got.find((x) => x.monetary.type === 'FIAT' && x.type === 'CREDIT');
    const chain = got.find((x) => x.monetary.type === 'ONCHAIN');
    expect(wire.description).toBe('wire in');
    expect(wire.monetary).toEqual({ type: 'FIAT', amount: 12.3, currency: 'USD', rail: 'WIRE', bankReference: 'BR-77' });
    expect(ach.monetary).toEqual({ type: 'FIAT', amount: 0.05, currency: 'USD', rail: 'ACH', bankReference: null });
    expect(chain.type).toBe('DEBIT');
    expect(Object.keys(chain.monetary).sort()).toEqual(['amount', 'blockNumber', 'chainId', 'token', 'tokenContract', 'txHash', 'type', 'walletAddress']);
    expect(chain.monetary).toMatchObject({
      type: 'ONCHAIN',
      token: 'BRZ',
      chainId: 'SOLANA',
      txHash: '5VfYmGC',
      blockNumber: 123456789,
      walletAddress: 'So1anaWa11et',
      tokenContract: 'BrzMint',
    });
    // the 18-decimal amount is exact in the raw text
    expect(list.text).toContain('"amount":1.000000000000000001');
  });
});
