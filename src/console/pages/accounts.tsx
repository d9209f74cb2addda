// Accounts: the list (filtered by type, currency and metadata; each with its balance) and an account's page (its
// balance, pending and available amounts, on-chain balances, limits, balance history and entries).
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { withQuery, type Api } from '../api.js';
import { accountTypes } from '../../core/enums.js';
import { fiatCurrencies } from '../../core/assets.js';
import { HistorySection } from './balanceHistory.js';
import { href } from '../route.js';
import { Amount, Choice, DetailPage, Empty, ErrorNote, IdLink, ListPage, Loading, PagedList, Table, Time, useLoad, usePaged, useSigned } from '../ui.js';
import { MetadataFields, metadataQuery, type MetadataPair } from './metadata.js';
import { assetOf, Monetary } from './lines.js';
import type { Account, Balance, JournalEntry as Entry } from '../answers.js';

const balanceOf = (api: Api, id: string, signal?: AbortSignal) => api.json<Balance>(`/api/v1/accounts/${id}/balance`, { signal });

export const AccountsPage = () => (
  <ListPage title="Accounts" scope="ACCOUNTS_READ" to="to list accounts">
    <AccountList />
  </ListPage>
);

function AccountList() {
  const { api } = useSigned();
  const [type, setType] = useState('');
  const [currency, setCurrency] = useState('');
  const [metadataForm, setMetadataForm] = useState<MetadataPair>({ key: '', value: '' });
  const [metadata, setMetadata] = useState<MetadataPair>(metadataForm);
  const paged = usePaged<Account>(
    (cursor, signal) => api.json(withQuery('/api/v1/accounts', { type, currency, ...metadataQuery(metadata), cursor }), { signal }),
    [type, currency, metadata.key, metadata.value],
  );
  const filtered = type !== '' || currency !== '' || metadata.key.trim() !== '';
  return (
    <>
      <form
        class="filters"
        aria-label="Filter accounts"
        onSubmit={(e) => {
          e.preventDefault();
          setMetadata(metadataForm);
        }}
      >
        <Choice label="Type" value={type} options={accountTypes} onChange={setType} />
        <Choice label="Currency" value={currency} options={fiatCurrencies} onChange={setCurrency} />
        <MetadataFields pair={metadataForm} onChange={setMetadataForm} />
        <button type="submit">Filter</button>
      </form>
      <PagedList
        paged={paged}
        noun="accounts"
        empty={
          filtered ? (
            'No account matches these filters.'
          ) : (
            <>
              No accounts yet: create one with <code>POST /api/v1/accounts</code> or <code>ledger accounts create</code>.
            </>
          )
        }
      >
        <Table caption="Accounts" head={['Name', 'Type', 'Currency', 'Balance']} numeric={[3]}>
          {paged.items.map((a) => (
            <tr key={a.id}>
              <td>
                <a href={href('accounts', a.id)}>{a.name}</a>
              </td>
              <td>{a.type}</td>
              <td>{a.currency}</td>
              <td class="num">
                <RowBalance id={a.id} />
              </td>
            </tr>
          ))}
        </Table>
      </PagedList>
    </>
  );
}

function RowBalance({ id }: { id: string }) {
  const { api } = useSigned();
  const balance = useLoad((signal) => balanceOf(api, id, signal), [id]);
  if (balance.error) return <span class="none">unavailable</span>;
  if (!balance.data) return <span class="none">…</span>;
  return <Amount value={balance.data.amount} asset={balance.data.currency} />;
}

export function AccountPage({ id }: { id: string }) {
  const { api } = useSigned();
  const account = useLoad((signal) => api.json<Account>(`/api/v1/accounts/${id}`, { signal }), [id]);
  return (
    <DetailPage title="Account" scope="ACCOUNTS_READ" what="account" loaded={account}>
      {(a) => <AccountFacts account={a} />}
    </DetailPage>
  );
}

