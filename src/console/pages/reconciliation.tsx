// Reconciliation: an ASSET account's bank statements (each with its summary and the difference between the bank's
// closing balance and the books), a statement imported from its file (camt.053 or CSV), and a statement's lines worked
// by hand: matched to entries that add up to the line (summed exactly, never through a float), set aside with a note,
// unmatched, or matched again by the rules. Each write is sent with an Idempotency-Key made for it and kept across a
// retry of it.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { amountText, ApiError, can, newIdempotencyKey, withQuery, type Api, type Query } from '../api.js';
import type { Account, BankStatement, BankStatementLine as Line, JournalEntry as Entry, ReconciliationSettings } from '../answers.js';
import { parseJsonObject } from '../../core/json.js';
import { statementLineStatuses } from '../../core/enums.js';
import { PAGE_SIZE_MAX, STATEMENT_MATCH_ENTRIES_MAX, STATEMENT_NOTE_LENGTH_MAX } from '../../core/limits.js';
import { formatAmount } from '../amounts.js';
import { href } from '../route.js';
import { Amount, Empty, ErrorNote, IdLink, ListPage, Loading, MissingScope, NeedsScope, PagedList, StatusFilter, Table, Time, useLoad, usePaged, useSigned } from '../ui.js';
import { Monetary } from './lines.js';

const SECTION = 'reconciliation';

// ---------------------------------------------------------------------------------------------------------------------
// Exact amounts: a line's amount and the entries picked for it, added as integers of the finest places among them.

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** An amount's plain decimal text (`1234.50`), every digit kept: as amounts.ts writes it, without the grouping. */
const plainAmount = (value: unknown, asset: string): string => formatAmount(amountText(value), asset).replaceAll(',', '');

const placesOf = (text: string): number => DECIMAL.exec(text)?.[3]?.length ?? 0;

/** `text` as a whole number of units of `places` places (`12.5` at 2 → 1250n); null when it is not a decimal. */
function unitsOf(text: string, places: number): bigint | null {
  const parts = DECIMAL.exec(text);
  if (!parts) return null;
  const [, sign, whole = '0', fraction = ''] = parts;
  const units = BigInt(whole + fraction.padEnd(places, '0'));
  return sign === '-' ? -units : units;
}

