// POST /api/v1/accounts/{id}/bank-statements and the reads of statements and lines: camt.053 and CSV imported, matched
// automatically by REFERENCE, AMOUNT_DATE and SUM, once only, and every bad file refused with nothing written.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { client, createTenant, fiat, makeAccount, post, useServerWithAccounts, type Client } from '../helpers/server.js';
import { expectError } from '../helpers/expect.js';
import { RECONCILIATION_EXAMPLES } from '../../src/server/examples.js';

interface Entry {
  amount: string;
  direction: 'CRDT' | 'DBIT';
  booked?: string;
  ref?: string;
  endToEnd?: string;
  status?: string;
}

const today = () => new Date().toISOString().slice(0, 10);

/** A camt.053.001.02 file of one statement. */
function camt(id: string, entries: Entry[], options: { currency?: string; closing?: string; version?: string } = {}): string {
  const ccy = options.currency ?? 'USD';
  const ntry = entries
    .map(
      (e) => `<Ntry>
  <Amt Ccy="${ccy}">${e.amount}</Amt><CdtDbtInd>${e.direction}</CdtDbtInd><Sts>${e.status ?? 'BOOK'}</Sts>
  <BookgDt><Dt>${e.booked ?? today()}</Dt></BookgDt><ValDt><Dt>${e.booked ?? today()}</Dt></ValDt>
  ${e.ref ? `<AcctSvcrRef>${e.ref}</AcctSvcrRef>` : ''}
  <NtryDtls><TxDtls><Refs>${e.endToEnd ? `<EndToEndId>${e.endToEnd}</EndToEndId>` : ''}</Refs>
  <RltdPties><Dbtr><Nm>Payer Ltd</Nm></Dbtr><DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct></RltdPties>
  <RmtInf><Ustrd>Invoice 42</Ustrd></RmtInf></TxDtls></NtryDtls>
</Ntry>`,
    )
    .join('\n');
  const closing = options.closing
    ? `<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="${ccy}">${options.closing.replace('-', '')}</Amt><CdtDbtInd>${options.closing.startsWith('-') ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>${today()}</Dt></Dt></Bal>`
    : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.${options.version ?? '02'}">
<BkToCstmrStmt><GrpHdr><MsgId>M1</MsgId><CreDtTm>${today()}T08:00:00Z</CreDtTm></GrpHdr>
<Stmt><Id>${id}</Id><ElctrncSeqNb>7</ElctrncSeqNb><CreDtTm>${today()}T08:00:00Z</CreDtTm>
<Acct><Id><IBAN>DE00</IBAN></Id><Ccy>${ccy}</Ccy></Acct>
<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="${ccy}">0</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${today()}</Dt></Dt></Bal>
${closing}
${ntry}
</Stmt></BkToCstmrStmt></Document>`;
}

const importFile = (c: Client, accountId: string, body: string, type = 'application/xml', query = '') =>
  c.request('POST', `/api/v1/accounts/${accountId}/bank-statements${query}`, { rawBody: body, headers: { 'content-type': type } });

describe('bank statements', () => {
  const t = useServerWithAccounts({
    accounts: { bank: 'ASSET', revenue: 'REVENUE', euros: { currency: 'EUR', type: 'ASSET' }, euroRevenue: { currency: 'EUR', type: 'REVENUE' }, other: 'ASSET' },
  });

  it('imports a camt.053 statement and matches by reference, by amount and date, and by sum', async () => {
    const { bank, revenue } = t.accounts;
    const byRef = await post(t.client, [fiat(bank, 'DEBIT', '100.00', 'USD', { bankReference: 'REF-1' }), fiat(revenue, 'CREDIT', '100.00')]);
    const byAmount = await post(t.client, [fiat(bank, 'DEBIT', '77.31'), fiat(revenue, 'CREDIT', '77.31')]);
    const sumA = await post(t.client, [fiat(bank, 'CREDIT', '30', 'USD', { bankReference: 'PAYOUTS-9' }), fiat(revenue, 'DEBIT', '30')]);
    const sumB = await post(t.client, [fiat(bank, 'CREDIT', '12.5', 'USD', { bankReference: 'PAYOUTS-9' }), fiat(revenue, 'DEBIT', '12.5')]);
    for (const r of [byRef, byAmount, sumA, sumB]) expect(r.status).toBe(201);
    const file = camt('STMT-1', [
      { amount: '100.00', direction: 'CRDT', ref: 'BANK-1', endToEnd: 'REF-1' },
      { amount: '77.31', direction: 'CRDT', ref: 'BANK-2' },
      { amount: '42.50', direction: 'DBIT', ref: 'BANK-3', endToEnd: 'PAYOUTS-9' },
      { amount: '5.00', direction: 'DBIT', ref: 'BANK-4' },
      { amount: '9.99', direction: 'CRDT', ref: 'PENDING-1', status: 'PDNG' },
    ], { closing: '129.81' });
    const res = await importFile(t.client, bank, file);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ accountId: bank, format: 'CAMT053', externalId: 'STMT-1', currency: 'USD', lineCount: 4, openingBalance: 0, closingBalance: 129.81 });
    expect(res.body.summary).toEqual({ matched: 3, unmatched: 1, ignored: 0, duplicates: 0, ledgerBalanceAtEnd: 134.81, difference: -5 });

    const lines = await t.client.get(`/api/v1/bank-statements/${res.body.statementId}/lines`);
    expect(lines.status).toBe(200);
    expect(lines.body.items.map((l: any) => [l.index, l.status, l.matchRule, l.direction, l.amount])).toEqual([
      [0, 'MATCHED', 'REFERENCE', 'IN', 100],
      [1, 'MATCHED', 'AMOUNT_DATE', 'IN', 77.31],
      [2, 'MATCHED', 'SUM', 'OUT', 42.5],
      [3, 'UNMATCHED', null, 'OUT', 5],
    ]);
    const first = lines.body.items[0];
    expect(first).toMatchObject({ bankLineId: 'BANK-1', references: ['BANK-1', 'REF-1'], counterparty: { name: 'Payer Ltd', account: 'DE89370400440532013000' }, description: 'Invoice 42', matchedBy: 'AUTO', candidates: [], note: null });
    expect(first.matchedEntryIds).toHaveLength(1);
    expect(lines.body.items[2].matchedEntryIds).toHaveLength(2);

    const unmatched = await t.client.get(`/api/v1/bank-statements/${res.body.statementId}/lines?status=UNMATCHED`);
    expect(unmatched.body.items.map((l: any) => l.index)).toEqual([3]);

    // Once only: the same file answers the statement as it is; other content under its id is refused.
    const again = await importFile(t.client, bank, file);
    expect(again.status).toBe(200);
    expect(again.body.statementId).toBe(res.body.statementId);
    expectError(await importFile(t.client, bank, camt('STMT-1', [{ amount: '1.00', direction: 'CRDT' }])), 409, 'STATEMENT_CONFLICT');

    const got = await t.client.get(`/api/v1/bank-statements/${res.body.statementId}`);
    expect(got.body).toEqual(again.body);
    const list = await t.client.get(`/api/v1/bank-statements?accountId=${bank}`);
    expect(list.body.items.map((s: any) => s.statementId)).toEqual([res.body.statementId]);
  });

  it('leaves an ambiguous amount unmatched, naming its candidates, and never matches an entry twice', async () => {
    const { other, revenue } = t.accounts;
    for (let i = 0; i < 2; i++) expect((await post(t.client, [fiat(other, 'DEBIT', '250'), fiat(revenue, 'CREDIT', '250')])).status).toBe(201);
    const res = await importFile(t.client, other, camt('AMB-1', [{ amount: '250', direction: 'CRDT', ref: 'A1' }]));
    expect(res.status, res.text).toBe(201);
    const [line] = (await t.client.get(`/api/v1/bank-statements/${res.body.statementId}/lines`)).body.items;
    expect(line.status).toBe('UNMATCHED');
    expect(line.candidates).toHaveLength(2);

    expect((await post(t.client, [fiat(other, 'DEBIT', '61'), fiat(revenue, 'CREDIT', '61')])).status).toBe(201);
    const twice = await importFile(t.client, other, camt('TWICE-1', [{ amount: '61', direction: 'CRDT', ref: 'T1' }, { amount: '61', direction: 'CRDT', ref: 'T2' }]));
    const rules = (await t.client.get(`/api/v1/bank-statements/${twice.body.statementId}/lines`)).body.items.map((l: any) => l.status);
    expect(rules).toEqual(['MATCHED', 'UNMATCHED']);
    // A line seen on another statement of the account is not imported again.
    const overlap = await importFile(t.client, other, camt('TWICE-2', [{ amount: '61', direction: 'CRDT', ref: 'T2' }, { amount: '3', direction: 'CRDT', ref: 'T3' }]));
    expect(overlap.body.lineCount).toBe(1);
    expect(overlap.body.summary.duplicates).toBe(1);
  });

  it('finds the oldest entry of a reference and amount among more entries of the reference than SUM takes', async () => {
    const { euros, euroRevenue } = t.accounts;
    // 101 entries of 1.00 under one reference, then one of 7.00: more than a reference's read (SUM's 100, and one).
    const transactions = [...Array.from({ length: 101 }, () => '1.00'), '7.00'].map((amount) => ({
      idempotencyKey: randomUUID(),
      lines: [fiat(euros, 'DEBIT', amount, 'EUR', { bankReference: 'MONTHLY' }), fiat(euroRevenue, 'CREDIT', amount, 'EUR')],
    }));
    const batch = await t.client.post('/api/v1/transactions/batch', { atomic: true, transactions });
    expect(batch.status, batch.text).toBe(201);
    const ids = batch.body.results.map((r: any) => r.transactionId);
    // Booked 40 days back: no AMOUNT_DATE window holds the entries, so only REFERENCE can match.
    const booked = new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 10);
    const file = camt('MONTHLY-1', [
      { amount: '7.00', direction: 'CRDT', ref: 'M-7', endToEnd: 'MONTHLY', booked },
      { amount: '1.00', direction: 'CRDT', ref: 'M-1', endToEnd: 'MONTHLY', booked },
    ], { currency: 'EUR' });
    const res = await importFile(t.client, euros, file);
    expect(res.status, res.text).toBe(201);
    const lines = (await t.client.get(`/api/v1/bank-statements/${res.body.statementId}/lines`)).body.items;
    expect(lines.map((l: any) => [l.status, l.matchRule])).toEqual([['MATCHED', 'REFERENCE'], ['MATCHED', 'REFERENCE']]);
    const transactionOf = async (entryId: string) => (await t.client.get(`/api/v1/accounts/${euros}/entries?limit=200`)).body.entries.find((e: any) => e.entryId === entryId).transactionId;
    expect(await transactionOf(lines[0].matchedEntryIds[0])).toBe(ids[101]);
    expect(await transactionOf(lines[1].matchedEntryIds[0])).toBe(ids[0]);
  });

  it('imports a CSV with its options', async () => {
    const { euros } = t.accounts;
    const csv = `Datum;Betrag;Referenz\n${today().split('-').reverse().join('/')};1.234,56;R-1\n${today().split('-').reverse().join('/')};-10,00;R-2\n`;
    const res = await importFile(t.client, euros, csv, 'text/csv', '?columns=bookingDate:Datum,amount:Betrag,reference:Referenz&decimal=,&delimiter=;&dateFormat=DD/MM/YYYY');
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ format: 'CSV', currency: 'EUR', lineCount: 2, closingBalance: null, openingBalance: null });
    expect(res.body.externalId).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.summary.difference).toBeNull();
    const lines = (await t.client.get(`/api/v1/bank-statements/${res.body.statementId}/lines`)).body.items;
    expect(lines.map((l: any) => [l.amount, l.direction, l.references])).toEqual([[1234.56, 'IN', ['R-1']], [10, 'OUT', ['R-2']]]);
  });

  it('refuses every bad file and writes nothing', async () => {
    const { bank, revenue, euros } = t.accounts;
    const before = (await t.client.get(`/api/v1/bank-statements`)).body.items.length;
    expectError(await importFile(t.client, bank, '<Document><broken></Document>'), 400, 'VALIDATION_FAILED');
    expectError(await importFile(t.client, bank, `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><Document>&xxe;</Document>`), 400, 'VALIDATION_FAILED');
    expectError(await importFile(t.client, bank, camt('BAD-AMT', [{ amount: '1.234', direction: 'CRDT' }])), 400, 'VALIDATION_FAILED');
    expectError(await importFile(t.client, euros, camt('WRONG-CCY', [{ amount: '1', direction: 'CRDT' }])), 422, 'CURRENCY_MISMATCH');
    expectError(await importFile(t.client, revenue, camt('WRONG-TYPE', [{ amount: '1', direction: 'CRDT' }])), 422, 'ACCOUNT_TYPE_MISMATCH');
    expectError(await importFile(t.client, bank, '{}', 'application/json'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await importFile(t.client, bank, 'x'.repeat(20 * 1024 * 1024 + 1)), 413, 'BODY_TOO_LARGE');
    expect((await t.client.get(`/api/v1/bank-statements`)).body.items.length).toBe(before);
  });
});

describe('working the exceptions', () => {
  const t = useServerWithAccounts({ accounts: { bank: 'ASSET', revenue: 'REVENUE', other: 'ASSET' } });
  let n = 0;
  const key = () => ({ 'idempotency-key': `k-${n++}` });
  const entryIdsOf = async (accountId: string) => (await t.client.get(`/api/v1/accounts/${accountId}/entries`)).body.entries.map((e: any) => e.entryId as string);

  it('matches by hand, unmatches, ignores and deletes, each with its audit record and event; the unreconciled entries and settings', async () => {
    const { bank, revenue, other } = t.accounts;
    for (const amount of ['40', '60', '7']) expect((await post(t.client, [fiat(bank, 'DEBIT', amount), fiat(revenue, 'CREDIT', amount)])).status).toBe(201);
    expect((await post(t.client, [fiat(other, 'DEBIT', '100'), fiat(revenue, 'CREDIT', '100')])).status).toBe(201);
    const [e7, e60, e40] = await entryIdsOf(bank);
    const [eOther] = await entryIdsOf(other);

    // A window of 0 days still holds today's entries; out of range is refused.
    expect((await t.client.request('PUT', `/api/v1/accounts/${bank}/reconciliation-settings`, { body: { dateWindowDays: 0 } })).body).toEqual({ accountId: bank, dateWindowDays: 0 });
    expect((await t.client.get(`/api/v1/accounts/${bank}/reconciliation-settings`)).body).toEqual({ accountId: bank, dateWindowDays: 0 });
    expectError(await t.client.request('PUT', `/api/v1/accounts/${bank}/reconciliation-settings`, { body: { dateWindowDays: 32 } }), 400, 'VALIDATION_FAILED');

    const imported = await importFile(t.client, bank, camt('EXC-1', [{ amount: '100', direction: 'CRDT', ref: 'X1' }, { amount: '2.50', direction: 'DBIT', ref: 'X2' }]));
    expect(imported.status, imported.text).toBe(201);
    const statementId = imported.body.statementId;
    const [line, fee] = (await t.client.get(`/api/v1/bank-statements/${statementId}/lines`)).body.items;
    expect(line.status).toBe('UNMATCHED');

    const matchPath = `/api/v1/bank-statement-lines/${line.lineId}/match`;
    expectError(await t.client.post(matchPath, { entryIds: [e40] }), 400, 'VALIDATION_FAILED');
    expectError(await t.client.post(matchPath, { entryIds: [e40, e7] }, key()), 422, 'MATCH_REFUSED', { message: /difference of 53/ });
    expectError(await t.client.post(matchPath, { entryIds: [e40, eOther] }, key()), 422, 'MATCH_REFUSED');
    const k = key();
    const matched = await t.client.post(matchPath, { entryIds: [e40, e60], note: 'two invoices' }, k);
    expect(matched.status, matched.text).toBe(200);
    expect(matched.body).toMatchObject({ status: 'MATCHED', matchedBy: 'MANUAL', matchRule: null, note: 'two invoices' });
    expect(matched.body.matchedEntryIds.sort()).toEqual([e40, e60].sort());
    expect((await t.client.post(matchPath, { entryIds: [e40, e60], note: 'two invoices' }, k)).text).toBe(matched.text);
    expectError(await t.client.post(matchPath, { entryIds: [e40, e60] }, key()), 409, 'CONFLICT');
    expect((await t.client.get(`/api/v1/bank-statements/${statementId}`)).body.summary).toMatchObject({ matched: 1, unmatched: 1 });

    const unreconciled = await t.client.get(`/api/v1/accounts/${bank}/unreconciled-entries`);
    expect(unreconciled.body.items.map((e: any) => e.entryId)).toEqual([e7]);

    // A statement with a manual match cannot be deleted until it is unmatched.
    expectError(await t.client.del(`/api/v1/bank-statements/${statementId}`, key()), 409, 'CONFLICT');
    const unmatched = await t.client.post(`/api/v1/bank-statement-lines/${line.lineId}/unmatch`, undefined, key());
    expect(unmatched.status, unmatched.text).toBe(200);
    expect(unmatched.body).toMatchObject({ status: 'UNMATCHED', matchedEntryIds: [] });
    expectError(await t.client.post(`/api/v1/bank-statement-lines/${line.lineId}/unmatch`, {}, key()), 409, 'CONFLICT');

    expectError(await t.client.post(`/api/v1/bank-statement-lines/${fee.lineId}/ignore`, {}, key()), 400, 'VALIDATION_FAILED');
    const ignored = await t.client.post(`/api/v1/bank-statement-lines/${fee.lineId}/ignore`, { note: 'bank fee, booked in December' }, key());
    expect(ignored.body).toMatchObject({ status: 'IGNORED', note: 'bank fee, booked in December' });

    // Reconcile again: the 100 matches nothing by amount alone (no single entry), so the line stays UNMATCHED.
    const reconciled = await t.client.post(`/api/v1/bank-statements/${statementId}/reconcile`);
    expect(reconciled.status, reconciled.text).toBe(200);
    expect(reconciled.body.summary).toMatchObject({ matched: 0, unmatched: 1, ignored: 1 });

    const deleted = await t.client.del(`/api/v1/bank-statements/${statementId}`, key());
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.statementId).toBe(statementId);
    expectError(await t.client.get(`/api/v1/bank-statements/${statementId}`), 404, 'NOT_FOUND');

    const audit = await t.client.get('/api/v1/compliance/audit-export?from=2000-01-01T00:00:00Z&to=9999-12-31T00:00:00Z');
    const records = audit.text.trim().split('\n').map((l) => JSON.parse(l));
    const actions = records.map((r: any) => r.action);
    expect(records.find((r: any) => r.action === 'MATCH_STATEMENT_LINE').payload).toMatchObject({ lineId: line.lineId, statementId, note: 'two invoices' });
    for (const action of ['SET_RECONCILIATION_SETTINGS', 'IMPORT_BANK_STATEMENT', 'MATCH_STATEMENT_LINE', 'UNMATCH_STATEMENT_LINE', 'IGNORE_STATEMENT_LINE', 'RECONCILE_BANK_STATEMENT', 'DELETE_BANK_STATEMENT']) {
      expect(actions, action).toContain(action);
    }
    const events = await t.client.get('/api/v1/events?limit=200');
    const types = events.body.items.map((e: any) => e.type);
    for (const type of ['bank_statement.imported', 'bank_statement_line.matched', 'bank_statement_line.unmatched', 'bank_statement_line.ignored', 'bank_statement.reconciled', 'bank_statement.deleted']) {
      expect(types, type).toContain(type);
    }
  });
});

describe("the README's reconciliation", () => {
  const t = useServerWithAccounts({ accounts: { cash: 'ASSET', sales: 'REVENUE' } });

  it('runs as written: the payment matched by its reference, the fee ignored, the difference shown', async () => {
    const readme = /<!-- reconcile:begin -->\s*```sh\n([\s\S]*?)```\s*<!-- reconcile:end -->/.exec(readFileSync('README.md', 'utf8'));
    expect(readme, 'README has the reconcile block').not.toBeNull();
    const prelude = `json() { node -pe "JSON.parse(require('fs').readFileSync(0, 'utf8'))$1"; }\n`;
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', prelude + readme![1]!], {
      env: { ...process.env, API: `${t.url}/api/v1`, AUTH: `Authorization: Bearer ${t.tenant.apiKey.rawKey}`, CASH: t.accounts.cash, SALES: t.accounts.sales },
      timeout: 30_000,
    });
    const expected = [...readme![1]!.matchAll(/^# (\{.*\}|[A-Z]+)$/gm)].map((m) => m[1]);
    expect(stdout.trim().split('\n')).toEqual(expected);
    // The document's examples are this run's answers, ids and times aside.
    const [statement] = (await t.client.get(`/api/v1/bank-statements?accountId=${t.accounts.cash}`)).body.items;
    const example = RECONCILIATION_EXAMPLES.importBankStatement!.response!.body as Record<string, unknown>;
    // The example is the import's answer; the fee has been ignored since.
    expect(statement.summary).toEqual({ ...(example.summary as object), unmatched: 0, ignored: 1 });
    expect(Object.keys(statement).sort()).toEqual(Object.keys(example).sort());
    const lines = (await t.client.get(`/api/v1/bank-statements/${statement.statementId}/lines`)).body;
    const exampleLines = RECONCILIATION_EXAMPLES.listBankStatementLines!.response!.body as { items: Array<Record<string, unknown>> };
    const shown = (line: Record<string, unknown>) => ({ ...line, lineId: 0, statementId: 0, matchedEntryIds: (line.matchedEntryIds as unknown[]).length, matchedAt: line.matchedAt === null, bookingDate: 0, valueDate: 0 });
    expect(lines.items.map(shown)).toEqual(exampleLines.items.map(shown));
  });
});

describe('bank statements belong to their tenant, and need their scopes', () => {
  const t = useServerWithAccounts({ accounts: { bank: 'ASSET', revenue: 'REVENUE' } });

  it("another tenant's key finds nothing of them and changes nothing; a key without RECONCILIATION_WRITE imports nothing", async () => {
    const { bank, revenue } = t.accounts;
    expect((await post(t.client, [fiat(bank, 'DEBIT', '12'), fiat(revenue, 'CREDIT', '12')])).status).toBe(201);
    const imported = await importFile(t.client, bank, camt('ISO-1', [{ amount: '12', direction: 'CRDT', ref: 'I1' }, { amount: '13', direction: 'CRDT', ref: 'I2' }]));
    expect(imported.status, imported.text).toBe(201);
    const { statementId } = imported.body;
    const lines = (await t.client.get(`/api/v1/bank-statements/${statementId}/lines`)).body.items;
    const entryId = lines[0].matchedEntryIds[0];

    const beta = await createTenant(t.dbPath, `Beta-${randomUUID()}`);
    const other = client(t.url, beta.apiKey.rawKey);
    const otherBank = await makeAccount(other, { name: 'bank' });
    expectError(await importFile(other, bank, camt('ISO-2', [{ amount: '1', direction: 'CRDT' }])), 404, 'NOT_FOUND');
    expectError(await other.get(`/api/v1/bank-statements/${statementId}`), 404, 'NOT_FOUND');
    expectError(await other.get(`/api/v1/bank-statements/${statementId}/lines`), 404, 'NOT_FOUND');
    expect((await other.get('/api/v1/bank-statements')).body.items).toEqual([]);
    expectError(await other.post(`/api/v1/bank-statement-lines/${lines[1].lineId}/ignore`, { note: 'x' }, { 'idempotency-key': 'b1' }), 404, 'NOT_FOUND');
    expectError(await other.post(`/api/v1/bank-statements/${statementId}/reconcile`), 404, 'NOT_FOUND');
    expectError(await other.del(`/api/v1/bank-statements/${statementId}`, { 'idempotency-key': 'b2' }), 404, 'NOT_FOUND');
    expectError(await other.get(`/api/v1/accounts/${bank}/unreconciled-entries`), 404, 'NOT_FOUND');
    // Its own line cannot take this tenant's entry.
    const own = await importFile(other, otherBank, camt('ISO-3', [{ amount: '12', direction: 'CRDT' }]));
    const [ownLine] = (await other.get(`/api/v1/bank-statements/${own.body.statementId}/lines`)).body.items;
    expectError(await other.post(`/api/v1/bank-statement-lines/${ownLine.lineId}/match`, { entryIds: [entryId] }, { 'idempotency-key': 'b3' }), 422, 'MATCH_REFUSED');

    const reader = client(t.url, (await t.client.post('/api/v1/api-keys', { scopes: ['RECONCILIATION_READ'] })).body.rawKey);
    expect((await reader.get(`/api/v1/bank-statements/${statementId}`)).status).toBe(200);
    expectError(await importFile(reader, bank, camt('ISO-4', [{ amount: '1', direction: 'CRDT' }])), 403, 'FORBIDDEN');
    expectError(await reader.post(`/api/v1/bank-statement-lines/${lines[1].lineId}/ignore`, { note: 'x' }, { 'idempotency-key': 'r1' }), 403, 'FORBIDDEN');
    const writerOnly = client(t.url, (await t.client.post('/api/v1/api-keys', { scopes: ['TRANSACTIONS_WRITE'] })).body.rawKey);
    expectError(await writerOnly.get(`/api/v1/bank-statements/${statementId}`), 403, 'FORBIDDEN');
    // Nothing changed.
    expect((await t.client.get(`/api/v1/bank-statements/${statementId}`)).body).toEqual(imported.body);
  });
});
