// The bank statement parsers (camt.053 and CSV) on files written here: every field they read, and every refusal with
// the path it names; a camt.053 file's DTD, entity declaration or entity reference is refused, never expanded.
import { describe, expect, it } from 'vitest';
import { parseCamt053 } from '../../src/core/bankFiles/camt053.js';
import { parseCsvStatement } from '../../src/core/bankFiles/csvStatement.js';
import type { CsvStatementOptions } from '../../src/core/bankStatement.js';
import { LedgerError } from '../../src/core/errors.js';

/** The LedgerError a call throws: a 400 VALIDATION_FAILED. */
function refusal(run: () => unknown): LedgerError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).code).toBe('VALIDATION_FAILED');
    return error as LedgerError;
  }
  throw new Error('expected a refusal');
}

// camt.053 files.

const NS = (version: string) => `urn:iso:std:iso:20022:tech:xsd:camt.053.001.${version}`;

const camt = (version: string, statements: string, prolog = '') => `<?xml version="1.0" encoding="UTF-8"?>
${prolog}<Document xmlns="${NS(version)}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2026-12-01T06:00:00</CreDtTm></GrpHdr>
${statements}
  </BkToCstmrStmt>
</Document>
`;

/** Every tag of a document written with the namespace prefix `ns2:`, the namespace bound to it. */
const prefixed = (xml: string) => xml.replace(/<(\/?)([A-Za-z])/g, '<$1ns2:$2').replace(' xmlns="', ' xmlns:ns2="');

const balance = (code: string, amount: string, sign: string, ccy = 'EUR') =>
  `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="${ccy}">${amount}</Amt><CdtDbtInd>${sign}</CdtDbtInd><Dt><Dt>2026-11-30</Dt></Dt></Bal>`;

interface EntryFields {
  amount?: string;
  ccy?: string;
  sign?: string;
  status?: string;
  bookingDate?: string;
  valueDate?: string;
  ref?: string;
  details?: string;
  info?: string;
}

const entry = (f: EntryFields) => `<Ntry>
  <Amt Ccy="${f.ccy ?? 'EUR'}">${f.amount ?? '10.00'}</Amt><CdtDbtInd>${f.sign ?? 'CRDT'}</CdtDbtInd>
  ${f.status ?? '<Sts>BOOK</Sts>'}
  ${f.bookingDate ?? '<BookgDt><Dt>2026-11-03</Dt></BookgDt>'}${f.valueDate ?? ''}
  ${f.ref === undefined ? '' : `<AcctSvcrRef>${f.ref}</AcctSvcrRef>`}
  <BkTxCd><Domn><Cd>PMNT</Cd></Domn></BkTxCd>
  ${f.details ?? ''}${f.info === undefined ? '' : `<AddtlNtryInf>${f.info}</AddtlNtryInf>`}
</Ntry>`;

const statement = (id: string, body: string) => `<Stmt><Id>${id}</Id>${body}</Stmt>`;

