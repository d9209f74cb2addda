// Events: the feed live from GET /api/v1/events/stream (Server-Sent Events, read through fetch so that the key goes in
// a header, never in the URL), newest first; and the whole feed from its start, oldest first, paged.
import { useEffect, useState } from 'preact/hooks';
import { parseJsonObject } from '../../core/json.js';
import { textLines, withQuery, type Api } from '../api.js';
import type { FeedEvent } from '../answers.js';
import { Empty, IdLink, ListPage, PagedList, Table, Time, usePaged, useSigned } from '../ui.js';


/** The most events the live list keeps (the oldest leave it first). */
const LIVE_KEPT = 200;
/** What the stream's `retry:` says when it has not said it yet. */
const RECONNECT_MS = 3000;

export const EventsPage = () => (
  <ListPage title="Events" scope="TRANSACTIONS_READ" to="to read the event feed">
    <LiveEvents />
    <History />
  </ListPage>
);

/** What an event is about, linked where the console has a page for it. */
function Subject({ event }: { event: FeedEvent }) {
  const d = event.data;
  const link = (section: string, id: unknown, noun: string) =>
    typeof id === 'string' ? (
      <>
        {noun} <IdLink to={section} id={id} />
      </>
    ) : null;
  if (event.type === 'transaction.reversed') {
    return (
      <>
        {link('transactions', d.transactionId, 'transaction')} reversed by {link('transactions', d.reversalTransactionId, '')}
      </>
    );
  }
  if (event.type.startsWith('transaction.')) return link('transactions', d.transactionId, 'transaction');
  if (event.type.startsWith('hold.')) return link('holds', d.holdId, 'hold');
  if (event.type.startsWith('account.')) return link('accounts', d.id, 'account');
  if (event.type.startsWith('settlement.')) {
    return (
      <>
        settlement <code>{String(d.settlementId)}</code>
      </>
    );
  }
  return null;
}

function EventsTable({ events, caption }: { events: FeedEvent[]; caption: string }) {
  return (
    <Table caption={caption} head={['Time', 'Type', 'About', 'Event']}>
      {events.map((e) => (
        <tr key={e.id}>
          <td>
            <Time at={e.createdAt} />
          </td>
          <td>
            <code>{e.type}</code>
          </td>
          <td>
            <Subject event={e} />
          </td>
          <td>
            <code>{e.id}</code>
          </td>
        </tr>
      ))}
    </Table>
  );
}

/**
 * Reads the stream until it ends or `signal` aborts, handing each event to `onEvent`; says when it is connected and
 * how long the server asks to wait before connecting again.
 */
async function readStream(api: Api, after: string | undefined, signal: AbortSignal, onEvent: (e: FeedEvent) => void, onOpen: () => void): Promise<number> {
  const response = await api.fetch(withQuery('/api/v1/events/stream', { after }), { signal });
  onOpen();
  let retryMs = RECONNECT_MS;
  // An event is its lines up to a blank one; only its data (and the stream's retry) matter here.
  let data: string[] = [];
  for await (const line of textLines(response)) {
    if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    else if (line.startsWith('retry:')) retryMs = Number(line.slice(6).trim()) || retryMs;
    else if (line === '' && data.length > 0) {
      onEvent(parseJsonObject(data.join('\n')) as unknown as FeedEvent);
      data = [];
    }
  }
  return retryMs;
}

function LiveEvents() {
  const { api } = useSigned();
  const [events, setEvents] = useState<FeedEvent[]>([]);
  const [state, setState] = useState<'connecting' | 'live' | 'reconnecting'>('connecting');
  useEffect(() => {
    const abort = new AbortController();
    let last: string | undefined;
    void (async () => {
      while (!abort.signal.aborted) {
        let waitMs = RECONNECT_MS;
        try {
          waitMs = await readStream(
            api,
            last,
            abort.signal,
            (event) => {
              last = event.id;
              setEvents((kept) => [event, ...kept].slice(0, LIVE_KEPT));
            },
            () => setState('live'),
          );
        } catch {
          // Refused (a 401 has signed out already) or cut: tried again after the wait.
        }
        if (abort.signal.aborted) return;
        setState('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    })();
    return () => abort.abort();
  }, [api]);
  return (
    <section aria-labelledby="live-heading">
      <h2 id="live-heading">Live</h2>
      <p role="status" class="live-state">
        {state === 'live' ? 'Connected: new events appear here as they are committed.' : state === 'connecting' ? 'Connecting to the event stream…' : 'The stream was cut: connecting again…'}
      </p>
      {events.length === 0 ? <Empty>No new events since this page opened. Post a transaction and it appears here.</Empty> : <EventsTable events={events} caption="New events, newest first" />}
    </section>
  );
}

function History() {
  const { api } = useSigned();
  const paged = usePaged<FeedEvent>((cursor, signal) => api.json(withQuery('/api/v1/events', { cursor }), { signal }), []);
  return (
    <section aria-labelledby="feed-heading">
      <h2 id="feed-heading">The feed from its start</h2>
      <PagedList
        paged={paged}
        noun="events"
        empty="No events yet: events are recorded as transactions, holds, settlements and accounts change."
      >
        <EventsTable events={paged.items} caption="Events, oldest first" />
      </PagedList>
    </section>
  );
}
