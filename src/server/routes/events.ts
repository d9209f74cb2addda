// The event feed: the tenant's events in commit order, paged or followed live (Server-Sent Events).
import { eventIdParam, eventsQuery, eventStreamQuery } from '../../core/schemas.js';
import { parseWith } from '../../core/validate.js';
import { eventTypes } from '../../core/enums.js';
import { defineRoute } from '../route.js';

const typeParameter = `One or more of ${eventTypes.join(', ')}, separated by commas (or the parameter repeated)`;

export const eventRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/v1/events',
    summary: `The tenant's events, oldest first, in commit order (each the webhook body without sentAt). ${typeParameter} filters by kind`,
    operationId: 'listEvents',
    scope: 'TRANSACTIONS_READ',
    query: eventsQuery,
    queryLists: ['type'],
    responses: {
      200: { description: 'A page of events, oldest first; following nextCursor until null reads everything committed at the time', schema: 'EventsPage' },
      400: 'Invalid limit, type or cursor (a cursor goes with the query it came from, after and type included); after is not an event of this tenant',
      410: 'after (or the cursor) is before an event pruned by --event-retention (EVENT_PRUNED): read the current state again',
    },
    handle: async ({ ledger, principal, query }) => ({ status: 200, body: await ledger.events.list(principal.tenantId, query) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/v1/events/stream',
    summary: `The tenant's events live, as Server-Sent Events (id, event, data: the event), from after Last-Event-ID or after, else from new events only; a comment every 15 s. ${typeParameter} filters by kind`,
    operationId: 'streamEvents',
    scope: 'TRANSACTIONS_READ',
    query: eventStreamQuery,
    queryLists: ['type'],
    headers: {
      'Last-Event-ID': { schema: eventIdParam, required: false, description: 'Resume after this event (an EventSource sends it when it reconnects); wins over after' },
    },
    responses: {
      200: { description: 'The stream: each event as `id: <eventId>`, `event: <type>`, `data: <the event as JSON>`', contentType: 'text/event-stream' },
      400: 'Invalid type; after or Last-Event-ID is not an event of this tenant (a detail names which)',
      410: 'The event to resume after was pruned by --event-retention (EVENT_PRUNED): read the current state again',
      429: 'The tenant holds --max-streams-per-tenant streams already, the client address half of --max-connections-per-client, or the server half of --max-connections (RATE_LIMITED, with Retry-After); the connection is closed',
    },
    handle: async ({ ledger, settings, principal, query, header, signal, dropConnection, onAnswered, clientAddress }) => {
      const tenantId = principal.tenantId;
      const raw = header('last-event-id')?.trim() || undefined;
      const lastEventId = raw === undefined ? undefined : parseWith(eventIdParam, raw, 'Last-Event-ID header', 'Last-Event-ID');
      // Before any read of the database, so that a refusal under a flood of streams costs little; held until the
      // answer is over (an error below included).
      onAnswered(settings.eventStreams!.admit(tenantId, clientAddress));
      // Without a place to resume from, the stream starts at new events only.
      const position =
        lastEventId !== undefined
          ? await ledger.events.position(tenantId, lastEventId, 'Last-Event-ID')
          : query.after !== undefined
            ? await ledger.events.position(tenantId, query.after)
            : await ledger.store.lastOutboxSeq(tenantId);
      const stream = settings.eventStreams!.follow({ tenantId, position, types: query.type ?? null, signal, drop: dropConnection });
      return { status: 200, stream, contentType: 'text/event-stream; charset=utf-8' };
    },
  }),
];