/** Version .001.02: `Sts` as text, the parties' names right under `Dbtr` and `Cdtr`. */
const version02 = camt(
  '02',
  statement(
    'STMT-2026-11',
    `<ElctrncSeqNb>42</ElctrncSeqNb>
    <CreDtTm>2026-12-01T06:00:00</CreDtTm>
    <FrToDt><FrDtTm>2026-11-01T00:00:00+01:00</FrDtTm><ToDtTm>2026-11-30T23:59:59</ToDtTm></FrToDt>
    <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
    ${balance('OPBD', '120.50', 'DBIT')}
    ${balance('ITBD', '5.00', 'CRDT')}
    ${balance('CLBD', '679.00', 'CRDT')}
    ${entry({
      amount: '1000.00',
      ref: 'BANK-REF-1',
      valueDate: '<ValDt><Dt>2026-11-04</Dt></ValDt>',
      details: `<NtryDtls><TxDtls>
        <Refs><AcctSvcrRef>BANK-REF-1</AcctSvcrRef><InstrId>INSTR-1</InstrId><EndToEndId>E2E-1</EndToEndId></Refs>
        <RltdPties>
          <Dbtr><Nm>A&amp;B GmbH &#8211; K&#xF6;ln</Nm></Dbtr>
          <DbtrAcct><Id><IBAN>FR7630006000011234567890189</IBAN></Id></DbtrAcct>
          <Cdtr><Nm>Us</Nm></Cdtr>
        </RltdPties>
        <RmtInf><Ustrd>Invoice 17</Ustrd><Ustrd>and 18</Ustrd><Strd><CdtrRefInf><Ref>RF18539007547034</Ref></CdtrRefInf></Strd></RmtInf>
      </TxDtls></NtryDtls>`,
      info: 'SEPA credit',
    })}
    ${entry({ amount: '77.00', status: '<Sts>PDNG</Sts>', ref: 'PENDING-1' })}
    ${entry({ amount: '0.50', sign: 'DBIT', bookingDate: '<BookgDt><DtTm>2026-11-30T23:30:00-02:00</DtTm></BookgDt>', info: 'Account fee' })}
    ${entry({
      amount: '200.00',
      sign: 'DBIT',
      ref: 'INSTR-2',
      details: `<NtryDtls><TxDtls>
        <Refs><InstrId>INSTR-2</InstrId><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
        <RltdPties><Dbtr><Nm>Us</Nm></Dbtr><Cdtr><Nm>Landlord &lt;Ltd&gt;</Nm></Cdtr><CdtrAcct><Id><Othr><Id>12345678</Id></Othr></Id></CdtrAcct></RltdPties>
      </TxDtls></NtryDtls>`,
      info: 'Rent',
    })}`,
  ),
);

/** Version .001.08: `Sts/Cd`, the parties' names under `Pty`, a batch entry of two transactions. */
const version08 = camt(
  '08',
  statement(
    'S-08',
    `<FrToDt><FrDtTm>2026-11-30T00:00:00+01:00</FrDtTm><ToDtTm>2026-11-30T23:59:59.999Z</ToDtTm></FrToDt>
    <Acct><Id><Othr><Id>ACC-1</Id></Othr></Id></Acct>
    ${balance('OPBD', '0', 'DBIT', 'CHF')}
    ${balance('CLBD', '49.95', 'DBIT', 'CHF')}
    ${entry({
      amount: '49.95',
      ccy: 'CHF',
      sign: 'DBIT',
      status: '<Sts><Cd>BOOK</Cd></Sts>',
      ref: 'R-08',
      valueDate: '<ValDt><DtTm>2026-12-01T00:30:00+01:00</DtTm></ValDt>',
      details: `<NtryDtls><TxDtls>
        <Refs><EndToEndId>E2E-A</EndToEndId><InstrId>I-A</InstrId></Refs>
        <RltdPties>
          <Dbtr><Pty><Nm>Us</Nm></Pty></Dbtr>
          <Cdtr><Pty><Nm>Shop AG</Nm></Pty></Cdtr>
          <CdtrAcct><Id><IBAN>CH9300762011623852957</IBAN></Id></CdtrAcct>
        </RltdPties>
        <RmtInf><Strd><CdtrRefInf><Ref>REF-A</Ref></CdtrRefInf></Strd></RmtInf>
      </TxDtls><TxDtls>
        <Refs><EndToEndId>E2E-B</EndToEndId><InstrId>I-A</InstrId></Refs>
        <RltdPties><Cdtr><Pty><Nm>Other AG</Nm></Pty></Cdtr></RltdPties>
        <RmtInf><Ustrd>second</Ustrd><Strd><CdtrRefInf><Ref>REF-B</Ref></CdtrRefInf></Strd></RmtInf>
      </TxDtls></NtryDtls>`,
      info: 'Card batch',
    })}
    ${entry({ amount: '5.00', status: '<Sts><Cd>INFO</Cd></Sts>' })}
    ${entry({ amount: '3.00', status: '<Sts><Prtry>BOOK</Prtry></Sts>', details: '<NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>Payer</Nm></Pty></Dbtr></RltdPties></TxDtls></NtryDtls>' })}`,
  ),
);

