// Holds: the list by status, and a hold's page, which captures it (whole or an amount) or voids it for a key that
// may write. Each action is sent with an Idempotency-Key made for it and kept across a retry.
import { useRef, useState } from 'preact/hooks';
import { amountText, can, newIdempotencyKey, withQuery } from '../api.js';
import { holdStatuses } from '../../core/enums.js';
import { Amount, DetailPage, ErrorNote, IdLink, ListPage, MissingScope, PagedList, StatusFilter, Table, Time, useLoad, usePaged, useSigned } from '../ui.js';
import { assetOf } from './lines.js';
import type { Hold } from '../answers.js';
import { MetadataList } from './metadata.js';

type HoldLine = Hold['lines'][number];

/** The hold's amount: its debit line's (a hold moves one amount from one account to another). */
const debitOf = (hold: Hold): HoldLine | undefined => hold.lines.find((l) => l.entryType === 'DEBIT') ?? hold.lines[0];

export const HoldsPage = () => (
  <ListPage title="Holds" scope="TRANSACTIONS_READ" to="to list holds">
    <HoldList />
  </ListPage>
);

function HoldList() {
  const { api } = useSigned();
  const [status, setStatus] = useState('');
  const paged = usePaged<Hold>((cursor, signal) => api.json(withQuery('/api/v1/holds', { status, cursor }), { signal }), [status]);
  return (
    <>
      <StatusFilter statuses={holdStatuses} value={status} onChange={setStatus} label="Filter holds" />
      <PagedList
        paged={paged}
        noun="holds"
        empty={
          status ? (
            `No ${status} holds.`
          ) : (
            <>
              No holds yet: place one with <code>POST /api/v1/holds</code>.
            </>
          )
        }
      >
        <Table caption="Holds, newest first" head={['Created', 'Hold', 'Status', 'Amount', 'Expires']} numeric={[3]}>
          {paged.items.map((h) => {
            const debit = debitOf(h);
            return (
              <tr key={h.holdId}>
                <td>
                  <Time at={h.createdAt} />
                </td>
                <td>
                  <IdLink to="holds" id={h.holdId} />
                </td>
                <td>{h.status}</td>
                <td class="num">{debit && <Amount value={debit.monetaryEntry.amount} asset={assetOf(debit.monetaryEntry)} />}</td>
                <td>
                  <Time at={h.expiresAt} />
                </td>
              </tr>
            );
          })}
        </Table>
      </PagedList>
    </>
  );
}

export function HoldPage({ id }: { id: string }) {
  const { api, key } = useSigned();
  const hold = useLoad((signal) => api.json<Hold>(`/api/v1/holds/${id}`, { signal }), [id]);
  return (
    <DetailPage title="Hold" scope="TRANSACTIONS_READ" what="hold" loaded={hold}>
      {(h) => <HoldFacts hold={h} canWrite={can(key, 'TRANSACTIONS_WRITE')} onDone={hold.reload} />}
    </DetailPage>
  );
}

function HoldFacts({ hold: h, canWrite, onDone }: { hold: Hold; canWrite: boolean; onDone: () => void }) {
  const debit = debitOf(h);
  return (
    <>
      <h1>Hold</h1>
      <dl class="facts">
        <dt>Id</dt>
        <dd>
          <code>{h.holdId}</code>
        </dd>
        <dt>Status</dt>
        <dd>{h.status}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={h.createdAt} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <Time at={h.expiresAt} />
        </dd>
        {h.capturedAmount !== undefined && debit && (
          <>
            <dt>Captured</dt>
            <dd>
              <Amount value={h.capturedAmount} asset={assetOf(debit.monetaryEntry)} />
            </dd>
          </>
        )}
        {h.transactionId && (
          <>
            <dt>Transaction</dt>
            <dd>
              <IdLink to="transactions" id={h.transactionId} />
            </dd>
          </>
        )}
      </dl>
      {h.status === 'PENDING' && (canWrite ? <HoldActions hold={h} onDone={onDone} /> : <MissingScope scope="TRANSACTIONS_WRITE" to="to capture or void a hold" />)}
      <h2>Lines</h2>
      <Table caption="Lines" head={['Account', 'Side', 'Amount', 'Description']} numeric={[2]}>
        {h.lines.map((l, i) => (
          <tr key={i}>
            <td>
              <IdLink to="accounts" id={l.accountId} />
            </td>
            <td>{l.entryType}</td>
            <td class="num">
              <Amount value={l.monetaryEntry.amount} asset={assetOf(l.monetaryEntry)} />
            </td>
            <td>{l.description ?? ''}</td>
          </tr>
        ))}
      </Table>
      <h2>Metadata</h2>
      <MetadataList metadata={h.metadata} />
    </>
  );
}

function HoldActions({ hold, onDone }: { hold: Hold; onDone: () => void }) {
  const { api } = useSigned();
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // One key per action and its amount, kept across retries of it.
  const keys = useRef(new Map<string, string>());
  const act = async (action: 'capture' | 'void') => {
    const body = action === 'capture' && amount.trim() !== '' ? { amount: amount.trim() } : {};
    const slot = `${action} ${JSON.stringify(body)}`;
    const idempotencyKey = keys.current.get(slot) ?? newIdempotencyKey();
    keys.current.set(slot, idempotencyKey);
    setBusy(true);
    setError(null);
    try {
      await api.json(`/api/v1/holds/${hold.holdId}/${action}`, { method: 'POST', idempotencyKey, body });
      keys.current.clear();
      onDone();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const debit = debitOf(hold);
  return (
    <section aria-labelledby="hold-actions" class="panel">
      <h2 id="hold-actions">Capture or void</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void act('capture');
        }}
      >
        <label>
          Amount to capture
          <input
            inputMode="decimal"
            value={amount}
            onInput={(e) => setAmount(e.currentTarget.value)}
            placeholder={debit ? `${amountText(debit.monetaryEntry.amount)} (the whole hold)` : 'the whole hold'}
            aria-describedby="capture-hint"
          />
        </label>
        <div class="actions">
          <button type="submit" disabled={busy}>
            Capture
          </button>
          <button type="button" class="danger" disabled={busy} onClick={() => void act('void')}>
            Void
          </button>
        </div>
        <p id="capture-hint" class="hint">
          Leave the amount empty to capture the whole hold.
        </p>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}
