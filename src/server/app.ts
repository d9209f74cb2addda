// The HTTP application: every route of the table behind authentication, scope checks and one error mapping.
import { H3, getRouterParams, type H3Event } from 'h3';
import type { Ledger } from '../core/ledger.js';
import { invalid, LedgerError } from '../core/errors.js';
import type { Actor } from '../core/audit.js';
import type { Principal } from '../core/context.js';
import { errorResponse, type Logger } from './errors.js';
import { isLarge, nodeRequestOf, nodeResponseOf, parseParams, parseQuery, parseRouteBody, readRouteBody, toResponse, type Route, type ServerSettings } from './route.js';
import { ClientGone, withLingeringClose } from './body.js';
import { InFlightRequests } from './inFlight.js';
import { respond } from './respond.js';
import { apiKeyRoutes } from './routes/apiKeys.js';
import { accountRoutes } from './routes/accounts.js';
import { transactionRoutes } from './routes/transactions.js';
import { settlementRoutes } from './routes/settlements.js';
import { reconciliationRoutes } from './routes/reconciliation.js';
import { complianceRoutes } from './routes/compliance.js';
import { webhookRoutes } from './routes/webhook.js';
import { policyRuleRoutes } from './routes/policyRules.js';
import { agentRoutes } from './routes/agents.js';
import { eventRoutes } from './routes/events.js';
import { holdRoutes } from './routes/holds.js';
import { reportRoutes } from './routes/reports.js';
import { EventStreams } from './eventStreams.js';
import { Turns } from './turns.js';
import { LARGE_BODIES_IN_FLIGHT_MAX } from '../core/limits.js';
import { openApiDocument } from './openapi.js';
import { docsPage, type DocumentLike } from './docs.js';
import { VERSION } from '../version.js';

export const apiRoutes: Route[] = [
  ...accountRoutes,
  ...reportRoutes,
  ...transactionRoutes,
  ...holdRoutes,
  ...settlementRoutes,
  ...reconciliationRoutes,
  ...complianceRoutes,
  ...webhookRoutes,
  ...eventRoutes,
  ...agentRoutes,
  ...policyRuleRoutes,
  ...apiKeyRoutes,
];

const publicRoutes: Route[] = [
  {
    method: 'GET',
    path: '/healthz',
    summary: 'Liveness: 200 once the server accepts requests',
    operationId: 'health',
    responses: { 200: { description: 'The server accepts requests', schema: 'Health' } },
    handle: () => ({ status: 200, raw: '{"status":"ok"}' }),
  },
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    operationId: 'getOpenApiDocument',
    responses: { 200: { description: 'The document', schema: 'OpenApiDocument' } },
    handle: () => ({ status: 200, body: document }),
  },
  {
    method: 'GET',
    path: '/api/v1/docs',
    summary: 'A readable reference of this document (HTML, nothing fetched from outside)',
    operationId: 'getDocs',
    responses: { 200: { description: 'The reference, as one HTML page', contentType: 'text/html' } },
    handle: () => ({ status: 200, raw: (page ??= docsPage(document as unknown as DocumentLike)), contentType: 'text/html; charset=utf-8', headers: { 'content-security-policy': DOCS_CSP } }),
  },
];

/** The docs page loads nothing: no script, no image, no font, no stylesheet but its own inline one. */
const DOCS_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
let page: string | undefined;

export const allRoutes: Route[] = [...publicRoutes, ...apiRoutes];
const document = openApiDocument(allRoutes, VERSION);

/** The caller of a public route (health, the OpenAPI document): no tenant, no scopes. */
const ANONYMOUS: Principal = { tenantId: '', keyId: '', scopes: [] };

function bearerToken(event: H3Event): string | null {
  const header = event.req.headers.get('authorization');
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  // A present but unreadable header is a malformed key, not a missing one.
  return match ? match[1]! : '';
}

function handlerFor(route: Route, ledger: Ledger, settings: ServerSettings, log: Logger, inFlight: InFlightRequests) {
  return async (event: H3Event): Promise<Response> => {
    const response = await inFlight.track(() => answer(route, ledger, settings, log, event));
    return finish(event, response);
  };
}

/** Answered while the body is still arriving (refused, or never needed): the rest is read and dropped, then closed. */
function finish(event: H3Event, response: Response): Response | Promise<Response> {
  const req = nodeRequestOf(event);
  return req.complete ? response : withLingeringClose(response, req);
}

/**
 * Headers that must come once: Host (RFC 9112 §3.2), and the route's own (Idempotency-Key, X-Agent-Session-Id), which
 * Node would otherwise join into one value ("a, b"). Read from the raw headers, where every copy is still apart.
 */
