// Views are assembled by the store when read (migration 0018: an entry's view from its columns, a transaction's
// document from its metadata and its entries' views). Each answer is the text core/views.ts writes, byte for byte, on
// both engines: the transaction read alone, in the list, in the event feed, and each entry in the listing, for text
// that JSON escapes (quotes, backslashes, controls, U+2028, astral characters), descriptions or none, fiat and on-chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, fiat, makeAccount, onchain, startTestServer, type Client, type TestServer } from '../helpers/server.js';
import { toTransactionInput } from '../../src/core/posting.js';
import { entryText, entryViewHead, lineText, linkedTransactionText, transactionText } from '../../src/core/views.js';
import type { PostTransactionBody } from '../../src/core/schemas.js';

const tricky = 'a "quoted" \\ back\tslash\nline é 😀 \u2028 end';

describe('views assembled when read are the text core/views.ts writes', () => {
  let t: TestServer;
  let c: Client;
  const posted: Array<{ body: PostTransactionBody; id: string }> = [];

  beforeAll(async () => {
    t = await startTestServer();
    c = client(t.url, t.tenant.apiKey.rawKey);
    const cash = await makeAccount(c, { name: 'cash', type: 'ASSET' });
    const revenue = await makeAccount(c, { name: 'revenue', type: 'REVENUE' });
    const bodies = [
      { lines: [fiat(cash, 'DEBIT', '12.50'), fiat(revenue, 'CREDIT', '12.50')], metadata: {} },
      {
        lines: [
          { ...fiat(cash, 'DEBIT', '0.01', 'USD', { bankReference: tricky }), description: tricky },
          { ...fiat(revenue, 'CREDIT', '0.01'), description: 'plain' },
        ],
        metadata: { note: tricky, [tricky]: 'key' },
      },
      { lines: [onchain(cash, 'DEBIT', '1.000001'), { ...onchain(revenue, 'CREDIT', '1.000001'), description: tricky }], metadata: { order: '1001' } },
    ];
    for (const [i, body] of bodies.entries()) {
      const res = await c.post('/api/v1/transactions', body, { 'idempotency-key': `assembled-${i}` });
      expect(res.status, res.text).toBe(201);
      posted.push({ body: body as unknown as PostTransactionBody, id: res.body.transactionId });
    }
  });
  afterAll(async () => t?.stop());

  /** The document core/views.ts writes for a posted body, with the ids and time the answer gave. */
  async function expected(p: { body: PostTransactionBody; id: string }): Promise<{ document: string; entries: Array<{ accountId: string; text: string }> }> {
    const read = (await c.get(`/api/v1/transactions/${p.id}`)).body as { createdAt: string; lines: Array<{ entryId: string }> };
    const input = toTransactionInput(p.body);
    const heads = input.lines.map((line, i) => entryViewHead({ ...line, id: read.lines[i]!.entryId, transactionId: p.id }));
    const lines = input.lines.map((line, i) => lineText(heads[i]!, read.createdAt, line.accountId));
    const document = linkedTransactionText(transactionText(p.id, input.metadata, lines, read.createdAt), { reversesTransactionId: null, reversedByTransactionId: null });
    return { document, entries: input.lines.map((line, i) => ({ accountId: line.accountId, text: entryText(heads[i]!, read.createdAt) })) };
  }

  it('a transaction read alone, listed, and in the event feed', async () => {
    const list = (await c.get('/api/v1/transactions?limit=10')).text;
    const feed = (await c.get('/api/v1/events?limit=50')).text;
    for (const p of posted) {
      const { document } = await expected(p);
      expect((await c.get(`/api/v1/transactions/${p.id}`)).text).toBe(document);
      expect(list).toContain(document);
      // An event's data is the document as committed (nothing reversed it yet).
      expect(feed).toContain(`"data":${document}}`);
    }
  });

  it('each entry in its account\'s listing', async () => {
    for (const p of posted) {
      for (const entry of (await expected(p)).entries) {
        expect((await c.get(`/api/v1/accounts/${entry.accountId}/entries?limit=50`)).text).toContain(entry.text);
      }
    }
  });
});
