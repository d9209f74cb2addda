// Reports: the trial balance at an instant, every page of it joined, with its totals per asset and the audit record it
// ties to; and the same CSV file `ledger reports trial-balance --format csv` prints (core/trialBalanceCsv.ts).
import { useEffect, useMemo, useState } from 'preact/hooks';
import { csvFile } from '../../core/csv.js';
import { trialBalanceCsvTable } from '../../core/trialBalanceCsv.js';
import { PAGE_SIZE_MAX } from '../../core/limits.js';
import { withQuery, type Api } from '../api.js';
import type { TrialBalance } from '../answers.js';
import { href } from '../route.js';
import { Amount, Empty, ErrorNote, ListPage, Loading, Time, useLoad, useSigned } from '../ui.js';
import { instantOfLocal, UTC_HINT_ID, UtcHint } from './instants.js';


/** Every page of the report at one instant (the cursor carries it), joined. */
async function wholeTrialBalance(api: Api, asOf: string, signal: AbortSignal): Promise<TrialBalance> {
  const first = await api.json<TrialBalance>(withQuery('/api/v1/reports/trial-balance', { asOf, limit: String(PAGE_SIZE_MAX) }), { signal });
  const items = [...first.items];
  for (let cursor = first.nextCursor; cursor; ) {
    const page = await api.json<TrialBalance>(withQuery('/api/v1/reports/trial-balance', { limit: String(PAGE_SIZE_MAX), cursor }), { signal });
    items.push(...page.items);
    cursor = page.nextCursor;
  }
  return { ...first, items, nextCursor: null };
}

export const ReportsPage = () => (
  <ListPage title="Reports" scope="ACCOUNTS_READ" to="to read reports">
    <TrialBalanceReport />
  </ListPage>
);

function TrialBalanceReport() {
  const { api } = useSigned();
  const [form, setForm] = useState('');
  const [asOf, setAsOf] = useState('');
  const report = useLoad((signal) => wholeTrialBalance(api, instantOfLocal(asOf), signal), [asOf]);
  return (
    <section aria-labelledby="trial-balance-heading">
      <h2 id="trial-balance-heading">Trial balance</h2>
      <form
        class="filters"
        aria-label="Trial balance instant"
        onSubmit={(e) => {
          e.preventDefault();
          setAsOf(form);
        }}
      >
        <label>
          As of
          <input type="datetime-local" step={1} aria-describedby={UTC_HINT_ID} value={form} onInput={(e) => setForm(e.currentTarget.value)} />
        </label>
        <button type="submit">Show</button>
        <UtcHint />
      </form>
      <ErrorNote error={report.error} />
      {report.loading && <Loading what="Loading the trial balance" />}
      {report.data && !report.loading && <TrialBalanceTable report={report.data} />}
    </section>
  );
}

function TrialBalanceTable({ report }: { report: TrialBalance }) {
  const csvUrl = useMemo(() => URL.createObjectURL(new Blob([csvFile(trialBalanceCsvTable(report))], { type: 'text/csv' })), [report]);
  useEffect(() => () => URL.revokeObjectURL(csvUrl), [csvUrl]);
  return (
    <>
      <p>
        As of <Time at={report.asOf} />.{' '}
        {report.auditHead ? (
          <>
            Ties to audit record <code>{report.auditHead.id}</code> (hash <code class="hash">{report.auditHead.hash}</code>, <Time at={report.auditHead.occurredAt} />
            ).
          </>
        ) : (
          'No audit record yet.'
        )}
      </p>
      <p>
        <a class="button" href={csvUrl} download={`trial-balance-${report.asOf.replace(/[:.]/g, '-')}.csv`}>
          Download CSV
        </a>
      </p>
      {report.items.length === 0 ? (
        <Empty>
          No balances at this instant: accounts appear here once a transaction moves them (<code>POST /api/v1/transactions</code>).
        </Empty>
      ) : (
        <div class="table-wrap" role="region" aria-label="Trial balance, by account" tabIndex={0}>
          <table>
            <caption>Trial balance: each account's balance on its side, then the totals per asset</caption>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Type</th>
                <th scope="col">Asset</th>
                <th scope="col" class="num">
                  Debit
                </th>
                <th scope="col" class="num">
                  Credit
                </th>
              </tr>
            </thead>
            <tbody>
              {report.items.map((i) => (
                <tr key={`${i.accountId} ${i.asset}`}>
                  <td>
                    <a href={href('accounts', i.accountId)}>{i.name}</a>
                  </td>
                  <td>{i.type}</td>
                  <td>{i.asset}</td>
                  <td class="num">
                    <Amount value={i.debit} asset={i.asset} bare />
                  </td>
                  <td class="num">
                    <Amount value={i.credit} asset={i.asset} bare />
                  </td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              {report.totals.map((t) => (
                <tr key={t.asset} class="total">
                  <th scope="row" colSpan={2}>
                    Total
                  </th>
                  <td>{t.asset}</td>
                  <td class="num">
                    <Amount value={t.debit} asset={t.asset} bare />
                  </td>
                  <td class="num">
                    <Amount value={t.credit} asset={t.asset} bare />
                  </td>
                </tr>
              ))}
            </tfoot>
          </table>
        </div>
      )}
    </>
  );
}
