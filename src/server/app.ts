// The HTTP application: every route of the table behind authentication, scope checks and one error mapping.
import type { IncomingMessage } from 'node:http';
import { H3, getRouterParams, type H3Event } from 'h3';
import type { Ledger } from '../core/ledger.js';
import { invalid, LedgerError } from '../core/errors.js';
import type { Actor } from '../core/audit.js';
import type { Principal } from '../core/context.js';
import { requireScope } from '../core/usecases/tenants.js';
import { errorResponse, type Logger } from './errors.js';
import { ANY_KEY, checkFileType, isLarge, nodeRequestOf, nodeResponseOf, parseParams, parseQuery, parseRouteBody, readRouteBody, toResponse, type Route, type RouteContext, type ServerSettings } from './route.js';
import { ClientGone, withLingeringClose } from './body.js';
import { InFlightRequests } from './inFlight.js';
import { respond } from './respond.js';
import { apiKeyRoutes } from './routes/tenants.js';
import { accountRoutes } from './routes/accounts.js';
import { transactionRoutes } from './routes/transactions.js';
import { settlementRoutes } from './routes/settlements.js';
import { bankStatementRoutes } from './routes/bankStatements.js';
import { reconciliationRoutes } from './routes/reconciliation.js';
import { complianceRoutes } from './routes/audit.js';
import { webhookRoutes } from './routes/webhooks.js';
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
import { mountConsole } from './console.js';
import { VERSION } from '../version.js';

export const apiRoutes: Route[] = [
  ...accountRoutes,
  ...reportRoutes,
  ...transactionRoutes,
  ...holdRoutes,
  ...settlementRoutes,
  ...bankStatementRoutes,
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
  const answering = new Answering(route, ledger, settings, log);
  return (event: H3Event): Response | Promise<Response> => {
    const response = inFlight.track(() => answering.answer(event));
    return response instanceof Promise ? response.then((r) => finish(event, r)) : finish(event, response);
  };
}

/** Answered while the body is still arriving (refused, or never needed): the rest is read and dropped, then closed. */
function finish(event: H3Event, response: Response): Response | Promise<Response> {
  const req = nodeRequestOf(event);
  return req.complete || !declaresBody(req) ? response : withLingeringClose(response, req);
}

/**
 * A request without Content-Length or Transfer-Encoding has no body (RFC 9112 §6.3); answered in the turn its headers
 * arrived, before Node has marked it complete, it has nothing more to read.
 */
const declaresBody = (req: IncomingMessage): boolean => req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';

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
  let seen: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    // Compared without lower-casing every header: only a name of a length that one of them has can be one.
    if (!once.some((name) => name.length === raw[i]!.length)) continue;
    const name = raw[i]!.toLowerCase();
    if (!once.includes(name)) continue;
    if (seen?.has(name)) return invalid(`The ${raw[i]} header is given more than once.`, [{ path: raw[i]!, message: 'repeated' }]);
    (seen ??= new Set()).add(name);
  }
  return undefined;
}

/** A value now, or later: each step of an answer waits only when the one before it had to (see Answering). */
type Now<T> = T | Promise<T>;
const andThen = <T, R>(value: Now<T>, next: (value: T) => Now<R>): Now<R> => (value instanceof Promise ? value.then(next) : next(value));

/**
 * One route's answers: the key, the scope, the path and query, the body, the handler, the response, in that order.
 * Each step runs at once when the one before it finished at once (a route without a key, a body or a read answers in
 * the same turn as its request): an `await` on every step was a measurable share of /healthz (docs/benchmarks.md).
 */
class Answering {
  constructor(
    private readonly route: Route,
    private readonly ledger: Ledger,
    private readonly settings: ServerSettings,
    private readonly log: Logger,
  ) {}

  answer(event: H3Event): Now<Response> {
    try {
      const response = this.keyed(event);
      return response instanceof Promise ? response.catch((error: unknown) => this.failed(event, error)) : response;
    } catch (error) {
      return this.failed(event, error);
    }
  }

  private failed(event: H3Event, error: unknown): Response {
    if (error instanceof ClientGone) {
      this.log(`${event.req.method} ${event.url.pathname}: ${error.message}`, 'debug');
      return respond(null, 400);
    }
    return errorResponse(error, this.log);
  }

  private keyed(event: H3Event): Now<Response> {
    const repeated = repeatedHeader(event, this.route);
    if (repeated) throw repeated;
    const scope = this.route.scope;
    if (!scope) return this.withBody(event, ANONYMOUS, '');
    const token = bearerToken(event);
    return this.ledger.tenants.authenticate(token).then((principal) => {
      // Before any other work, the scope check included: a refused request still counts.
      this.settings.rateLimiter?.take(principal.keyId);
      if (scope !== ANY_KEY) requireScope(principal, scope);
      return this.withBody(event, principal, token ?? '');
    });
  }

  private withBody(event: H3Event, principal: Principal, rawKey: string): Now<Response> {
    const { route } = this;
    const params = parseParams(route, getRouterParams(event, { decode: false }) as Record<string, string>);
    const query = parseQuery(route, nodeRequestOf(event).url?.includes('?') ? event.url : undefined);
    if (!route.body && !route.fileBody) return this.handled(new RequestContext(event, this.ledger, this.settings, principal, rawKey, params, query, undefined));
    const contentType = event.req.headers.get('content-type');
    checkFileType(route, contentType);
    return readRouteBody(route, event, this.settings).then((raw) => {
      // Parsed, checked and written; in its turn when the body is large (server/turns.ts).
      const work = () => this.handled(new RequestContext(event, this.ledger, this.settings, principal, rawKey, params, query, parseRouteBody(route, raw, contentType)));
      return isLarge(raw) ? this.settings.largeBodies.run(async () => work()) : work();
    });
  }

  private handled(ctx: RequestContext): Now<Response> {
    const head = ctx.event.req.method === 'HEAD';
    return andThen(this.route.handle(ctx), (reply) => toResponse(reply, head));
  }
}

/** What a handler is given: plain fields, and the request's own parts read only when asked for. */
class RequestContext implements RouteContext<unknown, unknown> {
  constructor(
    readonly event: H3Event,
    readonly ledger: Ledger,
    readonly settings: ServerSettings,
    readonly principal: Principal,
    readonly rawKey: string,
    readonly params: Record<string, string>,
    readonly query: unknown,
    readonly body: unknown,
  ) {}

  get actor(): Actor {
    return { type: 'HUMAN', keyId: this.principal.keyId };
  }

  // Handlers take these out of the context (`{ header }`): each is made, bound, when it is taken.
  get header(): (name: string) => string | null {
    return (name) => this.event.req.headers.get(name);
  }

  get signal(): AbortSignal {
    return this.event.req.signal;
  }

  get clientAddress(): string {
    return nodeRequestOf(this.event).socket.remoteAddress ?? '';
  }

  get dropConnection(): () => void {
    return () => nodeRequestOf(this.event).socket.destroy();
  }

  get onAnswered(): (listener: () => void) => void {
    return (listener) => {
      // The response's 'close': after its last byte, or when the connection closed before it.
      const res = nodeResponseOf(this.event);
      if (res.destroyed || res.writableFinished) listener();
      else res.once('close', listener);
    };
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
  if (settings.console !== false) mountConsole(app, (error) => errorResponse(error, log));
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
