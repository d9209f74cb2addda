// Transactions: the search (by account, time, metadata and idempotency key) and a transaction's page (its lines,
// metadata and reversal links), with the reversal behind a confirmation dialog for a key that may write.
import { Fragment } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { can, newIdempotencyKey, withQuery } from '../api.js';
import type { Transaction } from '../answers.js';
import { REVERSAL_DESCRIPTION_LENGTH_MAX } from '../../core/limits.js';
import { Amount, DetailPage, ErrorNote, IdLink, ListPage, MissingScope, PagedList, Table, Time, useLoad, usePaged, useSigned } from '../ui.js';
import { assetOf, LinesTable, type Line } from './lines.js';
import { MetadataFields, MetadataList, metadataQuery, type MetadataPair } from './metadata.js';
import { instantOfLocal, UTC_HINT_ID, UtcHint } from './instants.js';


interface Search {
  accountId: string;
  from: string;
  to: string;
  metadata: MetadataPair;
  idempotencyKey: string;
}

const NO_SEARCH: Search = { accountId: '', from: '', to: '', metadata: { key: '', value: '' }, idempotencyKey: '' };

export const TransactionsPage = () => (
  <ListPage title="Transactions" scope="TRANSACTIONS_READ" to="to list transactions">
    <TransactionSearch />
  </ListPage>
);

function TransactionSearch() {
  const { api } = useSigned();
  const [form, setForm] = useState<Search>(NO_SEARCH);
  const [search, setSearch] = useState<Search>(NO_SEARCH);
  const paged = usePaged<Transaction>(
    (cursor, signal) =>
      api.json(
        withQuery('/api/v1/transactions', {
          accountId: search.accountId.trim(),
          from: instantOfLocal(search.from),
          to: instantOfLocal(search.to),
          ...metadataQuery(search.metadata),
          idempotencyKey: search.idempotencyKey,
          cursor,
        }),
        { signal },
      ),
    [search],
  );
  const searching = JSON.stringify(search) !== JSON.stringify(NO_SEARCH);
  return (
    <>
      <form
        class="filters"
        aria-label="Search transactions"
        onSubmit={(e) => {
          e.preventDefault();
          setSearch({ ...form });
        }}
      >
        <label>
          Account
          <input value={form.accountId} onInput={(e) => setForm({ ...form, accountId: e.currentTarget.value })} placeholder="account id" autoComplete="off" />
        </label>
        <label>
          From
          <input type="datetime-local" step={1} aria-describedby={UTC_HINT_ID} value={form.from} onInput={(e) => setForm({ ...form, from: e.currentTarget.value })} />
        </label>
        <label>
          To
          <input type="datetime-local" step={1} aria-describedby={UTC_HINT_ID} value={form.to} onInput={(e) => setForm({ ...form, to: e.currentTarget.value })} />
        </label>
        <MetadataFields pair={form.metadata} onChange={(metadata) => setForm({ ...form, metadata })} />
        <label>
          Idempotency key
          <input value={form.idempotencyKey} onInput={(e) => setForm({ ...form, idempotencyKey: e.currentTarget.value })} autoComplete="off" />
        </label>
        <div class="actions">
          <button type="submit">Search</button>
          <button
            type="button"
            onClick={() => {
              setForm(NO_SEARCH);
              setSearch(NO_SEARCH);
            }}
          >
            Clear
          </button>
        </div>
        <UtcHint />
      </form>
      <PagedList
        paged={paged}
        noun="transactions"
        empty={
          searching ? (
            'No transaction matches this search.'
          ) : (
            <>
              No transactions yet: post one with <code>POST /api/v1/transactions</code> (or <code>ledger transactions import</code>).
            </>
          )
        }
      >
        <Table caption="Transactions, newest first" head={['Time', 'Transaction', 'Lines', 'Amount', 'Metadata', 'Reversal']} numeric={[2, 3]}>
          {paged.items.map((t) => (
            <tr key={t.transactionId}>
              <td>
                <Time at={t.createdAt} />
              </td>
              <td>
                <IdLink to="transactions" id={t.transactionId} />
              </td>
              <td class="num">{t.lines.length}</td>
              <td class="num">
                <Moved lines={t.lines} />
              </td>
              <td>
                {Object.entries(t.metadata)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(', ')}
              </td>
              <td>
                <ReversalLinks transaction={t} />
              </td>
            </tr>
          ))}
        </Table>
      </PagedList>
    </>
  );
}

