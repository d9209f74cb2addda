// Reads a camt.053 file (ISO 20022 BankToCustomerStatement, versions .001.02 to .001.13) into the statement's one shape.
// Nothing in the file is expanded: a DTD or entity declaration is refused unread, and only XML's own references are decoded.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { LineDirection, ParsedStatement, ParsedStatementLine } from '../bankStatement.js';
import { invalid } from '../errors.js';
import { parseInstant, toIso } from '../time.js';

type XmlValue = string | XmlElement | XmlValue[];
interface XmlElement {
  [name: string]: XmlValue | undefined;
}

const CAMT053_NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:camt\.053\.001\.(0[2-9]|1[0-3])$/;
const DECLARATION = /<!(DOCTYPE|ENTITY)/i;
/** Every reference (`&name;`, `&#n;`, `&#xh;`); the validator has made sure each `&` of a text starts one. */
const REFERENCE = /&([^\s&;<>"']*);/g;
const NUMERIC_REFERENCE = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/;
const PREDEFINED_ENTITIES = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
]);
const AMOUNT = /^\d+(\.\d+)?$/;
const ZERO = /^0+(\.0+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
const STATEMENTS_PATH = 'Document/BkToCstmrStmt';
/** The elements camt.053 lets repeat where this parser reads them: always arrays, even when the file holds one. */
const REPEATED = new Set(['Stmt', 'Bal', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'Strd']);
const DIRECTIONS: Record<CreditOrDebit, LineDirection> = { CRDT: 'IN', DBIT: 'OUT' };
type CreditOrDebit = 'CRDT' | 'DBIT';
/** An element and its path in the file, for a refusal that names it. */
interface Located {
  node: XmlValue;
  path: string;
}

const TEXT_ONLY = {
  processEntities: false,
  htmlEntities: false,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
} as const;
/** The root element and its attributes alone (its namespace declarations among them, which removeNSPrefix drops). */
const rootParser = new XMLParser({ ...TEXT_ONLY, stopNodes: ['*'] });
const documentParser = new XMLParser({ ...TEXT_ONLY, removeNSPrefix: true, isArray: (name) => REPEATED.has(name) });

/** The statement the file holds, or the one of its statements whose `Stmt/Id` is `options.statement`. */
export function parseCamt053(xml: string, options: { statement?: string }): ParsedStatement {
  refuseDeclarations(xml);
  refuseMalformedXml(xml);
  refuseEntityReferences(xml);
  refuseOtherNamespaces(xml);
  const document = documentParser.parse(xml) as XmlElement;
  const statements = children(descend(document, '', ['Document', 'BkToCstmrStmt']), 'Stmt');
  if (statements.length === 0) throw refusal(`${STATEMENTS_PATH}/Stmt`, 'is missing: the file holds no statement');
  const paths = statements.map((_, i) => `${STATEMENTS_PATH}/Stmt[${i + 1}]`);
  const ids = statements.map((statement, i) => requiredText(statement, paths[i]!, 'Id'));
  const chosen = chooseStatement(ids, options.statement);
  return readStatement(statements[chosen]!, paths[chosen]!, ids[chosen]!);
}

const refusal = (path: string, problem: string) => invalid(`${path} ${problem}.`, [{ path, message: problem }]);

const bodyRefusal = (message: string) => invalid(message, [{ path: 'body', message }]);

function refuseDeclarations(xml: string): void {
  if (DECLARATION.test(xml)) throw bodyRefusal('a DTD or entity declaration is not accepted');
}

function refuseMalformedXml(xml: string): void {
  const result = XMLValidator.validate(xml);
  if (result === true) return;
  const { line, col, msg } = result.err;
  throw bodyRefusal(`the XML is malformed at line ${line}, column ${col}: ${msg}`);
}

function refuseEntityReferences(xml: string): void {
  for (const match of xml.matchAll(REFERENCE)) {
    if (referencedText(match[1]!) !== undefined) continue;
    const where = `${match[0]} at line ${lineAt(xml, match.index)}`;
    throw bodyRefusal(match[1]!.startsWith('#') ? `a character reference that is no character is not accepted (${where})` : `an entity reference is not accepted (${where})`);
  }
}

const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** What a predefined entity or a numeric character reference stands for; undefined for any other reference. */
function referencedText(name: string): string | undefined {
  const predefined = PREDEFINED_ENTITIES.get(name);
  if (predefined !== undefined) return predefined;
  const numeric = NUMERIC_REFERENCE.exec(name);
  if (!numeric) return undefined;
  const codePoint = numeric[1] !== undefined ? Number.parseInt(numeric[1], 16) : Number.parseInt(numeric[2]!, 10);
  return isCharacter(codePoint) ? String.fromCodePoint(codePoint) : undefined;
}

/** A Unicode scalar value other than NUL: what a numeric reference may name. */
const isCharacter = (codePoint: number) => codePoint > 0 && codePoint <= 0x10ffff && !(codePoint >= 0xd800 && codePoint <= 0xdfff);

/** The text with its references decoded; every reference in the file was checked to be one of XML's own. */
const decodeReferences = (text: string) => (text.includes('&') ? text.replace(REFERENCE, (whole, name: string) => referencedText(name) ?? whole) : text);

function refuseOtherNamespaces(xml: string): void {
  const [name = '', root] = Object.entries(rootParser.parse(xml) as XmlElement)[0] ?? [];
  const colon = name.indexOf(':');
  const localName = name.slice(colon + 1);
  if (localName !== 'Document') throw bodyRefusal(`the root element is ${name || 'missing'}, not Document: the file is not a camt.053 statement`);
  const namespace = attribute(root, colon < 0 ? 'xmlns' : `xmlns:${name.slice(0, colon)}`);
  if (namespace === undefined || !CAMT053_NAMESPACE.test(namespace)) {
    const found = namespace === undefined ? 'no namespace' : `the namespace ${namespace}`;
    const message = `the file is not a camt.053 statement of version .001.02 to .001.13: its Document has ${found}`;
    throw invalid(message, [{ path: 'Document', message }]);
  }
}

function chooseStatement(ids: readonly string[], wanted: string | undefined): number {
  if (wanted === undefined && ids.length === 1) return 0;
  const matching = ids.flatMap((id, i) => (id === wanted ? [i] : []));
  if (matching.length === 1) return matching[0]!;
  const held = `the file holds ${ids.length} statement${ids.length === 1 ? '' : 's'} (${ids.join(', ')})`;
  const message =
    wanted === undefined
      ? `${held}: choose one with ?statement=`
      : matching.length === 0
        ? `${held}, none with the id ${wanted}: choose one with ?statement=`
        : `${held}, ${matching.length} with the id ${wanted}: a statement cannot be chosen by it`;
  throw invalid(message, [{ path: 'statement', message }]);
}

function readStatement(statement: XmlValue, path: string, id: string): ParsedStatement {
  const balances = children(statement, 'Bal').map((balance, i) => ({ node: balance, path: `${path}/Bal[${i + 1}]` }));
  const balanceOf = (code: string) => {
    const found = balances.find((balance) => textAt(balance.node, balance.path, 'Tp', 'CdOrPrtry', 'Cd') === code);
    return found && readBalance(found.node, found.path);
  };
  const opening = balanceOf('OPBD');
  const closing = balanceOf('CLBD');
  const lines = children(statement, 'Ntry').flatMap((entry, j) => {
    const entryPath = `${path}/Ntry[${j + 1}]`;
    return statusOf(entry, entryPath) === 'BOOK' ? [readLine(entry, entryPath)] : [];
  });
  return {
    externalId: id,
    sequenceNumber: textAt(statement, path, 'ElctrncSeqNb') ?? null,
    from: instantAt(statement, path, ['FrToDt', 'FrDtTm'], 'start'),
    to: instantAt(statement, path, ['FrToDt', 'ToDtTm'], 'end'),
    openingBalance: opening?.amount ?? null,
    closingBalance: closing?.amount ?? null,
    currency: textAt(statement, path, 'Acct', 'Ccy') ?? closing?.currency ?? lines[0]?.currency ?? null,
    lines,
  };
}

/** A balance as signed decimal text (DBIT negative), with its currency. */
function readBalance(balance: XmlValue, path: string): { amount: string; currency: string | null } {
  const { amount, currency } = amountOf(balance, path);
  const negative = creditOrDebit(balance, path) === 'DBIT' && !ZERO.test(amount);
  return { amount: negative ? `-${amount}` : amount, currency };
}

/** `BOOK`, `PDNG`, `INFO`…: the text of `Sts` up to .001.07, its `Cd` (or `Prtry`) from .001.08. */
function statusOf(entry: XmlValue, path: string): string {
  const statusPath = `${path}/Sts`;
  const status = child(entry, path, 'Sts');
  const code = text(status) ?? textAt(status, statusPath, 'Cd') ?? textAt(status, statusPath, 'Prtry');
  if (code === undefined) throw refusal(statusPath, 'is missing');
  return code;
}

function readLine(entry: XmlValue, path: string): ParsedStatementLine {
  const { amount, currency } = amountOf(entry, path);
  if (ZERO.test(amount)) throw refusal(`${path}/Amt`, 'is zero: a booked entry moves money');
  const direction = DIRECTIONS[creditOrDebit(entry, path)];
  const bookingDate = dayAt(entry, path, 'BookgDt');
  if (bookingDate === undefined) throw refusal(`${path}/BookgDt`, 'is missing');
  const transactions = transactionsOf(entry, path);
  const first = transactions[0];
  const bankLineId = textAt(entry, path, 'AcctSvcrRef') ?? null;
  return {
    bankLineId,
    bookingDate,
    valueDate: dayAt(entry, path, 'ValDt') ?? null,
    amount,
    direction,
    currency,
    references: referencesOf(bankLineId, transactions),
    counterparty: first ? counterpartyOf(first, direction) : { name: null, account: null },
    description: (first && remittanceText(first)) ?? textAt(entry, path, 'AddtlNtryInf') ?? null,
    at: path,
  };
}

/** Every `NtryDtls/TxDtls` of the entry, in the file's order. */
function transactionsOf(entry: XmlValue, path: string): Located[] {
  return children(entry, 'NtryDtls').flatMap((details, i) =>
    children(details, 'TxDtls').map((transaction, k) => ({ node: transaction, path: `${path}/NtryDtls[${i + 1}]/TxDtls[${k + 1}]` })),
  );
}

function referencesOf(bankLineId: string | null, transactions: readonly Located[]): string[] {
  const endToEndIds = transactions.map(({ node, path }) => textAt(node, path, 'Refs', 'EndToEndId')).filter((id) => id !== 'NOTPROVIDED');
  const instructionIds = transactions.map(({ node, path }) => textAt(node, path, 'Refs', 'InstrId'));
  const creditorReferences = transactions.flatMap(({ node, path }) =>
    children(child(node, path, 'RmtInf'), 'Strd').map((structured, i) => textAt(structured, `${path}/RmtInf/Strd[${i + 1}]`, 'CdtrRefInf', 'Ref')),
  );
  const all = [bankLineId, ...endToEndIds, ...instructionIds, ...creditorReferences];
  return [...new Set(all.filter((reference): reference is string => reference !== undefined && reference !== null))];
}

/** The other side: the debtor of money in, the creditor of money out (its name under `Pty` from .001.08). */
function counterpartyOf({ node, path }: Located, direction: LineDirection): ParsedStatementLine['counterparty'] {
  const party = direction === 'IN' ? 'Dbtr' : 'Cdtr';
  return {
    name: textAt(node, path, 'RltdPties', party, 'Nm') ?? textAt(node, path, 'RltdPties', party, 'Pty', 'Nm') ?? null,
    account: textAt(node, path, 'RltdPties', `${party}Acct`, 'Id', 'IBAN') ?? textAt(node, path, 'RltdPties', `${party}Acct`, 'Id', 'Othr', 'Id') ?? null,
  };
}

/** The unstructured remittance lines, joined by a space; undefined when there are none. */
function remittanceText({ node, path }: Located): string | undefined {
  const lines = children(child(node, path, 'RmtInf'), 'Ustrd').flatMap((line) => text(line) ?? []);
  return lines.length > 0 ? lines.join(' ') : undefined;
}

function amountOf(node: XmlValue, path: string): { amount: string; currency: string | null } {
  const amountPath = `${path}/Amt`;
  const element = child(node, path, 'Amt');
  const amount = text(element);
  if (amount === undefined) throw refusal(amountPath, 'is missing');
  if (!AMOUNT.test(amount)) throw refusal(amountPath, `is "${amount}", not a decimal number`);
  return { amount, currency: attribute(element, 'Ccy') ?? null };
}

function creditOrDebit(node: XmlValue, path: string): CreditOrDebit {
  const indicatorPath = `${path}/CdtDbtInd`;
  const indicator = textAt(node, path, 'CdtDbtInd');
  if (indicator === 'CRDT' || indicator === 'DBIT') return indicator;
  throw refusal(indicatorPath, indicator === undefined ? 'is missing' : `is "${indicator}", neither CRDT nor DBIT`);
}

/** A `Dt` as it is, or the UTC day of a `DtTm`; undefined when the element is absent. */
function dayAt(node: XmlValue, path: string, name: string): string | undefined {
  const elementPath = `${path}/${name}`;
  const element = child(node, path, name);
  if (element === undefined) return undefined;
  const date = textAt(element, elementPath, 'Dt');
  if (date !== undefined) {
    if (!DATE.test(date) || typeof parseInstant(date) !== 'number') throw refusal(`${elementPath}/Dt`, `is "${date}", not a date (YYYY-MM-DD)`);
    return date;
  }
  const instant = instantAt(element, elementPath, ['DtTm'], 'start');
  if (instant === null) throw refusal(elementPath, 'holds neither Dt nor DtTm');
  return instant.slice(0, 10);
}

/**
 * An ISO date-time as a UTC instant, one without an offset read as UTC; a date alone is the start of its UTC day, or
 * its last millisecond for the `end` of a period. Null when the element is absent.
 */
function instantAt(node: XmlValue, path: string, names: readonly string[], edge: 'start' | 'end'): string | null {
  const value = text(descend(node, path, names));
  if (value === undefined) return null;
  const ms = parseInstant(value, edge === 'end' ? 'up' : 'down');
  if (typeof ms !== 'number') throw refusal([path, ...names].join('/'), `is "${value}", not an ISO 8601 date-time (${ms})`);
  return toIso(edge === 'end' && DATE.test(value) ? ms + DAY_MS - 1 : ms);
}

function requiredText(node: XmlValue, path: string, name: string): string {
  const value = textAt(node, path, name);
  if (value === undefined) throw refusal(`${path}/${name}`, 'is missing');
  return value;
}

/** The child `name` of an element; the schema lets it appear once, and a file that repeats it is refused. */
function child(node: XmlValue | undefined, path: string, name: string): XmlValue | undefined {
  if (node === undefined || typeof node === 'string' || Array.isArray(node)) return undefined;
  const value = node[name];
  if (Array.isArray(value)) throw refusal(joinPath(path, name), `appears ${value.length} times, where camt.053 allows it once`);
  return value;
}

/** The children `name` of an element that may repeat (REPEATED): the parser always gives them as an array. */
function children(node: XmlValue | undefined, name: string): XmlValue[] {
  if (node === undefined || typeof node === 'string' || Array.isArray(node)) return [];
  const value = node[name];
  return Array.isArray(value) ? value : [];
}

function descend(node: XmlValue | undefined, path: string, names: readonly string[]): XmlValue | undefined {
  let current = node;
  let currentPath = path;
  for (const name of names) {
    current = child(current, currentPath, name);
    currentPath = joinPath(currentPath, name);
  }
  return current;
}

const joinPath = (path: string, name: string) => (path === '' ? name : `${path}/${name}`);

/** An element's text, whether it comes as a string or (with attributes) as an object's `#text`; undefined when empty. */
function text(node: XmlValue | undefined): string | undefined {
  const raw = typeof node === 'string' ? node : node !== undefined && !Array.isArray(node) ? node['#text'] : undefined;
  return typeof raw === 'string' && raw !== '' ? decodeReferences(raw) : undefined;
}

const textAt = (node: XmlValue | undefined, path: string, ...names: string[]) => text(descend(node, path, names));

function attribute(node: XmlValue | undefined, name: string): string | undefined {
  if (node === undefined || typeof node === 'string' || Array.isArray(node)) return undefined;
  const value = node[`@_${name}`];
  return typeof value === 'string' && value !== '' ? decodeReferences(value) : undefined;
}
