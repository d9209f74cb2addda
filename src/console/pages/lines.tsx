// A transaction's lines, as the API gives them (the entries listing's shape): the account, the side, the amount and
// what moved it (a bank rail and reference, or a chain, token, transfer and wallet).
import type { JournalEntry, Monetary as MonetaryValue } from '../answers.js';
import { Amount, IdLink, Table } from '../ui.js';

/** An entry of an account, or a line of a transaction (an entry with its account). */
export type Line = JournalEntry & { accountId?: string };

export const assetOf = (m: MonetaryValue): string => (m.type === 'FIAT' ? m.currency : m.token);

/** What moved a line: its rail (and bank reference), or its chain, transfer and wallet; and its description. */
export function Monetary({ line }: { line: Line }) {
  const m = line.monetary;
  return (
    <span class="details">
      {m.type === 'FIAT' ? (
        <>
          {m.rail}
          {m.bankReference ? ` · ref ${m.bankReference}` : ''}
        </>
      ) : (
        <>
          {m.chainId} tx <code>{m.txHash}</code> block {m.blockNumber.text} · wallet <code>{m.walletAddress}</code>
        </>
      )}
      {line.description ? ` · ${line.description}` : ''}
    </span>
  );
}

export function LinesTable({ lines, caption = 'Lines' }: { lines: Line[]; caption?: string }) {
  return (
    <Table caption={caption} head={['Account', 'Side', 'Amount', 'Details']} numeric={[2]}>
      {lines.map((l, i) => (
        <tr key={l.entryId ?? i}>
          <td>{l.accountId ? <IdLink to="accounts" id={l.accountId} /> : '—'}</td>
          <td>{l.type}</td>
          <td class="num">
            <Amount value={l.monetary.amount} asset={assetOf(l.monetary)} />
          </td>
          <td>
            <Monetary line={l} />
          </td>
        </tr>
      ))}
    </Table>
  );
}
