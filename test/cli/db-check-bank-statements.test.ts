// `ledger db check` over bank reconciliation (issue 43), on both engines: a statement imported and worked (lines
// matched by REFERENCE, AMOUNT_DATE, SUM and by hand, one ignored, one left UNMATCHED) passes; then one thing at a time
// is damaged by hand, named by its check (the command exits 1), and mended. `ledger db copy` carries the statement, its
// lines and their matches to a new SQLite file, whole by `db check` and served as they were.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/serve.js';
import { cli, client, createTenant, fiat, makeAccount, post, useServerWithAccounts } from '../helpers/server.js';
import { sqlOn } from '../helpers/sql.js';

interface CheckResult {
  kind: string;
  checked: number;
  problems: number;
  first: string | null;
}

const BANK_KINDS = ['bank statements', 'bank statement lines', 'bank matches', 'bank line matches'];
const today = () => new Date().toISOString().slice(0, 10);

interface LineRow {
  id: string;
  line_index: number | string;
  status: string;
}
interface MatchRow {
  entry_seq: number | string;
  entry_id: string;
  line_id: string;
  amount: number | string;
}
interface EntryRow {
  seq: number | string;
  entry_id: string;
  account_id: string;
  amount: number | string;
}

describe('ledger db check, bank statements', () => {
  const t = useServerWithAccounts({ accounts: { bank: 'ASSET', revenue: 'REVENUE', other: 'ASSET' } });
  let statementId: string;
  /** The statement's lines by their index in the file. */
  let lines: LineRow[];
  let matches: MatchRow[];
  let n = 0;
  const key = () => ({ 'idempotency-key': `bank-check-${n++}` });

  const check = async () => {
    const res = await cli(['--db', t.dbPath, 'db', 'check', '--json']);
    expect(res.stdout, res.stderr).not.toBe('');
    const report = JSON.parse(res.stdout) as { ok: boolean; results: CheckResult[] };
    return { code: res.code, report, of: (kind: string) => report.results.find((r) => r.kind === kind)! };
  };
  /** The bank checks that found problems, by kind. */
  const failing = (results: CheckResult[]) => Object.fromEntries(results.filter((r) => r.problems > 0).map((r) => [r.kind, r.problems]));
  /** Runs one damage by hand, checks, and mends it: the check must pass again. */
  const damaged = async (change: [string, unknown[]], mend: [string, unknown[]]) => {
    expect((await sqlOn(t.dbPath, ...change)).changes, change[0]).toBeGreaterThan(0);
    let run: Awaited<ReturnType<typeof check>>;
    try {
      run = await check();
    } finally {
      expect((await sqlOn(t.dbPath, ...mend)).changes, mend[0]).toBeGreaterThan(0);
    }
    expect(run.code).toBe(1);
    expect(run.report.ok).toBe(false);
    return run;
  };
  const lineAt = (index: number) => lines.find((l) => Number(l.line_index) === index)!;
  const matchesOf = (index: number) => matches.filter((m) => m.line_id === lineAt(index).id);
  const entryRows = async (accountId: string) =>
    (await sqlOn<EntryRow>(t.dbPath, 'select seq, substr(view, 13, 36) as entry_id, account_id, amount from entries where account_id = ? order by seq', [accountId])).rows;

  beforeAll(async () => {
    const { bank, revenue } = t.accounts;
    const postings = [
      [fiat(bank, 'DEBIT', '100.00', 'USD', { bankReference: 'REF-1' }), fiat(revenue, 'CREDIT', '100.00')],
      [fiat(bank, 'DEBIT', '77.31'), fiat(revenue, 'CREDIT', '77.31')],
      [fiat(bank, 'CREDIT', '30', 'USD', { bankReference: 'PAYOUTS-9' }), fiat(revenue, 'DEBIT', '30')],
      [fiat(bank, 'CREDIT', '12.5', 'USD', { bankReference: 'PAYOUTS-9' }), fiat(revenue, 'DEBIT', '12.5')],
      [fiat(bank, 'DEBIT', '10'), fiat(revenue, 'CREDIT', '10')],
      [fiat(bank, 'DEBIT', '15'), fiat(revenue, 'CREDIT', '15')],
    ];
    for (const lines of postings) expect((await post(t.client, lines)).status).toBe(201);
    const day = today();
    const csv = ['bookingDate,amount,reference,lineId', `${day},100.00,REF-1,B-1`, `${day},77.31,,B-2`, `${day},-42.50,PAYOUTS-9,B-3`, `${day},-5.00,,B-4`, `${day},-1.25,,B-5`, `${day},25.00,,B-6`].join('\n');
    const imported = await t.client.request('POST', `/api/v1/accounts/${bank}/bank-statements`, { rawBody: `${csv}\n`, headers: { 'content-type': 'text/csv' } });
    expect(imported.status, imported.text).toBe(201);
    statementId = imported.body.statementId;
    const items = (await t.client.get(`/api/v1/bank-statements/${statementId}/lines`)).body.items;
    expect(items.map((l: any) => [l.status, l.matchRule])).toEqual([
      ['MATCHED', 'REFERENCE'],
      ['MATCHED', 'AMOUNT_DATE'],
      ['MATCHED', 'SUM'],
      ['UNMATCHED', null],
      ['UNMATCHED', null],
      ['UNMATCHED', null],
    ]);
    const ignored = await t.client.post(`/api/v1/bank-statement-lines/${items[4].lineId}/ignore`, { note: 'bank fee' }, key());
    expect(ignored.status, ignored.text).toBe(200);
    const [ten, fifteen] = (await entryRows(bank)).filter((e) => ['1000', '1500'].includes(String(e.amount)));
    const byHand = await t.client.post(`/api/v1/bank-statement-lines/${items[5].lineId}/match`, { entryIds: [ten!.entry_id, fifteen!.entry_id], note: 'two invoices' }, key());
    expect(byHand.status, byHand.text).toBe(200);

    lines = (await sqlOn<LineRow>(t.dbPath, 'select id, line_index, status from bank_statement_lines where statement_id = ? order by line_index', [statementId])).rows;
    matches = (await sqlOn<MatchRow>(t.dbPath, 'select entry_seq, entry_id, line_id, amount from bank_matches where statement_id = ? order by entry_seq', [statementId])).rows;
    expect(lines.map((l) => l.status)).toEqual(['MATCHED', 'MATCHED', 'MATCHED', 'UNMATCHED', 'IGNORED', 'MATCHED']);
    expect(matches).toHaveLength(6);
  });

  it('passes a ledger with a statement worked: every bank check, with what it looked at', async () => {
    const { code, report, of } = await check();
    expect(code, JSON.stringify(report)).toBe(0);
    expect(report.results.map((r) => r.kind).slice(-4)).toEqual(BANK_KINDS);
    expect(of('bank statements')).toEqual({ kind: 'bank statements', checked: 1, problems: 0, first: null });
    expect(of('bank statement lines')).toEqual({ kind: 'bank statement lines', checked: 6, problems: 0, first: null });
    expect(of('bank matches')).toEqual({ kind: 'bank matches', checked: 6, problems: 0, first: null });
    expect(of('bank line matches')).toEqual({ kind: 'bank line matches', checked: 6, problems: 0, first: null });
    const table = await cli(['--db', t.dbPath, 'db', 'check']);
    expect(table.code).toBe(0);
    for (const words of ['bank statements', '1 READY statements', '6 statement lines', '6 matches', '6 lines against their entries']) expect(table.stdout).toContain(words);
  });

  it('bank statements: stored counts that are not the lines\' counts are named', async () => {
    const tenant = t.tenant.tenantId;
    let run = await damaged(['update bank_statements set matched = matched - 1 where id = ?', [statementId]], ['update bank_statements set matched = matched + 1 where id = ?', [statementId]]);
    expect(failing(run.report.results)).toEqual({ 'bank statements': 1 });
    expect(run.of('bank statements').first).toBe(`bank statement ${statementId} of tenant ${tenant} (account ${t.accounts.bank}) keeps 6 lines, 3 matched and 1 ignored; its lines are 6, 4 MATCHED and 1 IGNORED`);

    // The UNMATCHED line set aside with nothing else changed: the ignored count no longer agrees.
    const unmatched = lineAt(3).id;
    run = await damaged(["update bank_statement_lines set status = 'IGNORED' where id = ?", [unmatched]], ["update bank_statement_lines set status = 'UNMATCHED' where id = ?", [unmatched]]);
    expect(failing(run.report.results)).toEqual({ 'bank statements': 1 });
    expect(run.of('bank statements').first).toContain('keeps 6 lines, 4 matched and 1 ignored; its lines are 6, 4 MATCHED and 2 IGNORED');

    run = await damaged(['update bank_statements set line_count = line_count + 1 where id = ?', [statementId]], ['update bank_statements set line_count = line_count - 1 where id = ?', [statementId]]);
    expect(run.of('bank statements').first).toContain('keeps 7 lines');
  });

  it('bank statement lines: a line on another account than its statement\'s, or on no statement of its tenant, is named', async () => {
    const unmatched = lineAt(3).id;
    let run = await damaged(['update bank_statement_lines set account_id = ? where id = ?', [t.accounts.other, unmatched]], ['update bank_statement_lines set account_id = ? where id = ?', [t.accounts.bank, unmatched]]);
    expect(failing(run.report.results)).toEqual({ 'bank statement lines': 1 });
    expect(run.of('bank statement lines').first).toBe(
      `statement line ${unmatched} of tenant ${t.tenant.tenantId} is on account ${t.accounts.other}; its statement ${statementId} is of account ${t.accounts.bank}`,
    );

    const missing = '0190a1b2-0000-7000-8000-00000000dead';
    run = await damaged(['update bank_statement_lines set statement_id = ? where id = ?', [missing, unmatched]], ['update bank_statement_lines set statement_id = ? where id = ?', [statementId, unmatched]]);
    expect(run.of('bank statement lines').first).toBe(`statement line ${unmatched} of tenant ${t.tenant.tenantId} belongs to bank statement ${missing}, which is not a statement of the tenant`);
    // Its statement has one line fewer than it keeps.
    expect(run.of('bank statements').problems).toBe(1);
  });

  it('bank matches: a match naming another entry\'s id, another amount, no entry, another tenant\'s entry, or no line is named', async () => {
    const [match] = matchesOf(0);
    const seq = match!.entry_seq;
    const revenueEntry = (await entryRows(t.accounts.revenue))[0]!;
    const name = `the match of entry ${match!.entry_id} (seq ${seq}) to statement line ${lineAt(0).id} of tenant ${t.tenant.tenantId}`;

    let run = await damaged(['update bank_matches set entry_id = ? where entry_seq = ?', [revenueEntry.entry_id, seq]], ['update bank_matches set entry_id = ? where entry_seq = ?', [match!.entry_id, seq]]);
    expect(failing(run.report.results)).toEqual({ 'bank matches': 1 });
    expect(run.of('bank matches').first).toBe(
      `the match of entry ${revenueEntry.entry_id} (seq ${seq}) to statement line ${lineAt(0).id} of tenant ${t.tenant.tenantId} names entry ${revenueEntry.entry_id}, but the entry at seq ${seq} is ${match!.entry_id}`,
    );

    run = await damaged(['update bank_matches set amount = amount + 1 where entry_seq = ?', [seq]], ['update bank_matches set amount = amount - 1 where entry_seq = ?', [seq]]);
    expect(failing(run.report.results)).toEqual({ 'bank matches': 1 });
    expect(run.of('bank matches').first).toBe(`${name} keeps an amount of 10001 minor units; the entry is of 10000`);

    const nowhere = 999_999_999;
    run = await damaged(['update bank_matches set entry_seq = ? where entry_seq = ?', [nowhere, seq]], ['update bank_matches set entry_seq = ? where entry_seq = ?', [seq, nowhere]]);
    // Named once, by the check of the matches (the line's sum is not added up without it).
    expect(failing(run.report.results)).toEqual({ 'bank matches': 1 });
    expect(run.of('bank matches').first).toBe(`the match of entry ${match!.entry_id} (seq ${nowhere}) to statement line ${lineAt(0).id} of tenant ${t.tenant.tenantId} names no entry: there is none at seq ${nowhere}`);

    // Another tenant's entry of the same amount.
    const beta = await createTenant(t.dbPath, 'Beta');
    const betaClient = client(t.url, beta.apiKey.rawKey);
    const [betaCash, betaRevenue] = [await makeAccount(betaClient, { name: 'cash' }), await makeAccount(betaClient, { name: 'revenue', type: 'REVENUE' })];
    expect((await post(betaClient, [fiat(betaCash, 'DEBIT', '100.00'), fiat(betaRevenue, 'CREDIT', '100.00')])).status).toBe(201);
    const foreign = (await entryRows(betaCash))[0]!;
    run = await damaged(['update bank_matches set entry_seq = ? where entry_seq = ?', [foreign.seq, seq]], ['update bank_matches set entry_seq = ? where entry_seq = ?', [seq, foreign.seq]]);
    expect(failing(run.report.results)).toEqual({ 'bank matches': 1 });
    expect(run.of('bank matches').first).toBe(`the match of entry ${match!.entry_id} (seq ${foreign.seq}) to statement line ${lineAt(0).id} of tenant ${t.tenant.tenantId} names the entry at seq ${foreign.seq}, which is tenant ${beta.tenantId}'s`);

    // A match whose line is gone, and one that names another statement than its line's.
    const missing = '0190a1b2-0000-7000-8000-00000000beef';
    run = await damaged(['update bank_matches set line_id = ? where entry_seq = ?', [missing, seq]], ['update bank_matches set line_id = ? where entry_seq = ?', [lineAt(0).id, seq]]);
    expect(run.of('bank matches').first).toBe(`the match of entry ${match!.entry_id} (seq ${seq}) to statement line ${missing} of tenant ${t.tenant.tenantId} names a line that is not a statement line of the tenant`);
    // The line it left is MATCHED to nothing.
    expect(run.of('bank line matches').first).toBe(`statement line ${lineAt(0).id} of tenant ${t.tenant.tenantId} is MATCHED to no entry`);
    run = await damaged(['update bank_matches set statement_id = ? where entry_seq = ?', [missing, seq]], ['update bank_matches set statement_id = ? where entry_seq = ?', [statementId, seq]]);
    expect(failing(run.report.results)).toEqual({ 'bank matches': 1 });
    expect(run.of('bank matches').first).toBe(`${name} names bank statement ${missing}; the line is on statement ${statementId}`);
  });

  it('bank line matches: entries that do not add up to the line, on another account, side or currency, or matched to an UNMATCHED line, are named', async () => {
    const tenant = t.tenant.tenantId;
    const reference = lineAt(0).id;
    let run = await damaged(['update bank_statement_lines set amount = amount + 1 where id = ?', [reference]], ['update bank_statement_lines set amount = amount - 1 where id = ?', [reference]]);
    expect(failing(run.report.results)).toEqual({ 'bank line matches': 1 });
    expect(run.of('bank line matches').first).toBe(`statement line ${reference} of tenant ${tenant} is of 10001 minor units; its 1 matched entries add up to 10000`);

    // The SUM line turned IN: its two CREDIT entries are on the wrong side.
    const sum = lineAt(2).id;
    const [first] = matchesOf(2);
    run = await damaged(["update bank_statement_lines set direction = 'IN' where id = ?", [sum]], ["update bank_statement_lines set direction = 'OUT' where id = ?", [sum]]);
    expect(failing(run.report.results)).toEqual({ 'bank line matches': 2 });
    expect(run.of('bank line matches').first).toBe(`statement line ${sum} of tenant ${tenant} is matched to entry ${first!.entry_id}, a CREDIT; a line IN matches DEBIT entries`);

    // The REFERENCE line's match moved to the revenue side of the same posting (its id and amount kept true).
    const [match] = matchesOf(0);
    const revenueEntry = (await entryRows(t.accounts.revenue))[0]!;
    run = await damaged(
      ['update bank_matches set entry_seq = ?, entry_id = ? where entry_seq = ?', [revenueEntry.seq, revenueEntry.entry_id, match!.entry_seq]],
      ['update bank_matches set entry_seq = ?, entry_id = ? where entry_seq = ?', [match!.entry_seq, match!.entry_id, revenueEntry.seq]],
    );
    expect(failing(run.report.results)).toEqual({ 'bank line matches': 2 });
    expect(run.of('bank line matches').first).toBe(`statement line ${reference} of tenant ${tenant} is matched to entry ${revenueEntry.entry_id} on account ${t.accounts.revenue}; the line is on account ${t.accounts.bank}`);

    // A line in another currency than its entries (and its statement).
    run = await damaged(["update bank_statement_lines set currency = 'EUR' where id = ?", [reference]], ["update bank_statement_lines set currency = 'USD' where id = ?", [reference]]);
    expect(failing(run.report.results)).toEqual({ 'bank statement lines': 1, 'bank line matches': 1 });
    expect(run.of('bank line matches').first).toBe(`statement line ${reference} of tenant ${tenant} is matched to entry ${match!.entry_id} in USD; the line is in EUR`);
    expect(run.of('bank statement lines').first).toBe(`statement line ${reference} of tenant ${tenant} is in EUR; its statement ${statementId} is in USD`);

    // The AMOUNT_DATE line's match moved to the UNMATCHED line: one has entries it should not, the other none.
    const [amountMatch] = matchesOf(1);
    run = await damaged(['update bank_matches set line_id = ? where entry_seq = ?', [lineAt(3).id, amountMatch!.entry_seq]], ['update bank_matches set line_id = ? where entry_seq = ?', [lineAt(1).id, amountMatch!.entry_seq]]);
    expect(failing(run.report.results)).toEqual({ 'bank line matches': 2 });
    expect(run.of('bank line matches').first).toBe(`statement line ${lineAt(1).id} of tenant ${tenant} is MATCHED to no entry`);

    // An IGNORED line with an entry matched to it.
    run = await damaged(['update bank_matches set line_id = ? where entry_seq = ?', [lineAt(4).id, amountMatch!.entry_seq]], ['update bank_matches set line_id = ? where entry_seq = ?', [lineAt(1).id, amountMatch!.entry_seq]]);
    expect(run.of('bank line matches').problems).toBe(2);
    expect(run.of('bank line matches').first).toBe(`statement line ${lineAt(1).id} of tenant ${tenant} is MATCHED to no entry`);

    // Everything mended: whole again.
    expect((await check()).code).toBe(0);
  });

  it('the table names a damaged line and exits 1', async () => {
    const reference = lineAt(0).id;
    await sqlOn(t.dbPath, 'update bank_statement_lines set amount = amount + 1 where id = ?', [reference]);
    const table = await cli(['--db', t.dbPath, 'db', 'check']).finally(() => sqlOn(t.dbPath, 'update bank_statement_lines set amount = amount - 1 where id = ?', [reference]));
    expect(table.code).toBe(1);
    expect(table.stdout).toContain('FAILED');
    expect(table.stdout).toContain(reference);
  });

  it('ledger db copy to a new SQLite file carries the statement, its lines and matches: whole, and served as they were', async () => {
    const counts = async (db: string) => {
      const out: Record<string, number> = {};
      for (const table of ['bank_statements', 'bank_statement_lines', 'bank_matches', 'reconciliation_settings']) {
        out[table] = Number((await sqlOn<{ n: number | string }>(db, `select count(*) as n from ${table}`)).rows[0]!.n);
      }
      return out;
    };
    // An account's AMOUNT_DATE window, so that the settings table has a row to carry too.
    expect((await t.client.request('PUT', `/api/v1/accounts/${t.accounts.bank}/reconciliation-settings`, { body: { dateWindowDays: 5 } })).status).toBe(200);
    const before = await counts(t.dbPath);
    expect(before).toEqual({ bank_statements: 1, bank_statement_lines: 6, bank_matches: 6, reconciliation_settings: 1 });
    const statementBefore = (await t.client.get(`/api/v1/bank-statements/${statementId}`)).body;
    const linesBefore = (await t.client.get(`/api/v1/bank-statements/${statementId}/lines`)).body;

    const target = join(t.dir, 'copy.db');
    const copied = await cli(['db', 'copy', '--from', t.dbPath, '--to', target, '--json']);
    expect(copied.code, copied.stderr).toBe(0);
    const rows = Object.fromEntries((JSON.parse(copied.stdout) as { tables: Array<{ table: string; rows: number }> }).tables.map((r) => [r.table, r.rows]));
    expect({ bank_statements: rows.bank_statements, bank_statement_lines: rows.bank_statement_lines, bank_matches: rows.bank_matches, reconciliation_settings: rows.reconciliation_settings }).toEqual(before);
    expect(await counts(target)).toEqual(before);

    const checked = await cli(['--db', target, 'db', 'check', '--json']);
    expect(checked.code, checked.stdout).toBe(0);
    const results = (JSON.parse(checked.stdout) as { results: CheckResult[] }).results.filter((r) => BANK_KINDS.includes(r.kind));
    expect(results.map((r) => [r.kind, r.checked, r.problems])).toEqual([
      ['bank statements', 1, 0],
      ['bank statement lines', 6, 0],
      ['bank matches', 6, 0],
      ['bank line matches', 6, 0],
    ]);

    const running = await startServer({ db: target, host: '127.0.0.1', port: 0, log: () => {} });
    try {
      const c = client(running.url, t.tenant.apiKey.rawKey);
      expect((await c.get(`/api/v1/bank-statements/${statementId}`)).body).toEqual(statementBefore);
      const linesAfter = await c.get(`/api/v1/bank-statements/${statementId}/lines`);
      expect(linesAfter.body).toEqual(linesBefore);
      expect(linesAfter.body.items.flatMap((l: any) => l.matchedEntryIds)).toHaveLength(6);
      expect((await c.get(`/api/v1/accounts/${t.accounts.bank}/reconciliation-settings`)).body).toEqual({ accountId: t.accounts.bank, dateWindowDays: 5 });
      // The copied matches still hold their entries: the same entries are left unreconciled.
      expect((await c.get(`/api/v1/accounts/${t.accounts.bank}/unreconciled-entries`)).body.items).toEqual((await t.client.get(`/api/v1/accounts/${t.accounts.bank}/unreconciled-entries`)).body.items);
    } finally {
      await running.close();
    }
  });
});