/** Units of `places` places as decimal text (1250n at 2 → `12.50`). */
function textOf(units: bigint, places: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(places + 1, '0');
  const text = places === 0 ? digits : `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  return negative ? `-${text}` : text;
}

const abs = (n: bigint): bigint => (n < 0n ? -n : n);

const isZero = (value: unknown): boolean => /^-?0*(\.0*)?$/.test(amountText(value));

// ---------------------------------------------------------------------------------------------------------------------
// Reading.

/** Pages read at most for a whole list (the account picker, the candidates of a match): 2,000 items. */
const PAGES_MAX = 10;

/** Every page of a list, up to PAGES_MAX of them; `complete` says whether the last page was reached. */
async function everyPage<T>(api: Api, path: string, query: Query, signal: AbortSignal): Promise<{ items: T[]; complete: boolean }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let read = 0; read < PAGES_MAX; read++) {
    const page = await api.json<{ items: T[]; nextCursor: string | null }>(withQuery(path, { ...query, limit: String(PAGE_SIZE_MAX), cursor }), { signal });
    items.push(...page.items);
    if (page.nextCursor === null) return { items, complete: true };
    cursor = page.nextCursor;
  }
  return { items, complete: false };
}

/** The account chosen on the reconciliation page, kept in the address after its path (`#/reconciliation?account=…`). */
const accountInAddress = (): string => new URLSearchParams(location.hash.split('?')[1] ?? '').get('account') ?? '';

/** The reconciliation page's address, with an account chosen. */
const accountHref = (accountId: string): string => (accountId === '' ? href(SECTION) : `${href(SECTION)}?account=${encodeURIComponent(accountId)}`);

/** A statement's period as days (`2026-05-01 – 2026-05-31`, one day alone), or what the file left out. */
function Period({ statement: s }: { statement: BankStatement }) {
  if (s.from === null && s.to === null) return <span class="none">—</span>;
  const [from, to] = [s.from?.slice(0, 10) ?? '…', s.to?.slice(0, 10) ?? '…'];
  return <>{from === to ? from : `${from} – ${to}`}</>;
}

/** A statement's name: its camt.053 id, or, for a CSV (named by a SHA-256 of 64 digits), the start of its hash. */
const StatementName = ({ statement: s }: { statement: BankStatement }) => (
  <code title={s.externalId}>{s.format === 'CSV' ? `CSV ${s.externalId.slice(0, 12)}…` : s.externalId}</code>
);

const count = (n: unknown): string => amountText(n);

/** `n` things, named in the singular or the plural: `1 line`, `2 lines`. */
const things = (n: unknown, one: string, many: string): string => `${count(n)} ${count(n) === '1' ? one : many}`;

// ---------------------------------------------------------------------------------------------------------------------
// The account's page: its statements, an import, its unreconciled entries.

export const ReconciliationPage = () => (
  <ListPage title="Reconciliation" scope="RECONCILIATION_READ" to="to reconcile bank statements">
    <AccountReconciliation />
  </ListPage>
);

function AccountReconciliation() {
  const { api, key } = useSigned();
  const [accountId, setAccountId] = useState(accountInAddress);
  const accounts = useLoad((signal) => everyPage<Account>(api, '/api/v1/accounts', { type: 'ASSET' }, signal), []);
  const choose = (id: string) => {
    setAccountId(id);
    history.replaceState(history.state, '', accountHref(id));
  };
  const account = accounts.data?.items.find((a) => a.id === accountId);
  return (
    <>
      <form class="filters" aria-label="Choose the account" onSubmit={(e) => e.preventDefault()}>
        <label>
          Account
          <select value={accountId} onChange={(e) => choose(e.currentTarget.value)} disabled={!accounts.data}>
            <option value="">Choose an ASSET account</option>
            {accounts.data?.items.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.currency})
              </option>
            ))}
            {accountId !== '' && accounts.data && !account && <option value={accountId}>{accountId}</option>}
          </select>
        </label>
      </form>
      <ErrorNote error={accounts.error} />
      {accounts.loading && <Loading what="Loading the accounts" />}
      {accounts.data && !accounts.data.complete && <p class="hint">Only the first {accounts.data.items.length} ASSET accounts are offered.</p>}
      {accounts.data && accounts.data.items.length === 0 && (
        <Empty>
          No ASSET account yet: a bank statement belongs to one. Create it with <code>POST /api/v1/accounts</code>.
        </Empty>
      )}
      {accountId === '' ? (
        accounts.data && accounts.data.items.length > 0 && <Empty>Choose an account to see its bank statements.</Empty>
      ) : (
        <AccountStatements key={accountId} accountId={accountId} account={account} canWrite={can(key, 'RECONCILIATION_WRITE')} />
      )}
    </>
  );
}