const noOptions = {};
const oneEntry = (fields: EntryFields = {}, version = '02') => camt(version, statement('S1', entry(fields)));

describe('parseCamt053: the fields of version .001.02', () => {
  const parsed = parseCamt053(version02, noOptions);

  it("reads the statement's id, sequence number, period (as UTC instants), balances and currency", () => {
    expect({ ...parsed, lines: parsed.lines.length }).toEqual({
      externalId: 'STMT-2026-11',
      sequenceNumber: '42',
      from: '2026-10-31T23:00:00.000Z',
      to: '2026-11-30T23:59:59.000Z',
      openingBalance: '-120.50',
      closingBalance: '679.00',
      currency: 'EUR',
      lines: 3,
    });
  });

  it('reads a credit with its transaction: references in order, the debtor, the remittance lines, references decoded', () => {
    expect(parsed.lines[0]).toEqual({
      bankLineId: 'BANK-REF-1',
      bookingDate: '2026-11-03',
      valueDate: '2026-11-04',
      amount: '1000.00',
      direction: 'IN',
      currency: 'EUR',
      references: ['BANK-REF-1', 'E2E-1', 'INSTR-1', 'RF18539007547034'],
      counterparty: { name: 'A&B GmbH – Köln', account: 'FR7630006000011234567890189' },
      description: 'Invoice 17 and 18',
      at: 'Document/BkToCstmrStmt/Stmt[1]/Ntry[1]',
    });
  });

  it('skips the pending entry; a booking date-time is its UTC day; without details the entry text is the description', () => {
    expect(parsed.lines[1]).toEqual({
      bankLineId: null,
      bookingDate: '2026-12-01',
      valueDate: null,
      amount: '0.50',
      direction: 'OUT',
      currency: 'EUR',
      references: [],
      counterparty: { name: null, account: null },
      description: 'Account fee',
      at: 'Document/BkToCstmrStmt/Stmt[1]/Ntry[3]',
    });
  });

  it('a debit names the creditor and its other account id; NOTPROVIDED is no reference, a repeated one counts once', () => {
    expect(parsed.lines[2]).toMatchObject({
      bankLineId: 'INSTR-2',
      direction: 'OUT',
      references: ['INSTR-2'],
      counterparty: { name: 'Landlord <Ltd>', account: '12345678' },
      description: 'Rent',
      at: 'Document/BkToCstmrStmt/Stmt[1]/Ntry[4]',
    });
  });
});

describe('parseCamt053: the fields of version .001.08', () => {
  const parsed = parseCamt053(version08, noOptions);

  it('without Acct/Ccy the currency is the closing balance\'s; a zero debit balance has no sign', () => {
    expect({ ...parsed, lines: parsed.lines.length }).toEqual({
      externalId: 'S-08',
      sequenceNumber: null,
      from: '2026-11-29T23:00:00.000Z',
      to: '2026-11-30T23:59:59.999Z',
      openingBalance: '0',
      closingBalance: '-49.95',
      currency: 'CHF',
      lines: 2,
    });
  });

  it('reads Sts/Cd, Pty/Nm, a value date-time; counterparty and remittance from the first transaction, references from all', () => {
    expect(parsed.lines[0]).toEqual({
      bankLineId: 'R-08',
      bookingDate: '2026-11-03',
      valueDate: '2026-11-30',
      amount: '49.95',
      direction: 'OUT',
      currency: 'CHF',
      references: ['R-08', 'E2E-A', 'E2E-B', 'I-A', 'REF-A', 'REF-B'],
      counterparty: { name: 'Shop AG', account: 'CH9300762011623852957' },
      description: 'Card batch',
      at: 'Document/BkToCstmrStmt/Stmt[1]/Ntry[1]',
    });
  });

  it('skips INFO; takes a proprietary BOOK status; a credit names the debtor under Pty', () => {
    expect(parsed.lines[1]).toMatchObject({ amount: '3.00', direction: 'IN', counterparty: { name: 'Payer', account: null }, at: 'Document/BkToCstmrStmt/Stmt[1]/Ntry[3]' });
  });

  it('reads the same file with a namespace prefix on every element', () => {
    const xml = prefixed(version08);
    expect(xml).toContain('<ns2:Document xmlns:ns2="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"');
    expect(xml).toContain('<ns2:Amt Ccy="CHF">49.95</ns2:Amt>');
    expect(parseCamt053(xml, noOptions)).toEqual(parsed);
  });
});

