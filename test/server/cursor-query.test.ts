// Issue 29, one convention everywhere: a cursor is sealed with its query. A client keeps its query and adds the
// cursor; the same query (however written, with any limit) is accepted, a different one is 400 VALIDATION_FAILED at
// `cursor`, the code a tampered cursor gets. Walked over every list the OpenAPI document has (an operation that takes
// `cursor`), each filter of each list changed in turn; a list the document gains without a case here fails the test.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { client, fiat, makeAccount, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectValidation } from '../helpers/expect.js';

const FROM = '2000-01-01T00:00:00Z';
const TO = '2100-01-01T00:00:00Z';

interface ListCase {
  /** The path, its ids filled in. */
  path: string;
  /** Every filter the list takes, as a client sends it (each chosen so that at least two items match). */
  query: Record<string, string>;
  /** The same query written otherwise: the parameters in another order, a value in another spelling. */
  sameWritten?: Record<string, string>;
  /** Per filter: other queries that differ from `query` in it (another value, or left out, or added). */
  others: Record<string, Array<Record<string, string>>>;
  /** Filters only ever added in `others`: the lookup by Idempotency-Key answers one item, so `query` cannot hold it. */
  addedOnly?: string[];
}

/** A filter's name as the document gives it: `metadata[key]` is the deepObject `metadata`. */
const filterName = (parameter: string) => parameter.replace(/\[.*\]$/, '');

const queryText = (query: Record<string, string>, extra: Record<string, string> = {}) => new URLSearchParams({ ...query, ...extra }).toString();
const without = (query: Record<string, string>, name: string) => Object.fromEntries(Object.entries(query).filter(([k]) => k !== name));
const reversed = (query: Record<string, string>) => Object.fromEntries(Object.entries(query).reverse());