/** What a transaction moved: its debit lines' amounts (each line as given, not summed: no digit is made up here). */
function Moved({ lines }: { lines: Line[] }) {
  const debits = lines.filter((l) => l.type === 'DEBIT');
  return (
    <>
      {debits.slice(0, 3).map((l, i) => (
        <div key={i}>
          <Amount value={l.monetary.amount} asset={assetOf(l.monetary)} />
        </div>
      ))}
      {debits.length > 3 && <div class="none">and {debits.length - 3} more debits</div>}
    </>
  );
}

/** "Reverses" and "Reversed by", each with its transaction linked: as lines of a table's cell, or a page's facts. */
function ReversalLinks({ transaction: t, as = 'lines' }: { transaction: Transaction; as?: 'lines' | 'facts' }) {
  const links: Array<[string, string | null]> = [
    ['Reverses', t.reversesTransactionId],
    ['Reversed by', t.reversedByTransactionId],
  ];
  return (
    <>
      {links.map(([name, id]) =>
        id === null ? null : as === 'lines' ? (
          <div key={name}>
            {name} <IdLink to="transactions" id={id} />
          </div>
        ) : (
          <Fragment key={name}>
            <dt>{name}</dt>
            <dd>
              <IdLink to="transactions" id={id} />
            </dd>
          </Fragment>
        ),
      )}
    </>
  );
}

export function TransactionPage({ id }: { id: string }) {
  const { api, key } = useSigned();
  const transaction = useLoad((signal) => api.json<Transaction>(`/api/v1/transactions/${id}`, { signal }), [id]);
  return (
    <DetailPage title="Transaction" scope="TRANSACTIONS_READ" what="transaction" loaded={transaction}>
      {(t) => <TransactionFacts transaction={t} canWrite={can(key, 'TRANSACTIONS_WRITE')} onReversed={transaction.reload} />}
    </DetailPage>
  );
}

function TransactionFacts({ transaction: t, canWrite, onReversed }: { transaction: Transaction; canWrite: boolean; onReversed: () => void }) {
  return (
    <>
      <h1>Transaction</h1>
      <dl class="facts">
        <dt>Id</dt>
        <dd>
          <code>{t.transactionId}</code>
        </dd>
        <dt>Posted</dt>
        <dd>
          <Time at={t.createdAt} />
        </dd>
        <ReversalLinks transaction={t} as="facts" />
      </dl>
      {t.reversedByTransactionId === null &&
        (canWrite ? <ReverseButton id={t.transactionId} onReversed={onReversed} /> : <MissingScope scope="TRANSACTIONS_WRITE" to="to reverse a transaction" />)}
      <h2>Lines</h2>
      <LinesTable lines={t.lines} />
      <h2>Metadata</h2>
      <MetadataList metadata={t.metadata} />
    </>
  );
}

/**
 * "Reverse", confirmed in a dialog. The reversal is sent with an Idempotency-Key made when the dialog opens and kept
 * across every retry of it, so that a retry after a lost answer never reverses twice.
 */
function ReverseButton({ id, onReversed }: { id: string; onReversed: () => void }) {
  const { api } = useSigned();
  const dialog = useRef<HTMLDialogElement>(null);
  const idempotencyKey = useRef<string | null>(null);
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const open = () => {
    idempotencyKey.current ??= newIdempotencyKey();
    setError(null);
    dialog.current?.showModal();
  };
  const reverse = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.json(`/api/v1/transactions/${id}/reverse`, {
        method: 'POST',
        idempotencyKey: idempotencyKey.current ?? (idempotencyKey.current = newIdempotencyKey()),
        body: description.trim() === '' ? {} : { description: description.trim() },
      });
      idempotencyKey.current = null;
      dialog.current?.close();
      onReversed();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <p>
        <button type="button" class="danger" onClick={open}>
          Reverse
        </button>
      </p>
      <dialog ref={dialog} aria-labelledby="reverse-title" aria-describedby="reverse-what">
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault();
            void reverse();
          }}
        >
          <h2 id="reverse-title">Reverse this transaction?</h2>
          <p id="reverse-what">
            A new transaction is posted with every line on the other side. The original stays as it is, linked to its reversal. This cannot be undone.
          </p>
          <label>
            Description (optional)
            <input value={description} onInput={(e) => setDescription(e.currentTarget.value)} maxLength={REVERSAL_DESCRIPTION_LENGTH_MAX} />
          </label>
          <ErrorNote error={error} />
          <div class="actions">
            <button type="submit" class="danger" disabled={busy}>
              {error ? 'Try again' : 'Reverse'}
            </button>
            <button type="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