describe('parseCamt053: versions', () => {
  it('takes every version from .001.02 to .001.13', () => {
    for (const version of ['02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12', '13']) {
      expect(parseCamt053(oneEntry({}, version), noOptions).lines, version).toHaveLength(1);
    }
  });

  it('refuses another namespace, naming it, and a Document without one', () => {
    for (const other of [NS('01'), NS('14'), 'urn:iso:std:iso:20022:tech:xsd:camt.052.001.08']) {
      const error = refusal(() => parseCamt053(oneEntry().replace(NS('02'), other), noOptions));
      expect(error.message).toContain(other);
      expect(error.details).toEqual([{ path: 'Document', message: error.message }]);
    }
    expect(refusal(() => parseCamt053(oneEntry().replace(` xmlns="${NS('02')}"`, ''), noOptions)).message).toContain('no namespace');
    expect(refusal(() => parseCamt053(`<Doc xmlns="${NS('02')}"/>`, noOptions)).message).toContain('the root element is Doc');
  });
});

describe('parseCamt053: a file of several statements', () => {
  const three = camt(
    '02',
    [
      statement('A1', `${balance('CLBD', '1.00', 'CRDT', 'USD')}${entry({ amount: '1.00', ccy: 'GBP' })}`),
      statement('A2', entry({ amount: '2.00', ccy: 'GBP' })),
      statement('A3', entry({ amount: '3.00' })),
    ].join('\n'),
  );

  it('without ?statement= is refused, naming the ids it holds', () => {
    const error = refusal(() => parseCamt053(three, noOptions));
    expect(error.message).toBe('the file holds 3 statements (A1, A2, A3): choose one with ?statement=');
    expect(error.details).toEqual([{ path: 'statement', message: error.message }]);
  });

  it('?statement= picks one, its lines named by its index; the currency falls back to the first booked entry\'s', () => {
    const second = parseCamt053(three, { statement: 'A2' });
    expect(second).toMatchObject({ externalId: 'A2', currency: 'GBP', from: null, to: null, openingBalance: null, closingBalance: null });
    expect(second.lines.map((line) => [line.amount, line.at])).toEqual([['2.00', 'Document/BkToCstmrStmt/Stmt[2]/Ntry[1]']]);
    expect(parseCamt053(three, { statement: 'A1' }).currency).toBe('USD');
  });

  it('an id the file does not hold is refused at statement, naming the ids; so is a wrong id for a file of one', () => {
    const error = refusal(() => parseCamt053(three, { statement: 'B9' }));
    expect(error.message).toBe('the file holds 3 statements (A1, A2, A3), none with the id B9: choose one with ?statement=');
    expect(error.details?.[0]?.path).toBe('statement');
    expect(parseCamt053(oneEntry(), { statement: 'S1' }).externalId).toBe('S1');
    expect(refusal(() => parseCamt053(oneEntry(), { statement: 'S2' })).details).toEqual([
      { path: 'statement', message: 'the file holds 1 statement (S1), none with the id S2: choose one with ?statement=' },
    ]);
  });

  it('refuses a statement without an Id, naming its path', () => {
    const xml = camt('02', `${statement('A1', '')}<Stmt>${entry({})}</Stmt>`);
    expect(refusal(() => parseCamt053(xml, noOptions)).details).toEqual([{ path: 'Document/BkToCstmrStmt/Stmt[2]/Id', message: 'is missing' }]);
  });
});