function AccountFacts({ account: a }: { account: Account }) {
  const id = a.id;
  return (
    <>
      <h1>{a.name}</h1>
      <dl class="facts">
        <dt>Id</dt>
        <dd>
          <code>{a.id}</code>
        </dd>
        <dt>Type</dt>
        <dd>
          {a.type} (normal balance {a.normalBalance})
        </dd>
        <dt>Currency</dt>
        <dd>{a.currency}</dd>
        {a.description && (
          <>
            <dt>Description</dt>
            <dd>{a.description}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <Time at={a.createdAt} />
        </dd>
        {Object.entries(a.metadata ?? {}).map(([k, v]) => (
          <Fragment key={k}>
            <dt>
              Metadata <code>{k}</code>
            </dt>
            <dd>{v}</dd>
          </Fragment>
        ))}
      </dl>
      <BalanceSection id={id} />
      <LimitsSection id={id} />
      <HistorySection accountId={a.id} name={a.name} currency={a.currency} />
      <EntriesSection id={id} />
    </>
  );
}

function BalanceSection({ id }: { id: string }) {
  const { api } = useSigned();
  const balance = useLoad((signal) => balanceOf(api, id, signal), [id]);
  return (
    <section aria-labelledby="balance-heading">
      <h2 id="balance-heading">Balance</h2>
      <ErrorNote error={balance.error} />
      {balance.loading && !balance.data && <Loading what="Loading the balance" />}
      {balance.data && (
        <>
          <dl class="facts amounts">
            <dt>Balance</dt>
            <dd class="num">
              <Amount value={balance.data.amount} asset={balance.data.currency} />
            </dd>
            <dt>Pending</dt>
            <dd class="num">
              <Amount value={balance.data.pending} asset={balance.data.currency} />
            </dd>
            <dt>Available</dt>
            <dd class="num">
              <Amount value={balance.data.available} asset={balance.data.currency} />
            </dd>
            <dt>Computed</dt>
            <dd>
              <Time at={balance.data.computedAt} />
            </dd>
          </dl>
          {balance.data.onChainBalances.length === 0 ? (
            <Empty>No on-chain balances.</Empty>
          ) : (
            <Table caption="On-chain balances" head={['Token', 'Balance', 'Pending', 'Available']} numeric={[1, 2, 3]}>
              {balance.data.onChainBalances.map((b) => (
                <tr key={b.token}>
                  <td>{b.token}</td>
                  <td class="num">
                    <Amount value={b.amount} asset={b.token} bare />
                  </td>
                  <td class="num">
                    <Amount value={b.pending} asset={b.token} bare />
                  </td>
                  <td class="num">
                    <Amount value={b.available} asset={b.token} bare />
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
    </section>
  );
}

function LimitsSection({ id }: { id: string }) {
  const { api } = useSigned();
  const limits = useLoad((signal) => api.json<{ limits: Array<{ asset: string; min: string | null; max: string | null }> }>(`/api/v1/accounts/${id}/limits`, { signal }), [id]);
  return (
    <section aria-labelledby="limits-heading">
      <h2 id="limits-heading">Limits</h2>
      <ErrorNote error={limits.error} />
      {limits.loading && !limits.data && <Loading what="Loading the limits" />}
      {limits.data &&
        (limits.data.limits.length === 0 ? (
          <Empty>
            No limits: the balance may go anywhere. Set them with <code>PUT /api/v1/accounts/{'{id}'}/limits</code>.
          </Empty>
        ) : (
          <Table caption="Limits" head={['Asset', 'Minimum', 'Maximum']} numeric={[1, 2]}>
            {limits.data.limits.map((l) => (
              <tr key={l.asset}>
                <td>{l.asset}</td>
                <td class="num">{l.min === null ? <span class="none">none</span> : <Amount value={l.min} asset={l.asset} bare />}</td>
                <td class="num">{l.max === null ? <span class="none">none</span> : <Amount value={l.max} asset={l.asset} bare />}</td>
              </tr>
            ))}
          </Table>
        ))}
    </section>
  );
}

function EntriesSection({ id }: { id: string }) {
  const { api } = useSigned();
  const paged = usePaged<Entry>(
    async (cursor, signal) => {
      const page = await api.json<{ entries: Entry[]; nextCursor: string | null }>(withQuery(`/api/v1/accounts/${id}/entries`, { cursor }), { signal });
      return { items: page.entries, nextCursor: page.nextCursor };
    },
    [id],
  );
  return (
    <section aria-labelledby="entries-heading">
      <h2 id="entries-heading">Entries</h2>
      <PagedList
        paged={paged}
        noun="entries"
        empty={
          <>
            No entries yet: post a transaction with a line on this account (<code>POST /api/v1/transactions</code>).
          </>
        }
      >
        <Table caption="Entries, newest first" head={['Time', 'Type', 'Amount', 'Details', 'Transaction']} numeric={[2]}>
          {paged.items.map((e) => (
            <tr key={e.entryId}>
              <td>
                <Time at={e.createdAt} />
              </td>
              <td>{e.type}</td>
              <td class="num">
                <Amount value={e.monetary.amount} asset={assetOf(e.monetary)} />
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
      </PagedList>
    </section>
  );
}

