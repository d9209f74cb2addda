// `ledger bank-statements import|list|show|match|unmatch|ignore|reconcile|delete`: a bank's camt.053 or CSV file
// imported from disk and its lines worked by an operator, straight on the database, answering what the HTTP
// endpoints answer. One server, tenant and database for the file; each command is the real binary.
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, fiat, post, useServerWithAccounts, type Client } from '../helpers/server.js';

interface Entry {
  amount: string;
  direction: 'CRDT' | 'DBIT';
  booked?: string;
  ref?: string;
  endToEnd?: string;
  status?: string;
}

const today = () => new Date().toISOString().slice(0, 10);

/** A camt.053.001.02 file of one statement (test/server/bank-statements.test.ts). */
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

const CSV_HEADER = 'index,lineId,bookingDate,valueDate,direction,amount,currency,status,matchRule,references,counterparty,description,matchedEntryIds,note';

describe('ledger bank-statements', () => {
  const t = useServerWithAccounts({ accounts: { bank: 'ASSET', revenue: 'REVENUE', euros: { currency: 'EUR', type: 'ASSET' } } });
  let c: Client;
  let bank: string;
  let euros: string;
  /** The bank account's entries, newest first: 7, 60, 40. */
  let e7: string, e60: string, e40: string;
  let camtFile: string;
  let statementId: string;
  /** The statement's lines in the file's order: 100 in, 2.50 out (the fee), 7 in. */
  let lineIds: string[];
  const file = (name: string, content: string) => {
    const path = join(t.dir, name);
    writeFileSync(path, content);
    return path;
  };
  const run = (...args: string[]) => cli(['--db', t.dbPath, 'bank-statements', ...args, '--tenant', t.tenant.tenantId]);

  beforeAll(async () => {
    c = t.client;
    ({ bank, euros } = t.accounts);
    for (const amount of ['40', '60', '7']) expect((await post(c, [fiat(bank, 'DEBIT', amount), fiat(t.accounts.revenue, 'CREDIT', amount)])).status).toBe(201);
    [e7, e60, e40] = (await c.get(`/api/v1/accounts/${bank}/entries`)).body.entries.map((e: any) => e.entryId as string);
    camtFile = file(
      'statement.xml',
      camt('CLI-1', [{ amount: '100', direction: 'CRDT', ref: 'X1' }, { amount: '2.50', direction: 'DBIT', ref: 'X2' }, { amount: '7.00', direction: 'CRDT', ref: 'X3' }], { closing: '104.50' }),
    );
  });

  it('imports a camt.053 file (.xml: camt053), prints the statement as stored or its summary, and once only', async () => {
    const imported = await run('import', camtFile, '--account', bank, '--json');
    expect(imported.code, imported.stderr).toBe(0);
    const statement = JSON.parse(imported.stdout);
    expect(statement).toMatchObject({ accountId: bank, format: 'CAMT053', externalId: 'CLI-1', currency: 'USD', lineCount: 3, openingBalance: 0, closingBalance: 104.5 });
    expect(statement.summary).toEqual({ matched: 1, unmatched: 2, ignored: 0, duplicates: 0, ledgerBalanceAtEnd: 107, difference: -2.5 });
    statementId = statement.statementId;
    expect((await c.get(`/api/v1/bank-statements/${statementId}`)).body).toEqual(statement);
    lineIds = (await c.get(`/api/v1/bank-statements/${statementId}/lines`)).body.items.map((l: any) => l.lineId as string);
    expect(lineIds).toHaveLength(3);

    // The same file again: the statement as it is, as a table of its summary.
    const again = await run('import', camtFile, '--account', bank);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/imported before/);
    for (const head of ['statement', 'lines', 'matched', 'unmatched', 'ignored', 'duplicates', 'closing', 'ledger', 'difference']) expect(again.stdout).toContain(head);
    expect(again.stdout).toContain(statementId);
    expect(again.stdout).toMatch(/104\.5.*107.*-2\.5/);
  });

  it('imports a CSV with --columns, --decimal, --delimiter and --date-format (--input csv for another extension)', async () => {
    const day = today().split('-').reverse().join('/');
    const csvFile = file('export.txt', `Datum;Betrag;Referenz;Partner\n${day};1.234,56;R-1;=Evil Corp\n${day};-10,00;R-2;Shop\n`);
    const options = ['--columns', 'bookingDate:Datum,amount:Betrag,reference:Referenz,counterparty:Partner', '--decimal', ',', '--delimiter', ';', '--date-format', 'DD/MM/YYYY'];
    // A file that is neither .xml nor .csv needs --input.
    const unknown = await run('import', csvFile, '--account', euros, ...options);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--input camt053 or --input csv/);

    const imported = await run('import', csvFile, '--account', euros, '--input', 'csv', ...options, '--json');
    expect(imported.code, imported.stderr).toBe(0);
    const statement = JSON.parse(imported.stdout);
    expect(statement).toMatchObject({ accountId: euros, format: 'CSV', currency: 'EUR', lineCount: 2, openingBalance: null, closingBalance: null });
    expect(statement.externalId).toMatch(/^[0-9a-f]{64}$/);

    const shown = await run('show', statement.statementId, '--format', 'json');
    expect(shown.code, shown.stderr).toBe(0);
    const { statement: got, lines } = JSON.parse(shown.stdout);
    expect(got).toEqual(statement);
    expect(lines.map((l: any) => [l.amount, l.direction, l.references, l.counterparty.name])).toEqual([[1234.56, 'IN', ['R-1'], '=Evil Corp'], [10, 'OUT', ['R-2'], 'Shop']]);
    // A cell a spreadsheet would evaluate is written as text.
    const csv = await run('show', statement.statementId, '--format', 'csv');
    expect(csv.stdout).toContain(",'=Evil Corp,");
  });

  it('refuses bad options (exit 2) and a file the account cannot take (exit 1), writing nothing', async () => {
    const large = join(t.dir, 'large.xml');
    writeFileSync(large, '');
    truncateSync(large, 20 * 1024 * 1024 + 1);
    const euroFile = file('euros.xml', camt('EUR-1', [{ amount: '1', direction: 'CRDT' }], { currency: 'EUR' }));
    // None of them writes: they run side by side.
    const [noAccount, badInput, csvOption, tooLarge, wrongCurrency] = await Promise.all([
      run('import', camtFile),
      run('import', camtFile, '--account', bank, '--input', 'pdf'),
      run('import', camtFile, '--account', bank, '--decimal', ','),
      run('import', large, '--account', bank),
      run('import', euroFile, '--account', bank),
    ]);
    expect([noAccount, badInput, csvOption, tooLarge].map((r) => r.code), [noAccount, badInput, csvOption, tooLarge].map((r) => r.stderr).join('\n')).toEqual([2, 2, 2, 2]);
    expect(noAccount.stderr).toMatch(/--account/);
    expect(badInput.stderr).toMatch(/camt053, csv/);
    expect(csvOption.stderr).toMatch(/--decimal is for a CSV file/);
    expect(tooLarge.stderr).toMatch(/larger than 20 MiB/);
    expect(wrongCurrency.code).toBe(1);
    expect(wrongCurrency.stderr).toMatch(/in EUR/);
    expect((await c.get(`/api/v1/bank-statements?accountId=${bank}`)).body.items.map((s: any) => s.statementId)).toEqual([statementId]);
  });

  it('lists the statements, newest first, and shows one: csv, json and --status', async () => {
    const [listed, mine, badLimit, csv, unmatched, table, badStatus, badFormat] = await Promise.all([
      run('list', '--json'),
      run('list', '--account', bank),
      run('list', '--limit', '0'),
      run('show', statementId, '--format', 'csv'),
      run('show', statementId, '--status', 'UNMATCHED', '--format', 'json'),
      run('show', statementId),
      run('show', statementId, '--status', 'DONE'),
      run('show', statementId, '--format', 'xlsx'),
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    const page = JSON.parse(listed.stdout);
    expect(page).toEqual((await c.get('/api/v1/bank-statements')).body);
    expect(page.items).toHaveLength(2);
    expect(page.items[1].statementId).toBe(statementId);
    expect(mine.code, mine.stderr).toBe(0);
    expect(mine.stdout).toContain(statementId);
    expect(mine.stdout).toContain('CLI-1');
    expect(mine.stdout).not.toContain(page.items[0].statementId);
    expect([badLimit.code, badStatus.code, badFormat.code]).toEqual([2, 2, 2]);

    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[0]).toBe(CSV_HEADER);
    const rows = parse(csv.stdout, { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({
      index: '0',
      lineId: lineIds[0],
      bookingDate: today(),
      valueDate: today(),
      direction: 'IN',
      amount: '100',
      currency: 'USD',
      status: 'UNMATCHED',
      matchRule: '',
      references: 'X1',
      counterparty: 'Payer Ltd DE89370400440532013000',
      description: 'Invoice 42',
      matchedEntryIds: '',
      note: '',
    });
    expect(rows[2]).toMatchObject({ index: '2', amount: '7', status: 'MATCHED', matchRule: 'AMOUNT_DATE', matchedEntryIds: e7 });

    expect(unmatched.code, unmatched.stderr).toBe(0);
    const shown = JSON.parse(unmatched.stdout);
    expect(shown.statement.statementId).toBe(statementId);
    expect(shown.lines.map((l: any) => l.lineId)).toEqual(lineIds.slice(0, 2));

    expect(table.code, table.stderr).toBe(0);
    for (const id of [statementId, ...lineIds]) expect(table.stdout).toContain(id);
  });

  it('matches by hand, unmatches, ignores, reconciles and deletes', async () => {
    const [line, fee] = lineIds as [string, string];
    const refused = await run('match', line, '--entries', e40);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/difference of 60/);
    const matched = await run('match', line, '--entries', `${e40}, ${e60}`, '--note', 'two invoices', '--json');
    expect(matched.code, matched.stderr).toBe(0);
    expect(JSON.parse(matched.stdout)).toMatchObject({ lineId: line, status: 'MATCHED', matchedBy: 'MANUAL', note: 'two invoices' });
    expect(JSON.parse(matched.stdout).matchedEntryIds.sort()).toEqual([e40, e60].sort());
    expect((await run('match', line, '--entries', 'nope')).code).toBe(2);

    // A line matched by hand keeps its statement until it is unmatched.
    const kept = await run('delete', statementId);
    expect(kept.code).toBe(1);
    const unmatched = await run('unmatch', line, '--note', 'wrong invoices');
    expect(unmatched.code, unmatched.stderr).toBe(0);
    expect(unmatched.stdout).toMatch(/UNMATCHED/);
    expect((await run('unmatch', line)).code).toBe(1);

    expect((await run('ignore', fee)).code).toBe(2);
    const ignored = await run('ignore', fee, '--note', 'bank fee, booked in December', '--json');
    expect(ignored.code, ignored.stderr).toBe(0);
    expect(JSON.parse(ignored.stdout)).toMatchObject({ lineId: fee, status: 'IGNORED', note: 'bank fee, booked in December' });
    expect((await c.get(`/api/v1/bank-statements/${statementId}/lines?status=IGNORED`)).body.items.map((l: any) => l.lineId)).toEqual([fee]);

    const reconciled = await run('reconcile', statementId, '--json');
    expect(reconciled.code, reconciled.stderr).toBe(0);
    expect(JSON.parse(reconciled.stdout).summary).toMatchObject({ matched: 1, unmatched: 1, ignored: 1 });
    const table = await run('reconcile', statementId);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(statementId);

    const deleted = await run('delete', statementId, '--json');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout).statementId).toBe(statementId);
    expect((await c.get(`/api/v1/bank-statements/${statementId}`)).status).toBe(404);
    const gone = await run('show', statementId);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/not found/i);
  });
});