describe('parseCamt053: nothing in the file is expanded', () => {
  it('refuses a DTD and an entity declaration before parsing', () => {
    const withDtd = oneEntry().replace('<Document', '<!DOCTYPE Document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<Document');
    const declarationAlone = oneEntry().replace('<BkToCstmrStmt>', '<!-- <!ENTITY x "y"> --><BkToCstmrStmt>');
    for (const xml of [withDtd, declarationAlone, camt('02', statement('S1', ''), '<!doctype Document>\n')]) {
      expect(refusal(() => parseCamt053(xml, noOptions)).details).toEqual([{ path: 'body', message: 'a DTD or entity declaration is not accepted' }]);
    }
  });

  it('refuses an entity reference other than the five of XML, and a character reference that is no character', () => {
    const xxe = refusal(() => parseCamt053(oneEntry({ info: 'x &xxe; y' }), noOptions));
    expect(xxe.message).toMatch(/^an entity reference is not accepted \(&xxe; at line \d+\)$/);
    expect(xxe.details?.[0]?.path).toBe('body');
    expect(refusal(() => parseCamt053(oneEntry({ info: '&nbsp;' }), noOptions)).message).toContain('an entity reference is not accepted');
    expect(refusal(() => parseCamt053(oneEntry({ info: '&#0;' }), noOptions)).message).toContain('no character');
    expect(refusal(() => parseCamt053(oneEntry({ info: '&#x110000;' }), noOptions)).message).toContain('no character');
  });

  it('decodes the five predefined entities and numeric references, in text and in attributes', () => {
    const xml = oneEntry({ info: 'A&amp;B &lt;&gt; &quot;&apos; &#65;&#x42;&#x1F;', ccy: 'E&#85;R' });
    expect(parseCamt053(xml, noOptions).lines[0]).toMatchObject({ description: 'A&B <> "\' AB\u001f', currency: 'EUR' });
  });
});

