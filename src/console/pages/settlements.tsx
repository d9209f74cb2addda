// Settlements: the expected on-chain payments, by status, with what matched them.
import { useState } from 'preact/hooks';
import { withQuery } from '../api.js';
import type { Settlement } from '../answers.js';
import { settlementStatuses } from '../../core/enums.js';
import { Amount, IdLink, ListPage, PagedList, StatusFilter, Table, Time, usePaged, useSigned } from '../ui.js';


export const SettlementsPage = () => (
  <ListPage title="Settlements" scope="TRANSACTIONS_READ" to="to list settlements">
    <SettlementList />
  </ListPage>
);

function SettlementList() {
  const { api } = useSigned();
  const [status, setStatus] = useState('');
  const paged = usePaged<Settlement>((cursor, signal) => api.json(withQuery('/api/v1/settlements', { status, cursor }), { signal }), [status]);
  return (
    <>
      <StatusFilter statuses={settlementStatuses} value={status} onChange={setStatus} label="Filter settlements" />
      <PagedList
        paged={paged}
        noun="settlements"
        empty={
          status ? (
            `No ${status} settlements.`
          ) : (
            <>
              No settlements yet: expect an on-chain payment with <code>POST /api/v1/settlements</code>.
            </>
          )
        }
      >
        <Table caption="Settlements, newest first" head={['Created', 'Settlement', 'Status', 'Expected', 'Chain', 'Wallet', 'Account', 'Matched by', 'Expires']} numeric={[3]}>
          {paged.items.map((s) => (
            <tr key={s.settlementId}>
              <td>
                <Time at={s.createdAt} />
              </td>
              <td>
                <code>{s.settlementId}</code>
              </td>
              <td>{s.status}</td>
              <td class="num">
                <Amount value={s.expectedAmount} asset={s.expectedToken} />
              </td>
              <td>{s.expectedChainId}</td>
              <td>
                <code>{s.expectedWalletAddress}</code>
              </td>
              <td>
                <IdLink to="accounts" id={s.accountId} />
              </td>
              <td>
                {s.matchedTransactionId ? (
                  <IdLink to="transactions" id={s.matchedTransactionId} />
                ) : (
                  <span class="none">—</span>
                )}
              </td>
              <td>
                <Time at={s.expiresAt} />
              </td>
            </tr>
          ))}
        </Table>
      </PagedList>
    </>
  );
}