function AccountStatements({ accountId, account, canWrite }: { accountId: string; account: Account | undefined; canWrite: boolean }) {
  const { api } = useSigned();
  const [round, setRound] = useState(0);
  const settings = useLoad((signal) => api.json<ReconciliationSettings>(`/api/v1/accounts/${accountId}/reconciliation-settings`, { signal }), [accountId]);
  const paged = usePaged<BankStatement>((cursor, signal) => api.json(withQuery('/api/v1/bank-statements', { accountId, cursor }), { signal }), [accountId, round]);
  return (
    <>
      <h2>{account ? account.name : <code>{accountId}</code>}</h2>
      <p>
        <a href={href('accounts', accountId)}>The account's page</a>
        {settings.data && (
          <>
            {' '}
            · Lines are matched by amount and date within {count(settings.data.dateWindowDays)} days of their booking date.
          </>
        )}
      </p>
      <ErrorNote error={settings.error} />
      {canWrite ? <ImportStatement accountId={accountId} onImported={() => setRound((r) => r + 1)} /> : <MissingScope scope="RECONCILIATION_WRITE" to="to import a bank statement" />}
      <section aria-labelledby="statements-heading">
        <h2 id="statements-heading">Statements</h2>
        <PagedList paged={paged} noun="statements" empty="No statement imported into this account yet: import the bank's file above.">
          <Table
            caption="Statements, newest import first"
            head={['Imported', 'Statement', 'Format', 'Period', 'Lines', 'Matched', 'Unmatched', 'Ignored', 'Duplicates', 'Closing balance', 'Books at end', 'Difference']}
            numeric={[4, 5, 6, 7, 8, 9, 10, 11]}
          >
            {paged.items.map((s) => (
              <tr key={s.statementId}>
                <td>
                  <Time at={s.importedAt} />
                </td>
                <td>
                  <a href={href(SECTION, s.statementId)}>
                    <StatementName statement={s} />
                  </a>
                </td>
                <td>{s.format}</td>
                <td>
                  <Period statement={s} />
                </td>
                <td class="num">{count(s.lineCount)}</td>
                <td class="num">{count(s.summary.matched)}</td>
                <td class="num">{count(s.summary.unmatched)}</td>
                <td class="num">{count(s.summary.ignored)}</td>
                <td class="num">{count(s.summary.duplicates)}</td>
                <td class="num">{s.closingBalance === null ? <span class="none">none</span> : <Amount value={s.closingBalance} asset={s.currency} />}</td>
                <td class="num">
                  <Amount value={s.summary.ledgerBalanceAtEnd} asset={s.currency} />
                </td>
                <td class="num">
                  {s.summary.difference === null ? (
                    <span class="none">no closing balance</span>
                  ) : (
                    <strong>
                      <Amount value={s.summary.difference} asset={s.currency} />
                    </strong>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        </PagedList>
      </section>
      <UnreconciledEntries accountId={accountId} />
    </>
  );
}

/** The media type a statement file is sent under: its own when the route takes it, else the one its name says. */
function mediaTypeOf(file: File): string | undefined {
  if (['application/xml', 'text/xml', 'text/csv'].includes(file.type)) return file.type;
  if (/\.xml$/i.test(file.name)) return 'application/xml';
  if (/\.csv$/i.test(file.name)) return 'text/csv';
  return undefined;
}

interface CsvOptions {
  columns: string;
  decimal: string;
  dateFormat: string;
  delimiter: string;
}

/** Each CSV option's values, by what they are called (the server's default first, sent as nothing). */
const DECIMAL_MARKS: Array<[string, string]> = [['', 'Default (.)'], ['.', '. (1,234.56)'], [',', ', (1.234,56)']];
const DATE_FORMATS: Array<[string, string]> = [['', 'Default (YYYY-MM-DD)'], ['YYYY-MM-DD', 'YYYY-MM-DD'], ['DD/MM/YYYY', 'DD/MM/YYYY'], ['MM/DD/YYYY', 'MM/DD/YYYY']];
const DELIMITERS: Array<[string, string]> = [['', 'Default (comma)'], [',', 'Comma'], [';', 'Semicolon'], ['\t', 'Tab'], ['|', 'Bar']];

function CsvOption({ label, value, options, onChange }: { label: string; value: string; options: Array<[string, string]>; onChange: (value: string) => void }) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {options.map(([v, name]) => (
          <option key={name} value={v}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}

function ImportStatement({ accountId, onImported }: { accountId: string; onImported: () => void }) {
  const { api } = useSigned();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [statement, setStatement] = useState('');
  const [csv, setCsv] = useState<CsvOptions>({ columns: '', decimal: '', dateFormat: '', delimiter: '' });
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<{ statement: BankStatement; before: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async () => {
    if (!file) return;
    const type = mediaTypeOf(file);
    setError(null);
    setDone(null);
    if (type === undefined) {
      setError(new ApiError(0, 'UNSUPPORTED_FILE', `${file.name} is neither a camt.053 file (.xml) nor a CSV file (.csv).`));
      return;
    }
    const query: Query = { statement: statement.trim() };
    if (type === 'text/csv') Object.assign(query, { columns: csv.columns.trim(), decimal: csv.decimal, dateFormat: csv.dateFormat, delimiter: csv.delimiter });
    setBusy(true);
    try {
      const response = await api.fetch(withQuery(`/api/v1/accounts/${accountId}/bank-statements`, query), { method: 'POST', file: { body: file, type } });
      const imported = parseJsonObject(await response.text()) as unknown as BankStatement;
      setDone({ statement: imported, before: response.status === 200 });
      setFile(null);
      if (input.current) input.current.value = '';
      onImported();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="import-heading" class="panel">
      <h2 id="import-heading">Import a statement</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <label>
          Import statement (camt.053 .xml or .csv)
          <input ref={input} type="file" accept=".xml,.csv,application/xml,text/xml,text/csv" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        </label>
        <button type="submit" disabled={!file || busy}>
          Import
        </button>
        <details class="hint">
          <summary>Import options</summary>
          <div class="filters">
            <label>
              Statement id (a camt.053 file of several)
              <input value={statement} onInput={(e) => setStatement(e.currentTarget.value)} autoComplete="off" />
            </label>
            <label>
              CSV columns (name:Header, …)
              <input value={csv.columns} onInput={(e) => setCsv({ ...csv, columns: e.currentTarget.value })} placeholder="bookingDate:Date,amount:Amount" autoComplete="off" />
            </label>
            <CsvOption label="CSV decimal mark" value={csv.decimal} options={DECIMAL_MARKS} onChange={(decimal) => setCsv({ ...csv, decimal })} />
            <CsvOption label="CSV date format" value={csv.dateFormat} options={DATE_FORMATS} onChange={(dateFormat) => setCsv({ ...csv, dateFormat })} />
            <CsvOption label="CSV delimiter" value={csv.delimiter} options={DELIMITERS} onChange={(delimiter) => setCsv({ ...csv, delimiter })} />
          </div>
        </details>
      </form>
      <ErrorNote error={error} />
      {done && (
        <p class="outcome ok" role="status">
          {done.before ? 'This statement was imported before; it is shown as it is now: ' : 'Imported: '}
          <a href={href(SECTION, done.statement.statementId)}>
            <StatementName statement={done.statement} />
          </a>
          , {things(done.statement.lineCount, 'line', 'lines')}, {count(done.statement.summary.matched)} matched, {count(done.statement.summary.unmatched)} unmatched.
        </p>
      )}
    </section>
  );
}

/** The account's entries that no statement line matched, for a period (UTC days). */
function UnreconciledEntries({ accountId, from: fromDay = '', to: toDay = '', round = 0 }: { accountId: string; from?: string; to?: string; round?: number }) {
  const { api } = useSigned();
  const [form, setForm] = useState({ from: fromDay, to: toDay });
  const [period, setPeriod] = useState(form);
  const paged = usePaged<Entry>(
    (cursor, signal) => api.json(withQuery(`/api/v1/accounts/${accountId}/unreconciled-entries`, { from: period.from, to: period.to, cursor }), { signal }),
    [accountId, period.from, period.to, round],
  );
  return (
    <section aria-labelledby="unreconciled-heading">
      <h2 id="unreconciled-heading">Unreconciled entries</h2>
      <p class="hint">Entries in the books that no statement line matched: money the bank has not shown yet.</p>
      <form
        class="filters"
        aria-label="Unreconciled entries' period"
        onSubmit={(e) => {
          e.preventDefault();
          setPeriod(form);
        }}
      >
        <label>
          From
          <input type="date" value={form.from} onInput={(e) => setForm({ ...form, from: e.currentTarget.value })} aria-describedby="unreconciled-days" />
        </label>
        <label>
          To
          <input type="date" value={form.to} onInput={(e) => setForm({ ...form, to: e.currentTarget.value })} aria-describedby="unreconciled-days" />
        </label>
        <button type="submit">Show</button>
        <p id="unreconciled-days" class="hint">
          Whole days in UTC, both included; leave one empty for no bound.
        </p>
      </form>
      <PagedList paged={paged} noun="entries" empty={period.from || period.to ? 'No unreconciled entry in this period.' : 'Every entry of the account is matched to a statement line.'}>
        <EntriesTable caption="Unreconciled entries, oldest first" entries={paged.items} />
      </PagedList>
    </section>
  );
}

function EntriesTable({ caption, entries }: { caption: string; entries: Entry[] }) {
  return (
    <Table caption={caption} head={['Time', 'Type', 'Amount', 'Details', 'Transaction']} numeric={[2]}>
      {entries.map((e) => (
        <tr key={e.entryId}>
          <td>
            <Time at={e.createdAt} />
          </td>
          <td>{e.type}</td>
          <td class="num">
            <Amount value={e.monetary.amount} asset={e.monetary.type === 'FIAT' ? e.monetary.currency : e.monetary.token} />
          </td>
          <td>
            <Monetary line={e} />
          </td>
          <td>
            <IdLink to="transactions" id={e.transactionId} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

// ---------------------------------------------------------------------------------------------------------------------
// A statement's page: its facts and difference, and its lines worked by hand.

export function StatementPage({ id }: { id: string }) {
  return (
    <NeedsScope scope="RECONCILIATION_READ" to="to read bank statements">
      <Statement id={id} />
    </NeedsScope>
  );
}

function Statement({ id }: { id: string }) {
  const { api, key } = useSigned();
  const statement = useLoad((signal) => api.json<BankStatement>(`/api/v1/bank-statements/${id}`, { signal }), [id]);
  const [round, setRound] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const changed = (message: string) => {
    setNotice(message);
    setRound((r) => r + 1);
    statement.reload();
  };
  const reconcile = async () => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const s = await api.json<BankStatement>(`/api/v1/bank-statements/${id}/reconcile`, { method: 'POST' });
      changed(`Reconciled again: ${count(s.summary.matched)} matched, ${count(s.summary.unmatched)} unmatched, ${count(s.summary.ignored)} ignored.`);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  if (statement.error && !statement.data) {
    return (
      <>
        <p class="crumbs">
          <a href={href(SECTION)}>Reconciliation</a>
        </p>
        <h1>Bank statement</h1>
        <ErrorNote error={statement.error} />
      </>
    );
  }
  const s = statement.data;
  if (!s) return <Loading what="Loading the statement" />;
  const canWrite = can(key, 'RECONCILIATION_WRITE');
  return (
    <>
      <p class="crumbs">
        <a href={accountHref(s.accountId)}>Reconciliation</a>
      </p>
      <h1>Bank statement</h1>
      <Difference statement={s} />
      <dl class="facts">
        <dt>Statement</dt>
        <dd>
          <code>{s.externalId}</code> ({s.format})
        </dd>
        <dt>Account</dt>
        <dd>
          <AccountName id={s.accountId} />
        </dd>
        <dt>Period</dt>
        <dd>
          <Period statement={s} />
        </dd>
        <dt>Imported</dt>
        <dd>
          <Time at={s.importedAt} />
        </dd>
        <dt>Opening balance</dt>
        <dd>{s.openingBalance === null ? <span class="none">not in the file</span> : <Amount value={s.openingBalance} asset={s.currency} />}</dd>
        <dt>Closing balance</dt>
        <dd>{s.closingBalance === null ? <span class="none">not in the file</span> : <Amount value={s.closingBalance} asset={s.currency} />}</dd>
        <dt>Books at the end</dt>
        <dd>
          <Amount value={s.summary.ledgerBalanceAtEnd} asset={s.currency} />
        </dd>
        <dt>Lines</dt>
        <dd>
          {count(s.lineCount)}: {count(s.summary.matched)} matched, {count(s.summary.unmatched)} unmatched, {count(s.summary.ignored)} ignored
          {isZero(s.summary.duplicates) ? '' : `; ${count(s.summary.duplicates)} not imported, seen on another statement`}
        </dd>
      </dl>
      {canWrite ? (
        <div class="actions">
          <button type="button" onClick={() => void reconcile()} disabled={busy}>
            Reconcile again
          </button>
        </div>
      ) : (
        <MissingScope scope="RECONCILIATION_WRITE" to="to match, ignore or unmatch lines" />
      )}
      <ErrorNote error={error} />
      <p role="status" class={notice ? 'outcome ok' : undefined}>
        {notice}
      </p>
      <StatementLines statement={s} round={round} canWrite={canWrite} onChanged={changed} />
      <UnreconciledEntries accountId={s.accountId} from={s.from?.slice(0, 10) ?? ''} to={s.to?.slice(0, 10) ?? ''} round={round} />
    </>
  );
}

/** An account linked by its name (by its id while the name is loading, or when the key may not read accounts). */
function AccountName({ id }: { id: string }) {
  const { api, key } = useSigned();
  const account = useLoad((signal) => (can(key, 'ACCOUNTS_READ') ? api.json<Account>(`/api/v1/accounts/${id}`, { signal }) : Promise.resolve(undefined)), [id]);
  return account.data ? <a href={href('accounts', id)}>{account.data.name}</a> : <IdLink to="accounts" id={id} />;
}

/** The bank's closing balance less the books at the statement's end: what is left to explain, shown first. */
function Difference({ statement: s }: { statement: BankStatement }) {
  const d = s.summary.difference;
  if (d === null) {
    return (
      <p class="outcome" id="difference">
        <strong>Difference: none to show.</strong> The file gives no closing balance to compare with the books.
      </p>
    );
  }
  const agrees = isZero(d);
  return (
    <p class={`outcome ${agrees ? 'ok' : 'broken'}`} id="difference">
      <strong>
        Difference <Amount value={d} asset={s.currency} />
      </strong>
      {agrees ? ': the closing balance agrees with the books.' : ': the closing balance less the books at the end of the statement.'}
    </p>
  );
}

type Acting = { kind: 'match' | 'ignore'; line: Line; opener: HTMLElement | null };

function StatementLines({ statement, round, canWrite, onChanged }: { statement: BankStatement; round: number; canWrite: boolean; onChanged: (message: string) => void }) {
  const { api } = useSigned();
  const [status, setStatus] = useState('');
  const [acting, setActing] = useState<Acting | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const unmatchKeys = useRef(new Map<string, string>());
  const lines = usePaged<Line>((cursor, signal) => api.json(withQuery(`/api/v1/bank-statements/${statement.statementId}/lines`, { status, cursor }), { signal }), [statement.statementId, status, round]);
  const open = (kind: Acting['kind'], line: Line) => {
    setError(null);
    setActing({ kind, line, opener: document.activeElement instanceof HTMLElement ? document.activeElement : null });
  };
  const closed = (message: string | null) => {
    const opener = acting?.opener;
    setActing(null);
    if (message !== null) onChanged(message);
    // Back where the dialog was opened from; when that button went with its line's new status, to the lines.
    requestAnimationFrame(() => (opener?.isConnected ? opener : document.getElementById('lines-heading'))?.focus());
  };
  const unmatch = async (line: Line) => {
    const idempotencyKey = unmatchKeys.current.get(line.lineId) ?? newIdempotencyKey();
    unmatchKeys.current.set(line.lineId, idempotencyKey);
    setBusy(line.lineId);
    setError(null);
    try {
      await api.json<Line>(`/api/v1/bank-statement-lines/${line.lineId}/unmatch`, { method: 'POST', idempotencyKey, body: {} });
      unmatchKeys.current.delete(line.lineId);
      onChanged(`Line ${lineNumber(line)} is unmatched; its entries are free again.`);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  };
  return (
    <section aria-labelledby="lines-heading">
      <h2 id="lines-heading" tabIndex={-1}>
        Lines
      </h2>
      <StatusFilter statuses={statementLineStatuses} value={status} onChange={setStatus} label="Filter lines" />
      <ErrorNote error={error} />
      <PagedList paged={lines} noun="lines" empty={status ? `No ${status} lines.` : 'This statement has no booked lines.'}>
        <Table
          caption="Lines, in the file's order"
          head={['#', 'Direction', 'Amount', 'Booked', 'References', 'Counterparty', 'Description', 'Status', 'Rule', 'Note', 'Actions']}
          numeric={[0, 2]}
        >
          {lines.items.map((l) => (
            <tr key={l.lineId}>
              <td class="num" id={`line-${l.lineId}`}>
                {lineNumber(l)}
              </td>
              <td>{l.direction}</td>
              <td class="num">
                <Amount value={l.amount} asset={l.currency} />
              </td>
              <td>{l.bookingDate}</td>
              <td>{l.references.length === 0 ? <span class="none">—</span> : l.references.map((r) => <div key={r}>{r}</div>)}</td>
              <td>
                {l.counterparty.name ?? ''}
                {l.counterparty.account && (
                  <div>
                    <code>{l.counterparty.account}</code>
                  </div>
                )}
              </td>
              <td>{l.description ?? ''}</td>
              <td>{l.status}</td>
              <td>
                <Rule line={l} />
              </td>
              <td>{l.note ?? ''}</td>
              <td>
                {canWrite && (
                  <div class="actions">
                    {l.status === 'UNMATCHED' && (
                      <>
                        <button type="button" aria-describedby={`line-${l.lineId}`} onClick={() => open('match', l)}>
                          Match…
                        </button>
                        <button type="button" aria-describedby={`line-${l.lineId}`} onClick={() => open('ignore', l)}>
                          Ignore…
                        </button>
                      </>
                    )}
                    {l.status === 'MATCHED' && (
                      <button type="button" aria-describedby={`line-${l.lineId}`} disabled={busy === l.lineId} onClick={() => void unmatch(l)}>
                        Unmatch
                      </button>
                    )}
                  </div>
                )}
              </td>
            </tr>
          ))}
        </Table>
      </PagedList>
      {acting?.kind === 'match' && <MatchDialog key={acting.line.lineId} line={acting.line} accountId={statement.accountId} onClosed={closed} />}
      {acting?.kind === 'ignore' && <IgnoreDialog key={acting.line.lineId} line={acting.line} onClosed={closed} />}
    </section>
  );
}

const lineNumber = (line: Line): number => Number(amountText(line.index)) + 1;

/** How a line was matched (the rule, or by hand), or, unmatched, how many entries the rules could not choose between. */
function Rule({ line: l }: { line: Line }) {
  if (l.status === 'MATCHED') {
    const entries = things(l.matchedEntryIds.length, 'entry', 'entries');
    return <>{l.matchedBy === 'MANUAL' ? `by hand, ${entries}` : `${l.matchRule ?? 'AUTO'}, ${entries}`}</>;
  }
  if (l.candidates.length > 0) return <>{l.candidates.length} candidates</>;
  return <span class="none">—</span>;
}

/**
 * A modal dialog: shown when it mounts (the page behind it inert, Escape closing it), labelled by its heading, which
 * takes the focus; `onClosed` once it is closed, however it was.
 */
function useModal(onClose: () => void) {
  const dialog = useRef<HTMLDialogElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    d.showModal();
    heading.current?.focus();
    return () => d.open && d.close();
  }, []);
  return { dialog, heading, close: () => dialog.current?.close(), onClose };
}

/**
 * "Match…": the line's candidates (the account's unreconciled entries on the line's side and in its currency, closest
 * in amount, then in date, first), checked one by one; the sum of those picked and what is left of the line's amount
 * shown as they are; Match offered once nothing is left.
 */
function MatchDialog({ line, accountId, onClosed }: { line: Line; accountId: string; onClosed: (message: string | null) => void }) {
  const { api } = useSigned();
  const result = useRef<string | null>(null);
  const modal = useModal(() => onClosed(result.current));
  const free = useLoad((signal) => everyPage<Entry>(api, `/api/v1/accounts/${accountId}/unreconciled-entries`, {}, signal), [accountId]);
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const keys = useRef(new Map<string, string>());
  const side = line.direction === 'IN' ? 'DEBIT' : 'CREDIT';
  const asset = line.currency;
  const lineText = plainAmount(line.amount, asset);

  const candidates = useMemo(() => {
    const fit = (free.data?.items ?? []).flatMap((e) => (e.type === side && e.monetary.type === 'FIAT' && e.monetary.currency === asset ? [{ entry: e, text: plainAmount(e.monetary.amount, asset) }] : []));
    const places = Math.max(placesOf(lineText), ...fit.map((c) => placesOf(c.text)));
    const target = unitsOf(lineText, places) ?? 0n;
    const booked = Date.parse(`${line.bookingDate}T00:00:00Z`);
    const rows = fit.flatMap((c) => {
      const units = unitsOf(c.text, places);
      return units === null ? [] : [{ ...c, units, off: abs(target - units), days: Math.abs(Date.parse(c.entry.createdAt) - booked) }];
    });
    rows.sort((a, b) => (a.off < b.off ? -1 : a.off > b.off ? 1 : a.days - b.days));
    return { rows, places, target };
  }, [free.data, side, asset, lineText, line.bookingDate]);

  const sum = candidates.rows.reduce((total, c) => (picked.has(c.entry.entryId) ? total + c.units : total), 0n);
  const left = candidates.target - sum;
  const ready = picked.size > 0 && left === 0n && picked.size <= STATEMENT_MATCH_ENTRIES_MAX;
  const toggle = (entryId: string, on: boolean) =>
    setPicked((was) => {
      const next = new Set(was);
      if (on) next.add(entryId);
      else next.delete(entryId);
      return next;
    });

  const match = async () => {
    const entryIds = candidates.rows.filter((c) => picked.has(c.entry.entryId)).map((c) => c.entry.entryId);
    const body = note.trim() === '' ? { entryIds } : { entryIds, note: note.trim() };
    // One key per match asked for, the same across its retries.
    const slot = JSON.stringify(body);
    const idempotencyKey = keys.current.get(slot) ?? newIdempotencyKey();
    keys.current.set(slot, idempotencyKey);
    setBusy(true);
    setError(null);
    try {
      await api.json<Line>(`/api/v1/bank-statement-lines/${line.lineId}/match`, { method: 'POST', idempotencyKey, body });
      result.current = `Line ${lineNumber(line)} is matched to ${things(entryIds.length, 'entry', 'entries')}.`;
      modal.close();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const amount = (units: bigint) => <Amount value={textOf(units, candidates.places)} asset={asset} />;
  return (
    <dialog ref={modal.dialog} aria-labelledby="match-title" aria-describedby="match-what" onClose={modal.onClose}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) void match();
        }}
      >
        <h2 id="match-title" ref={modal.heading} tabIndex={-1}>
          Match line {lineNumber(line)}
        </h2>
        <p id="match-what">
          {line.direction} <Amount value={line.amount} asset={asset} /> booked {line.bookingDate}
          {line.references.length > 0 ? `, ${line.references.join(', ')}` : ''}. Pick the {side} entries of the account that add up to it.
        </p>
        <ErrorNote error={free.error} />
        {free.loading && <Loading what="Loading the candidate entries" />}
        {free.data && candidates.rows.length === 0 && <Empty>No unreconciled {side} entry in {asset} on this account.</Empty>}
        {candidates.rows.length > 0 && (
          <Table caption={`Candidate ${side} entries, closest first`} head={['Pick', 'Amount', 'Time', 'Details']} numeric={[1]}>
            {candidates.rows.map((c) => (
              <tr key={c.entry.entryId}>
                <td>
                  <input
                    type="checkbox"
                    checked={picked.has(c.entry.entryId)}
                    onChange={(e) => toggle(c.entry.entryId, e.currentTarget.checked)}
                    aria-label={`Pick ${formatAmount(c.text, asset)} ${asset} of ${c.entry.createdAt.slice(0, 10)}`}
                  />
                </td>
                <td class="num">
                  <Amount value={c.entry.monetary.amount} asset={asset} />
                  {line.candidates.includes(c.entry.entryId) && <div class="hint">suggested</div>}
                </td>
                <td>
                  <Time at={c.entry.createdAt} />
                </td>
                <td>
                  <Monetary line={c.entry} />
                </td>
              </tr>
            ))}
          </Table>
        )}
        {free.data && !free.data.complete && <p class="hint">Only the account's first {free.data.items.length} unreconciled entries are offered.</p>}
        <div role="status" aria-live="polite">
          <dl class="facts amounts">
            <dt>Line</dt>
            <dd class="num">{amount(candidates.target)}</dd>
            <dt>Picked ({picked.size})</dt>
            <dd class="num">{amount(sum)}</dd>
            <dt>Difference</dt>
            <dd class="num">{amount(left)}</dd>
          </dl>
        </div>
        <label>
          Note (optional)
          <input value={note} onInput={(e) => setNote(e.currentTarget.value)} maxLength={STATEMENT_NOTE_LENGTH_MAX} />
        </label>
        <p class="hint" id="match-hint">
          {ready ? 'The picked entries add up to the line.' : picked.size > STATEMENT_MATCH_ENTRIES_MAX ? `Pick at most ${STATEMENT_MATCH_ENTRIES_MAX} entries.` : 'Match is offered once the difference is 0.'}
        </p>
        <ErrorNote error={error} />
        <div class="actions">
          <button type="submit" disabled={!ready || busy} aria-describedby="match-hint">
            {error ? 'Try again' : 'Match'}
          </button>
          <button type="button" onClick={modal.close}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** "Ignore…": the line set aside, with the note that says why (required). */
function IgnoreDialog({ line, onClosed }: { line: Line; onClosed: (message: string | null) => void }) {
  const { api } = useSigned();
  const result = useRef<string | null>(null);
  const modal = useModal(() => onClosed(result.current));
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const keys = useRef(new Map<string, string>());
  const ignore = async () => {
    const text = note.trim();
    if (text === '') return;
    const idempotencyKey = keys.current.get(text) ?? newIdempotencyKey();
    keys.current.set(text, idempotencyKey);
    setBusy(true);
    setError(null);
    try {
      await api.json<Line>(`/api/v1/bank-statement-lines/${line.lineId}/ignore`, { method: 'POST', idempotencyKey, body: { note: text } });
      result.current = `Line ${lineNumber(line)} is ignored.`;
      modal.close();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={modal.dialog} aria-labelledby="ignore-title" aria-describedby="ignore-what" onClose={modal.onClose}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          void ignore();
        }}
      >
        <h2 id="ignore-title" ref={modal.heading} tabIndex={-1}>
          Ignore line {lineNumber(line)}
        </h2>
        <p id="ignore-what">
          {line.direction} <Amount value={line.amount} asset={line.currency} /> booked {line.bookingDate}: set aside, matched to nothing. Say why (a bank fee to book later, a line that belongs elsewhere).
        </p>
        <label>
          Note (required)
          <input value={note} onInput={(e) => setNote(e.currentTarget.value)} required maxLength={STATEMENT_NOTE_LENGTH_MAX} />
        </label>
        <ErrorNote error={error} />
        <div class="actions">
          <button type="submit" disabled={note.trim() === '' || busy}>
            {error ? 'Try again' : 'Ignore'}
          </button>
          <button type="button" onClick={modal.close}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