describe('parseCamt053: refusals name the place', () => {
  it('malformed XML names its line and column', () => {
    const xml = oneEntry().replace('<CdtDbtInd>CRDT</CdtDbtInd>', '<CdtDbtInd>CRDT</CdtDbt>');
    const line = xml.split('\n').findIndex((text) => text.includes('</CdtDbt>')) + 1;
    const error = refusal(() => parseCamt053(xml, noOptions));
    expect(error.message).toMatch(new RegExp(`^the XML is malformed at line ${line}, column \\d+: .*CdtDbtInd`));
    expect(error.details).toEqual([{ path: 'body', message: error.message }]);
  });

  const at = 'Document/BkToCstmrStmt/Stmt[1]/Ntry[1]';
  const refusedAt = (fields: EntryFields) => refusal(() => parseCamt053(oneEntry(fields), noOptions)).details;

  it('a missing booking date, a bad amount, a zero amount, an unknown direction, a bad date, a missing status', () => {
    expect(refusedAt({ bookingDate: '' })).toEqual([{ path: `${at}/BookgDt`, message: 'is missing' }]);
    expect(refusedAt({ amount: '12,50' })).toEqual([{ path: `${at}/Amt`, message: 'is "12,50", not a decimal number' }]);
    expect(refusedAt({ amount: '-5.00' })).toEqual([{ path: `${at}/Amt`, message: 'is "-5.00", not a decimal number' }]);
    expect(refusedAt({ amount: '0.00' })).toEqual([{ path: `${at}/Amt`, message: 'is zero: a booked entry moves money' }]);
    expect(refusedAt({ sign: 'CRED' })).toEqual([{ path: `${at}/CdtDbtInd`, message: 'is "CRED", neither CRDT nor DBIT' }]);
    expect(refusedAt({ bookingDate: '<BookgDt><Dt>2026-02-30</Dt></BookgDt>' })).toEqual([{ path: `${at}/BookgDt/Dt`, message: 'is "2026-02-30", not a date (YYYY-MM-DD)' }]);
    expect(refusedAt({ valueDate: '<ValDt><DtTm>yesterday</DtTm></ValDt>' })).toEqual([{ path: `${at}/ValDt/DtTm`, message: 'is "yesterday", not an ISO 8601 date-time (not ISO 8601)' }]);
    expect(refusedAt({ status: '' })).toEqual([{ path: `${at}/Sts`, message: 'is missing' }]);
  });

  it("a bad balance amount, a bad period instant and a repeated element are refused at the statement's paths", () => {
    const refusedIn = (body: string) => refusal(() => parseCamt053(camt('02', statement('S1', body)), noOptions)).details;
    expect(refusedIn(balance('CLBD', '1e3', 'CRDT'))).toEqual([{ path: 'Document/BkToCstmrStmt/Stmt[1]/Bal[1]/Amt', message: 'is "1e3", not a decimal number' }]);
    expect(refusedIn('<FrToDt><FrDtTm>2026-13-01T00:00:00</FrDtTm></FrToDt>')).toEqual([
      { path: 'Document/BkToCstmrStmt/Stmt[1]/FrToDt/FrDtTm', message: 'is "2026-13-01T00:00:00", not an ISO 8601 date-time (not ISO 8601)' },
    ]);
    expect(refusedIn(entry({ details: '<AddtlNtryInf>a</AddtlNtryInf>', info: 'b' }))).toEqual([
      { path: 'Document/BkToCstmrStmt/Stmt[1]/Ntry[1]/AddtlNtryInf', message: 'appears 2 times, where camt.053 allows it once' },
    ]);
  });
});

// CSV files.

/** The file's text: a cell holding the delimiter or a quote is quoted, its quotes doubled. */
const csv = (rows: string[][], delimiter = ',') => {
  const cell = (value: string) => (value.includes(delimiter) || value.includes('"') ? `"${value.replaceAll('"', '""')}"` : value);
  return rows.map((row) => row.map(cell).join(delimiter)).join('\n') + '\n';
};
const csvLines = (text: string, options: CsvStatementOptions = {}) => parseCsvStatement(text, options).lines;