const HOST_ONLY = ['host'];
/** Per route, the lower-case names of the headers that must come once (worked out once, not per request). */
const onceByRoute = new WeakMap<Route, string[]>();
const headersOnce = (route: Route | undefined): string[] => {
  if (!route?.headers) return HOST_ONLY;
  let names = onceByRoute.get(route);
  if (!names) onceByRoute.set(route, (names = [...HOST_ONLY, ...Object.keys(route.headers).map((name) => name.toLowerCase())]));
  return names;
};

function repeatedHeader(event: H3Event, route: Route | undefined): LedgerError | undefined {
  const once = headersOnce(route);
  const raw = nodeRequestOf(event).rawHeaders;
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!once.includes(name)) continue;
    if (seen.has(name)) return invalid(`The ${raw[i]} header is given more than once.`, [{ path: raw[i]!, message: 'repeated' }]);
    seen.add(name);
  }
  return undefined;
}

async function answer(route: Route, ledger: Ledger, settings: ServerSettings, log: Logger, event: H3Event): Promise<Response> {
  try {
    const repeated = repeatedHeader(event, route);
    if (repeated) throw repeated;
    let principal = ANONYMOUS;
    let rawKey = '';
    if (route.scope) {
      const token = bearerToken(event);
      principal = await ledger.authenticate(token);
      // Before any other work, the scope check included: a refused request still counts.
      settings.rateLimiter?.take(principal.keyId);
      ledger.requireScope(principal, route.scope);
      rawKey = token ?? '';
    }
    const actor: Actor = { type: 'HUMAN', keyId: principal.keyId };
    const params = parseParams(route, getRouterParams(event, { decode: false }) as Record<string, string>);
    const query = parseQuery(route, event.url);
    const raw = await readRouteBody(route, event, settings);
    // Parsed, checked and written; in its turn when the body is large (server/turns.ts).
    const work = async () => {
      const body = parseRouteBody(route, raw);
      const reply = await route.handle({
        ledger,
        settings,
        principal,
        actor,
        rawKey,
        params,
        query,
        body,
        header: (name) => event.req.headers.get(name),
        get signal() {
          return event.req.signal;
        },
        get clientAddress() {
          return nodeRequestOf(event).socket.remoteAddress ?? '';
        },
        dropConnection: () => nodeRequestOf(event).socket.destroy(),
        onAnswered: (listener) => {
          // The response's 'close': after its last byte, or when the connection closed before it.
          const res = nodeResponseOf(event);
          if (res.destroyed || res.writableFinished) listener();
          else res.once('close', listener);
        },
      });
      return toResponse(reply, event.req.method === 'HEAD');
    };
    return await (isLarge(raw) ? settings.largeBodies.run(work) : work());
  } catch (error) {
    if (error instanceof ClientGone) {
      log(`${event.req.method} ${event.url.pathname}: ${error.message}`, 'debug');
      return respond(null, 400);
    }
    return errorResponse(error, log);
  }
}

const patternOf = (path: string) => new RegExp(`^${path.replace(/:\w+/g, '[^/]+')}/?$`);

export function createApp(ledger: Ledger, given: Omit<ServerSettings, 'largeBodies'> & Partial<Pick<ServerSettings, 'largeBodies'>>, log: Logger, inFlight = new InFlightRequests()): H3 {
  const settings: ServerSettings = { ...given, eventStreams: given.eventStreams ?? new EventStreams(ledger, log), largeBodies: given.largeBodies ?? new Turns(LARGE_BODIES_IN_FLIGHT_MAX) };
  const app = new H3({ silent: true });
  for (const route of allRoutes) {
    const handler = handlerFor(route, ledger, settings, log, inFlight);
    app.on(route.method, route.path, handler);
    // HEAD on every GET route: the same status and headers, no body.
    if (route.method === 'GET') app.on('HEAD', route.path, handler);
  }
  const patterns = allRoutes.map((route) => ({ route, pattern: patternOf(route.path) }));
  app.all('/**', (event) => {
    const allowed = patterns.filter((p) => p.pattern.test(event.url.pathname)).flatMap((p) => (p.route.method === 'GET' ? ['GET', 'HEAD'] : [p.route.method]));
    const error =
      repeatedHeader(event, undefined) ??
      (allowed.length > 0
        ? new LedgerError('METHOD_NOT_ALLOWED', `${event.req.method} is not allowed here; use ${allowed.join(' or ')}.`)
        : new LedgerError('NOT_FOUND', `No endpoint at ${event.req.method} ${event.url.pathname}.`));
    const response = errorResponse(error, log);
    if (allowed.length > 0) response.headers.set('allow', allowed.join(', '));
    return finish(event, response);
  });
  return app;
}
