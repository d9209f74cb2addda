// A route is declared once: method, path, scope and schemas. The same declaration serves requests and the OpenAPI document.
import type * as v from 'valibot';
import type { H3Event } from 'h3';
import { JSON_TYPE, respond, respondJson } from './respond.js';
import { Readable } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Ledger } from '../core/ledger.js';
import type { Principal } from '../core/context.js';
import type { Actor } from '../core/audit.js';
import type { Scope } from '../core/scopes.js';
import { invalid, LedgerError, notFound } from '../core/errors.js';
import { readBody } from './body.js';
import type { Turns } from './turns.js';
import { LARGE_BODY_BYTES, RESPONSE_STREAM_BUFFER_BYTES } from '../core/limits.js';
import { isUuid } from '../core/ids.js';
import { parseBodyText, parseWith } from '../core/validate.js';
import { idempotencyKeySchema } from '../core/schemas.js';
import { FORBIDDEN_KEYS, toJsonText } from '../core/json.js';
import type { UrlPolicy } from '../workers/webhooks/urlPolicy.js';
import type { RateLimiter } from './rateLimit.js';
import type { ResponseName } from '../core/responses.js';
import type { EventStreams } from './eventStreams.js';

/** A route's scope when any live key may call it (its own key's description: GET /api/v1/api-keys/current). */
export const ANY_KEY = 'any key';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Reply {
  status: number;
  /** A JSON value, or text already serialized (a stored idempotent response). */
  body?: unknown;
  raw?: string;
  /** A body produced chunk by chunk as the client reads it (the audit export). */
  stream?: AsyncIterable<string | Uint8Array>;
  contentType?: string;
  /** Headers of its own beside the content type (the docs page's Content-Security-Policy). */
  headers?: Record<string, string>;
}

/** What the server was started with that routes need. */
export interface ServerSettings {
  /** The live event streams of this server (closed with it); one of their own when absent. */
  eventStreams?: EventStreams;
  /** Where webhooks may point. */
  urlPolicy: UrlPolicy;
  /** A request body that sends nothing for this long is refused with 408. */
  bodyIdleTimeoutMs: number;
  /** Per-key request rate limit, when one is set. */
  rateLimiter?: RateLimiter;
  /** Turns that requests with large bodies take on this thread (server/turns.ts). */
  largeBodies: Turns;
  /** Whether /console is served (server/console.ts); it is unless turned off (`--no-console`). */
  console?: boolean;
}

export interface RouteContext<Q, B> {
  ledger: Ledger;
  settings: ServerSettings;
  principal: Principal;
  actor: Actor;
  /** The key presented, for the one rule that looks at it (a policy rule's agentKeyPrefix); never stored. */
  rawKey: string;
  /** The address the request came from (the event stream's per-client cap). */
  readonly clientAddress: string;
  params: Record<string, string>;
  query: Q;
  body: B;
  header(name: string): string | null;
  /** Aborts when the client's connection closes (a stream stops producing). */
  readonly signal: AbortSignal;
  /** Ends the client's connection at once (a stream whose client stopped taking what it is sent). */
  dropConnection(): void;
  /** Runs `listener` once the answer is over: sent whole, or its connection gone (at once if it already is). */
  onAnswered(listener: () => void): void;
}

export interface Route<QS extends v.GenericSchema | undefined = any, BS extends v.GenericSchema | undefined = any> {
  method: Method;
  /** h3 path pattern, e.g. /api/v1/accounts/:accountId */
  path: string;
  summary: string;
  /** Omitted only for public routes (health, the OpenAPI document); ANY_KEY: any live key, whatever its scopes. */
  scope?: Scope | typeof ANY_KEY;
  /** What a path id that is not a UUID answers: 400 where the spec lists it, else 404 (it names nothing). */
  badIdStatus?: 400 | 404;
  query?: QS;
  /** Query parameters that may be given more than once: their values arrive joined with commas (`type=a&type=b`). */
  queryLists?: readonly string[];
  /** Query parameters written `name[key]=value` (a deepObject): gathered into one map under `name`, each key once. */
  queryMaps?: readonly string[];
  body?: BS;
  /**
   * A body that is a file, not JSON (a bank statement): its media types, each with the name the handler is given,
   * and its size limit. The handler's `body` is `{kind, bytes}`.
   */
  fileBody?: { types: Record<string, string>; maxBytes: number; description: string };
  /** The body may be left out (no bytes, or only whitespace): it then reads as `{}`. */
  bodyOptional?: boolean;
  headers?: Record<string, { schema: v.GenericSchema; required: boolean; description: string }>;
  /** The document's name for it, which client generators turn into a method name (createAccount, listEntries). */
  operationId: string;
  /**
   * Status codes the route can answer, for the document: a description, or for an answer with a body, its description
   * and the name of its schema (core/responses.ts), with its content type when it is not JSON.
   */
  responses: Record<number, string | ResponseSpec>;
  handle(
    ctx: RouteContext<QS extends v.GenericSchema ? v.InferOutput<QS> : undefined, BS extends v.GenericSchema ? v.InferOutput<BS> : undefined>,
  ): Reply | Promise<Reply>;
}