describe('parseCsvStatement: columns', () => {
  it('reads the default columns: the sign is the direction, empty optional cells are null, each line names its line', () => {
    const text = csv([
      ['bookingDate', 'valueDate', 'amount', 'currency', 'reference', 'description', 'counterparty', 'lineId'],
      ['2026-11-03', '2026-11-04', '1,234.56', 'EUR', 'E2E-1', 'Invoice 17', 'A&B GmbH', 'L-1'],
      ['2026-11-01', '', '-20', '', '', '', '', ''],
      ['2026-11-30T23:30:00-02:00', '', '+0.5', 'EUR', '', 'Fee, monthly', '', ''],
    ]);
    expect(parseCsvStatement(text, {})).toEqual({
      externalId: null,
      sequenceNumber: null,
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-12-01T23:59:59.999Z',
      openingBalance: null,
      closingBalance: null,
      currency: null,
      lines: [
        {
          bankLineId: 'L-1',
          bookingDate: '2026-11-03',
          valueDate: '2026-11-04',
          amount: '1234.56',
          direction: 'IN',
          currency: 'EUR',
          references: ['E2E-1'],
          counterparty: { name: 'A&B GmbH', account: null },
          description: 'Invoice 17',
          at: 'line 2',
        },
        {
          bankLineId: null,
          bookingDate: '2026-11-01',
          valueDate: null,
          amount: '20',
          direction: 'OUT',
          currency: null,
          references: [],
          counterparty: { name: null, account: null },
          description: null,
          at: 'line 3',
        },
        expect.objectContaining({ bookingDate: '2026-12-01', amount: '0.5', direction: 'IN', description: 'Fee, monthly', at: 'line 4' }),
      ],
    });
  });

  it('reads mapped columns by their header names, the others by their own; a header alone is a statement of no lines', () => {
    const text = csv([
      ['Date', 'Amount', 'description', 'Payee'],
      ['2026-11-03', '-9.99', 'Coffee', 'Café'],
    ]);
    const columns = { bookingDate: 'Date', amount: 'Amount', counterparty: 'Payee' };
    expect(csvLines(text, { columns })).toEqual([expect.objectContaining({ amount: '9.99', direction: 'OUT', description: 'Coffee', counterparty: { name: 'Café', account: null } })]);
    expect(parseCsvStatement('bookingDate,amount\n', {})).toMatchObject({ lines: [], from: null, to: null });
  });

  it('refuses a required column the header lacks, a mapped one it lacks, and a mapping of an unknown name', () => {
    const text = csv([['Date', 'Betrag'], ['2026-11-03', '1']]);
    expect(refusal(() => csvLines(text, { columns: { bookingDate: 'Date' } })).details).toEqual([
      { path: 'columns', message: 'the header has no column "amount" (for amount); its columns are Date, Betrag' },
    ]);
    expect(refusal(() => csvLines(text, { columns: { bookingDate: 'Date', amount: 'Betrag', reference: 'Ref' } })).details?.[0]?.message).toContain('"Ref" (for reference)');
    const unknown = refusal(() => csvLines(text, { columns: { date: 'Date' } }));
    expect(unknown.details).toEqual([{ path: 'columns', message: expect.stringContaining('"date", which is none of bookingDate, valueDate, amount') }]);
  });

  it('refuses a file without a header and a delimiter it does not know', () => {
    expect(refusal(() => csvLines('')).details).toEqual([{ path: 'body', message: 'has no header row' }]);
    expect(refusal(() => csvLines('bookingDate,amount\n', { delimiter: ':' })).details?.[0]?.path).toBe('delimiter');
  });
});

