// An account's balance history: a range of days and an interval chosen in a form, drawn as a chart (an image named by
// what it shows) with its numbers in a table beside it, every digit as the API gives it.
import { useState } from 'preact/hooks';
import { amountText, withQuery } from '../api.js';
import type { BalanceHistory as History } from '../answers.js';
import { formatAmount } from '../amounts.js';
import { BalanceChart } from '../chart.js';
import { historyIntervals } from '../../core/enums.js';
import { Amount, Choice, ErrorNote, Loading, Table, Time, useLoad, useSigned } from '../ui.js';

const DAY_MS = 86_400_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The end of a day (the next one's first instant, UTC): the history's last point is the balance after the whole day. */
const endOfDay = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + DAY_MS).toISOString();


export function HistorySection({ accountId, name, currency }: { accountId: string; name: string; currency: string }) {
  const { api } = useSigned();
  const [range, setRange] = useState(() => ({ from: dateOf(Date.now() - 30 * DAY_MS), to: dateOf(Date.now()), interval: 'day' }));
  const [form, setForm] = useState(range);
  const history = useLoad(
    (signal) => api.json<History>(withQuery(`/api/v1/accounts/${accountId}/balance-history`, { from: `${range.from}T00:00:00Z`, to: endOfDay(range.to), interval: range.interval }), { signal }),
    [accountId, range.from, range.to, range.interval],
  );
  const points = (history.data?.points ?? []).map((p) => ({ at: p.at, amount: amountText(p.amount) }));
  const last = points[points.length - 1];
  const label = `Balance history of ${name} in ${currency}, from ${range.from} to ${range.to} (UTC) by ${range.interval}: ${points.length} points${last ? `, the last ${formatAmount(last.amount, currency)}` : ''}`;
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">Balance history</h2>
      <form
        class="filters"
        aria-label="Balance history range"
        onSubmit={(e) => {
          e.preventDefault();
          setRange(form);
        }}
      >
        <label>
          From
          <input type="date" required value={form.from} onInput={(e) => setForm({ ...form, from: e.currentTarget.value })} />
        </label>
        <label>
          To
          <input type="date" required value={form.to} onInput={(e) => setForm({ ...form, to: e.currentTarget.value })} />
        </label>
        <Choice label="Interval" value={form.interval} options={historyIntervals} onChange={(interval) => setForm({ ...form, interval })} all={false} />
        <button type="submit">Show</button>
      </form>
      <ErrorNote error={history.error} />
      {history.loading && <Loading what="Loading the balance history" />}
      {history.data && !history.error && (
        <>
          <BalanceChart points={points} label={label} />
          <details>
            <summary>The numbers, as a table</summary>
            <Table caption="Balance history, point by point" head={['At (UTC)', `Balance (${history.data.currency})`]} numeric={[1]}>
              {points.map((p) => (
                <tr key={p.at}>
                  <td>
                    <Time at={p.at} />
                  </td>
                  <td class="num">
                    <Amount value={p.amount} asset={currency} bare />
                  </td>
                </tr>
              ))}
            </Table>
          </details>
        </>
      )}
    </section>
  );
}