export interface ResponseSpec {
  description: string;
  /** The body's schema; absent for a body that is text of the content type (the docs page's HTML). */
  schema?: ResponseName;
  /** `application/json` unless said (the audit export: `application/x-ndjson`, one record of the schema per line). */
  contentType?: string;
}

export const defineRoute = <QS extends v.GenericSchema | undefined, BS extends v.GenericSchema | undefined>(route: Route<QS, BS>) => route;

const paramNamesByPath = new Map<string, readonly string[]>();

/** The names of a path pattern's parameters (`:accountId`), worked out once per pattern. */
export function routeParamNames(path: string): readonly string[] {
  let names = paramNamesByPath.get(path);
  if (!names) paramNamesByPath.set(path, (names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!)));
  return names;
}

/** Path ids are UUIDs; anything else is refused before any lookup. */
export function parseParams(route: Route, raw: Record<string, string>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of routeParamNames(route.path)) {
    const value = raw[name] ?? '';
    // Compared undecoded: a UUID has nothing to escape, so anything escaped is not one.
    if (!isUuid(value)) {
      if (route.badIdStatus === 400) throw invalid(`Invalid path: ${name} must be a UUID.`, [{ path: name, message: 'must be a UUID' }]);
      throw notFound(`${name} ${JSON.stringify(value.slice(0, 64))}`);
    }
    params[name] = value.toLowerCase();
  }
  return params;
}

/** The query of a request's URL; none (undefined) for a request whose target has no `?`, whose URL is then never parsed. */
export function parseQuery(route: Route, url: URL | undefined): unknown {
  if (!route.query) return undefined;
  const query: Record<string, string | Record<string, string>> = {};
  for (const [key, value] of url?.searchParams ?? []) {
    const mapped = /^(\w+)\[(.*)\]$/s.exec(key);
    if (mapped && route.queryMaps?.includes(mapped[1]!)) {
      const [, name, entry] = mapped as unknown as [string, string, string];
      const map = (query[name] ??= Object.create(null) as Record<string, string>);
      // Each key once; and no key a body could not have had (a body refuses them: core/json.ts).
      if (typeof map !== 'object' || Object.hasOwn(map, entry)) throw invalid(`Invalid query: ${key} is given more than once.`, [{ path: key, message: 'repeated' }]);
      if (FORBIDDEN_KEYS.has(entry)) throw invalid(`Invalid query: ${key} names a key no metadata can have.`, [{ path: key, message: 'not a possible key' }]);
      map[entry] = value;
      continue;
    }
    if (key in query) {
      if (!route.queryLists?.includes(key)) throw invalid(`Invalid query: ${key} is given more than once.`, [{ path: key, message: 'repeated' }]);
      query[key] = `${query[key]},${value}`;
    } else {
      query[key] = value;
    }
  }
  return parseWith(route.query, query, 'query');
}

/** The name a file route gives the body's media type (its parameters, a charset, set aside); undefined for another type. */
export function fileKindOf(types: Record<string, string>, contentType: string | null): string | undefined {
  const media = contentType?.split(';')[0]!.trim().toLowerCase() ?? '';
  return Object.hasOwn(types, media) ? types[media] : undefined;
}

/** A file route refuses a body of another media type before reading it (415), naming the ones it takes. */
export function checkFileType(route: Route, contentType: string | null): void {
  if (!route.fileBody || fileKindOf(route.fileBody.types, contentType) !== undefined) return;
  const accepted = Object.keys(route.fileBody.types).join(', ');
  throw new LedgerError('UNSUPPORTED_MEDIA_TYPE', `The body must be one of ${accepted}, not ${JSON.stringify((contentType ?? 'none').slice(0, 100))}.`);
}