describe('a cursor goes with the query it came from, on every list', () => {
  let c: Client;
  const cases: Record<string, ListCase> = {};

  const t = useServerWithAccounts();
  beforeAll(async () => {
    c = t.client;
    const wallet = await makeAccount(c, { name: 'wallet' });
    const other = await makeAccount(c, { name: 'other wallet' });
    const equity = await makeAccount(c, { name: 'equity', type: 'EQUITY' });
    const transactions: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await post(c, [fiat(wallet, 'DEBIT', '10.00'), fiat(equity, 'CREDIT', '10.00')], { metadata: { batch: 'b', n: String(i) } });
      expect(res.status, res.text).toBe(201);
      transactions.push(res.body.transactionId);
    }
    // Holds: three PENDING on the wallet, one captured.
    const holds: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await c.post('/api/v1/holds', { lines: [fiat(other, 'DEBIT', '1.00'), fiat(wallet, 'CREDIT', '1.00')] }, { 'idempotency-key': randomUUID() });
      expect(res.status, res.text).toBe(201);
      holds.push(res.body.holdId);
    }
    expect((await c.post(`/api/v1/holds/${holds[0]}/capture`, {})).status).toBe(200);
    // Settlements, all PENDING.
    for (let i = 0; i < 3; i++) {
      const res = await c.post(
        '/api/v1/settlements',
        { accountId: wallet, expectedToken: 'USDC', expectedAmount: `${i + 1}.5`, expectedWalletAddress: '0x0000000000000000000000000000000000000001', expectedChainId: 'EVM' },
        { 'idempotency-key': randomUUID() },
      );
      expect(res.status, res.text).toBe(201);
    }
    const reconciled = await c.post('/api/v1/reconciliation/batch', { transactionIds: transactions });
    expect(reconciled.status, reconciled.text).toBe(200);
    // Agent transactions (POSTED, there is no rule) and their audit records.
    const agentKey = await c.post('/api/v1/api-keys', { scopes: ['AGENTS_EXECUTE'] });
    const agent = client(t.url, agentKey.body.rawKey);
    for (let i = 0; i < 3; i++) {
      const res = await agent.post('/api/v1/agent/transactions', { lines: [fiat(wallet, 'DEBIT', '1.00'), fiat(equity, 'CREDIT', '1.00')] }, {
        'idempotency-key': randomUUID(),
        'x-agent-session-id': 'session-1',
      });
      expect(res.status, res.text).toBe(201);
    }
    const events = (await c.get('/api/v1/events?limit=200')).body.items as Array<{ id: string; type: string }>;
    const committed = events.filter((e) => e.type === 'transaction.committed');
    expect(committed.length).toBeGreaterThan(4);

    const instants: Record<'from' | 'to', Array<Record<string, string>>> = {
      from: [{ from: '2000-01-01T00:00:00.001Z' }, {}],
      to: [{ to: '2099-12-31T23:59:59.999Z' }, {}],
    };
    const ranged = (name: 'from' | 'to', base: Record<string, string>) => instants[name].map((change) => ({ ...without(base, name), ...change }));

    const entries = { from: FROM, to: TO };
    cases['/api/v1/accounts/{accountId}/entries'] = {
      path: `/api/v1/accounts/${wallet}/entries`,
      query: entries,
      sameWritten: { to: '2100-01-01T00:00:00.000Z', from: '2000-01-01T00:00:00.000+00:00' },
      others: { from: ranged('from', entries), to: ranged('to', entries) },
    };
    const holdsQuery = { status: 'PENDING', accountId: wallet };
    cases['/api/v1/holds'] = {
      path: '/api/v1/holds',
      query: holdsQuery,
      sameWritten: { accountId: wallet.toUpperCase(), status: 'PENDING' },
      others: {
        status: [{ ...holdsQuery, status: 'CAPTURED' }, without(holdsQuery, 'status')],
        accountId: [{ ...holdsQuery, accountId: other }, without(holdsQuery, 'accountId')],
      },
    };
    const settlements = { status: 'PENDING', from: FROM, to: TO };
    cases['/api/v1/settlements'] = {
      path: '/api/v1/settlements',
      query: settlements,
      others: {
        status: [{ ...settlements, status: 'CANCELLED' }, without(settlements, 'status')],
        from: ranged('from', settlements),
        to: ranged('to', settlements),
      },
    };
    const agents = { status: 'POSTED' };
    cases['/api/v1/agent/transactions'] = { path: '/api/v1/agent/transactions', query: agents, others: { status: [{ status: 'PENDING_APPROVAL' }, {}] } };
    const feed = { after: events[0]!.id, type: 'transaction.committed' };
    cases['/api/v1/events'] = {
      path: '/api/v1/events',
      query: feed,
      sameWritten: { type: 'transaction.committed,transaction.committed', after: events[0]!.id.toUpperCase() },
      others: {
        after: [{ ...feed, after: events[1]!.id }, without(feed, 'after')],
        type: [{ ...feed, type: 'transaction.committed,hold.created' }, without(feed, 'type')],
      },
    };
    // Accounts: two twins with the same name, type, currency and metadata.
    for (let i = 0; i < 2; i++) {
      const res = await c.post('/api/v1/accounts', { name: 'twin', currency: 'USD', type: 'ASSET', metadata: { group: 'g', n: String(i) } });
      expect(res.status, res.text).toBe(201);
    }
    const accounts = { type: 'ASSET', currency: 'USD', name: 'twin', 'metadata[group]': 'g' };
    cases['/api/v1/accounts'] = {
      path: '/api/v1/accounts',
      query: accounts,
      others: {
        type: [{ ...accounts, type: 'EXPENSE' }, without(accounts, 'type')],
        currency: [{ ...accounts, currency: 'BRL' }, without(accounts, 'currency')],
        name: [{ ...accounts, name: 'other' }, without(accounts, 'name')],
        metadata: [{ ...accounts, 'metadata[group]': 'h' }, without(accounts, 'metadata[group]'), { ...accounts, 'metadata[n]': '0' }],
      },
    };
    const found = { accountId: wallet, from: FROM, to: TO, 'metadata[batch]': 'b' };
    cases['/api/v1/transactions'] = {
      path: '/api/v1/transactions',
      query: found,
      sameWritten: { 'metadata[batch]': 'b', to: '2100-01-01T00:00:00.000Z', accountId: wallet.toUpperCase(), from: '2000-01-01T00:00:00.000+00:00' },
      others: {
        accountId: [{ ...found, accountId: equity }, without(found, 'accountId')],
        from: ranged('from', found),
        to: ranged('to', found),
        metadata: [{ ...found, 'metadata[batch]': 'c' }, without(found, 'metadata[batch]'), { ...found, 'metadata[n]': '1' }],
        idempotencyKey: [{ ...found, idempotencyKey: 'a-key' }],
      },
      addedOnly: ['idempotencyKey'],
    };
    // The trial balance: its instant is its one filter (the cursor carries it too).
    cases['/api/v1/reports/trial-balance'] = {
      path: '/api/v1/reports/trial-balance',
      query: { asOf: TO },
      sameWritten: { asOf: '2100-01-01T00:00:00.000Z' },
      others: { asOf: [{ asOf: '2099-01-01T00:00:00Z' }, {}] },
    };
    // Bank statements: two of the wallet's, the second with two UNMATCHED lines; the wallet's entries are unreconciled.
    const day = new Date().toISOString().slice(0, 10);
    const statements: string[] = [];
    for (const csv of [`bookingDate,amount\n${day},5.55\n`, `bookingDate,amount\n${day},6.66\n${day},-7.77\n${day},8.88\n`]) {
      const res = await c.request('POST', `/api/v1/accounts/${wallet}/bank-statements`, { rawBody: csv, headers: { 'content-type': 'text/csv' } });
      expect(res.status, res.text).toBe(201);
      statements.push(res.body.statementId);
    }
    const bankStatements = { accountId: wallet, from: FROM, to: TO };
    cases['/api/v1/bank-statements'] = {
      path: '/api/v1/bank-statements',
      query: bankStatements,
      sameWritten: { to: '2100-01-01T00:00:00.000Z', accountId: wallet.toUpperCase(), from: '2000-01-01T00:00:00.000+00:00' },
      others: {
        accountId: [{ ...bankStatements, accountId: other }, without(bankStatements, 'accountId')],
        from: ranged('from', bankStatements),
        to: ranged('to', bankStatements),
      },
    };
    cases['/api/v1/bank-statements/{statementId}/lines'] = {
      path: `/api/v1/bank-statements/${statements[1]}/lines`,
      query: { status: 'UNMATCHED' },
      others: { status: [{ status: 'IGNORED' }, {}] },
    };
    cases['/api/v1/accounts/{accountId}/unreconciled-entries'] = {
      path: `/api/v1/accounts/${wallet}/unreconciled-entries`,
      query: entries,
      sameWritten: { to: '2100-01-01T00:00:00.000Z', from: '2000-01-01T00:00:00.000+00:00' },
      others: { from: ranged('from', entries), to: ranged('to', entries) },
    };
    for (const path of ['/api/v1/reconciliation/results', '/api/v1/agent/audit']) {
      cases[path] = { path, query: {}, others: {} };
    }
  });

  it('the document\'s lists are the lists tested here, and every filter of each is changed in turn', async () => {
    const doc = (await c.get('/api/v1/openapi.json')).body as { paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>> };
    const lists: Record<string, string[]> = {};
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const operation of Object.values(operations)) {
        const query = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        if (query.includes('cursor')) lists[path] = query.filter((name) => name !== 'cursor' && name !== 'limit').sort();
      }
    }
    expect(Object.keys(lists).sort()).toEqual(Object.keys(cases).sort());
    for (const [path, filters] of Object.entries(lists)) {
      expect(Object.keys(cases[path]!.others).sort(), path).toEqual(filters);
      const given = [...Object.keys(cases[path]!.query).map(filterName), ...(cases[path]!.addedOnly ?? [])];
      expect(given.sort(), path).toEqual(filters);
    }
  });

  it('the same query with its cursor is accepted, also written otherwise and with another limit; the pages follow on', async () => {
    for (const [name, list] of Object.entries(cases)) {
      const all = await c.get(`${list.path}?${queryText(list.query, { limit: '200' })}`);
      expect(all.status, `${name}: ${all.text}`).toBe(200);
      const key = 'entries' in all.body ? 'entries' : 'items';
      const ids = (all.body[key] as Array<Record<string, string>>).map((item) => JSON.stringify(item));
      expect(ids.length, name).toBeGreaterThanOrEqual(2);

      const first = await c.get(`${list.path}?${queryText(list.query, { limit: '1' })}`);
      expect(typeof first.body.nextCursor, `${name}: ${first.text}`).toBe('string');
      const cursor = first.body.nextCursor as string;
      for (const query of [list.query, reversed(list.query), list.sameWritten ?? list.query]) {
        const next = await c.get(`${list.path}?${queryText(query, { limit: '200', cursor })}`);
        expect(next.status, `${name} ${JSON.stringify(query)}: ${next.text}`).toBe(200);
        expect((next.body[key] as unknown[]).map((item) => JSON.stringify(item)), name).toEqual(ids.slice(1));
      }
    }
  });

  it('a different query with the cursor is 400 at cursor, the code a tampered cursor gets', async () => {
    for (const [name, list] of Object.entries(cases)) {
      const first = await c.get(`${list.path}?${queryText(list.query, { limit: '1' })}`);
      const cursor = first.body.nextCursor as string;
      for (const [filter, queries] of Object.entries(list.others)) {
        for (const query of queries) {
          const res = await c.get(`${list.path}?${queryText(query, { limit: '1', cursor })}`);
          expectValidation({ ...res, text: `${name} (${filter}) ${JSON.stringify(query)}: ${res.text}` }, { detail: { path: 'cursor', message: 'was given with another query' } });
          expect(res.body.message).toMatch(/send it with the query it came from/);
        }
      }
      const tampered = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
      expectValidation(await c.get(`${list.path}?${queryText(list.query, { limit: '1', cursor: tampered })}`), { detail: { path: 'cursor', message: 'malformed' } });
    }
  });

  it('a cursor of one list is refused by every other list', async () => {
    const cursors = new Map<string, string>();
    for (const [name, list] of Object.entries(cases)) cursors.set(name, (await c.get(`${list.path}?${queryText(list.query, { limit: '1' })}`)).body.nextCursor);
    for (const [name, list] of Object.entries(cases)) {
      for (const [from, cursor] of cursors) {
        if (from === name) continue;
        const res = await c.get(`${list.path}?${queryText(list.query, { limit: '1', cursor })}`);
        expectValidation({ ...res, text: `${from} cursor on ${name}: ${res.text}` }, { detail: { path: 'cursor', message: 'not valid for this list' } });
      }
    }
  });
});