describe('parseCsvStatement: amounts and dates', () => {
  it('decimal=, with ; as the delimiter reads 1.234,56 and -1234,56', () => {
    const text = csv(
      [
        ['bookingDate', 'amount'],
        ['2026-11-03', '1.234,56'],
        ['2026-11-03', '-1234,56'],
        ['2026-11-03', '12.345.678'],
      ],
      ';',
    );
    expect(csvLines(text, { decimal: ',', delimiter: ';' }).map((line) => [line.amount, line.direction])).toEqual([
      ['1234.56', 'IN'],
      ['1234.56', 'OUT'],
      ['12345678', 'IN'],
    ]);
  });

  it('reads a tab- or pipe-delimited file', () => {
    expect(csvLines(csv([['bookingDate', 'amount'], ['2026-11-03', '1.00']], '\t'), { delimiter: '\t' })).toHaveLength(1);
    expect(csvLines(csv([['bookingDate', 'amount'], ['2026-11-03', '1.00']], '|'), { delimiter: '|' })).toHaveLength(1);
  });

  it('refuses an amount that is not a decimal number, naming the line and the cell', () => {
    for (const [amount, decimal] of [['12x', '.'], ['1.2.3', '.'], ['1,23.4', '.'], ['1.234,5', '.'], ['1,234.5', ','], ['--1', '.'], ['', '.']] as const) {
      const text = csv([['bookingDate', 'amount'], ['2026-11-03', '1'], ['2026-11-04', amount]]);
      expect(refusal(() => csvLines(text, { decimal })).details, amount).toEqual([{ path: 'line 3.amount', message: `amount "${amount}" is not a decimal number` }]);
    }
  });

  it('refuses a zero amount', () => {
    const error = refusal(() => csvLines(csv([['bookingDate', 'amount'], ['2026-11-03', '-0.00']])));
    expect(error.details).toEqual([{ path: 'line 2.amount', message: 'amount "-0.00" is zero: a line moves money' }]);
  });

  it('reads each date format into YYYY-MM-DD', () => {
    const dates = (dateFormat: CsvStatementOptions['dateFormat'], ...cells: string[]) =>
      csvLines(csv([['bookingDate', 'valueDate', 'amount'], ...cells.map((cell) => [cell, cell, '1'])]), { dateFormat }).map((line) => [line.bookingDate, line.valueDate]);
    expect(dates('YYYY-MM-DD', '2024-02-29', '2026-11-30T23:00:00Z')).toEqual([['2024-02-29', '2024-02-29'], ['2026-11-30', '2026-11-30']]);
    expect(dates('DD/MM/YYYY', '03/11/2026', '3/1/2026')).toEqual([['2026-11-03', '2026-11-03'], ['2026-01-03', '2026-01-03']]);
    expect(dates('MM/DD/YYYY', '11/03/2026', '1/31/2026')).toEqual([['2026-11-03', '2026-11-03'], ['2026-01-31', '2026-01-31']]);
  });

  it('refuses an impossible date or one in another format, at its cell; an empty booking date too', () => {
    const refusedAt = (dateFormat: CsvStatementOptions['dateFormat'], bookingDate: string, valueDate = '') =>
      refusal(() => csvLines(csv([['bookingDate', 'valueDate', 'amount'], [bookingDate, valueDate, '1']]), { dateFormat })).details;
    expect(refusedAt('YYYY-MM-DD', '2026-02-30')).toEqual([{ path: 'line 2.bookingDate', message: 'bookingDate "2026-02-30" is not a date in the format YYYY-MM-DD' }]);
    expect(refusedAt('YYYY-MM-DD', '03/11/2026')).toEqual([{ path: 'line 2.bookingDate', message: 'bookingDate "03/11/2026" is not a date in the format YYYY-MM-DD' }]);
    expect(refusedAt('DD/MM/YYYY', '31/02/2026')).toEqual([{ path: 'line 2.bookingDate', message: 'bookingDate "31/02/2026" is not a date in the format DD/MM/YYYY' }]);
    expect(refusedAt('MM/DD/YYYY', '11/03/2026', '13/01/2026')).toEqual([{ path: 'line 2.valueDate', message: 'valueDate "13/01/2026" is not a date in the format MM/DD/YYYY' }]);
    expect(refusedAt('YYYY-MM-DD', '')).toEqual([{ path: 'line 2.bookingDate', message: 'bookingDate is empty' }]);
  });
});

describe('parseCsvStatement: the file', () => {
  it('malformed CSV (a quote never closed, a row of another width) is refused naming the line', () => {
    const unclosed = refusal(() => csvLines('bookingDate,amount\n2026-11-03,1\n2026-11-04,"2\n'));
    expect(unclosed.message).toMatch(/^the CSV is malformed at line \d+: Quote Not Closed/);
    expect(unclosed.details).toEqual([{ path: 'body', message: unclosed.message }]);
    expect(refusal(() => csvLines('bookingDate,amount\n2026-11-03,1\n2026-11-04\n')).message).toMatch(/^the CSV is malformed at line 3: /);
  });

  it('a byte-order mark is not part of the first header; empty lines are skipped and still counted', () => {
    const text = '\ufeffbookingDate,amount\r\n\r\n2026-11-03,1\r\n';
    expect(csvLines(text)).toEqual([expect.objectContaining({ bookingDate: '2026-11-03', amount: '1', at: 'line 3' })]);
  });
});