/** JSON, with at most a UTF-8 charset: what a request body may be declared as. */
const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/**
 * The body's bytes, read from the socket within their bounds (server/body.ts), or undefined for a route that takes
 * none. A body declared as anything but JSON is refused before it is read (415); one declared as nothing is read as JSON.
 */
export async function readRouteBody(route: Route, event: H3Event, settings: ServerSettings): Promise<Buffer | undefined> {
  if (route.fileBody) return readBody(nodeRequestOf(event), settings.bodyIdleTimeoutMs, route.fileBody.maxBytes);
  if (!route.body) return undefined;
  const type = event.req.headers.get('content-type');
  if (type !== null && !JSON_CONTENT_TYPE.test(type.trim())) {
    throw new LedgerError('UNSUPPORTED_MEDIA_TYPE', `The body must be JSON (Content-Type: application/json), not ${JSON.stringify(type.slice(0, 100))}.`);
  }
  return readBody(nodeRequestOf(event), settings.bodyIdleTimeoutMs);
}

/** The body parsed within the schema's limits. */
export function parseRouteBody(route: Route, raw: Buffer | undefined, contentType: string | null = null): unknown {
  if (raw === undefined) return undefined;
  if (route.fileBody) return { kind: fileKindOf(route.fileBody.types, contentType)!, bytes: raw };
  const text = raw.toString('utf8');
  return parseBodyText(route.body, route.bodyOptional && text.trim() === '' ? '{}' : text);
}

/**
 * A large body (LARGE_BODY_BYTES or more) is parsed, checked and written in its turn (server/turns.ts), so that large
 * ones never run back to back on this thread, and only a few are parsed at once.
 */
export const isLarge = (raw: Buffer | undefined): raw is Buffer => raw !== undefined && raw.length >= LARGE_BODY_BYTES;

/** The request as Node received it: its body is read from the socket directly. */
export const nodeRequestOf = (event: H3Event): IncomingMessage => event.runtime!.node!.req as IncomingMessage;
/** The response as Node sends it: its 'close' tells when the answer is over. */
export const nodeResponseOf = (event: H3Event): ServerResponse => event.runtime!.node!.res as ServerResponse;

/** The answer to the reply; to a HEAD request, the same status and headers without the body (a stream is never started). */
export function toResponse(reply: Reply, head = false): Response {
  if (reply.status === 204) return respond(null, 204);
  if (head && reply.stream) return respond(null, reply.status, { 'content-type': reply.contentType ?? JSON_TYPE });
  if (reply.stream) {
    // A node stream is piped with backpressure: the next chunk is produced only when the socket has taken the last.
    const body = Readable.from(reply.stream, { objectMode: false, highWaterMark: RESPONSE_STREAM_BUFFER_BYTES });
    return respond(body as never, reply.status, { 'content-type': reply.contentType ?? JSON_TYPE });
  }
  // A handler that forgot an await would otherwise answer `{}`.
  if (typeof (reply.body as { then?: unknown } | null)?.then === 'function') throw new Error('A route answered a Promise as its body.');
  const text = reply.raw ?? toJsonText(reply.body);
  if (!head && reply.headers === undefined && reply.contentType === undefined) return respondJson(text, reply.status);
  const headers = { ...reply.headers, 'content-type': reply.contentType ?? JSON_TYPE };
  if (head) return respond(null, reply.status, { ...headers, 'content-length': String(Buffer.byteLength(text)) });
  return respond(text, reply.status, headers);
}

/** The request's Idempotency-Key: required (400 when missing or invalid), or with `optional`, null when not sent. */
export function idempotencyKeyOf(header: (name: string) => string | null): string;
export function idempotencyKeyOf(header: (name: string) => string | null, optional: 'optional'): string | null;
export function idempotencyKeyOf(header: (name: string) => string | null, optional?: 'optional'): string | null {
  const raw = header('idempotency-key');
  if (raw === null && optional) return null;
  return parseWith(idempotencyKeySchema, raw ?? undefined, 'Idempotency-Key header', 'Idempotency-Key');
}

/** The Idempotency-Key header as the writes that take one declare it (for the document and the once-only check). */
export const IDEMPOTENCY_KEY_HEADER = {
  schema: idempotencyKeySchema,
  required: true,
  description: 'At most 255 characters; a retry with the same key returns the original response',
} as const;
