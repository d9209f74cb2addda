// The console's one way to the server: the public /api/v1 with the signed-in key, answers read without losing a digit
// (core/json.ts); a 401 on any request signs the user out, with the server's message.
import { JsonNumber, parseJsonObject } from '../core/json.js';
import { allows, type Scope } from '../core/scopes.js';
import type { ApiKey } from './answers.js';

/** An error answer: its status, and the body's `code`, `message` and `details` as the API gives them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ReadonlyArray<{ path: string; message: string }> = [],
  ) {
    super(message);
  }
}

/** The key signed in with, as GET /api/v1/api-keys/current describes it. */
export type KeyInfo = ApiKey;

export type Query = Record<string, string | undefined>;

/** A path with its query; empty values are left out. */
export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.append(name, value);
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** 122 random bits as a version 4 UUID (crypto.randomUUID exists only in a secure context: HTTPS or localhost). */
function randomUuid(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A new Idempotency-Key: made once for an action and sent again with every retry of it. */
export const newIdempotencyKey = (): string => `console-${randomUuid()}`;

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const body = parseJsonObject(text);
    const details = Array.isArray(body.details) ? (body.details as Array<{ path: string; message: string }>) : [];
    return new ApiError(response.status, String(body.code ?? 'ERROR'), String(body.message ?? response.statusText), details);
  } catch {
    return new ApiError(response.status, 'ERROR', `The server answered ${response.status} ${response.statusText}.`);
  }
}

export class Api {
  constructor(
    private readonly key: string,
    /** Called on a 401: the key is unknown or was revoked. */
    private readonly onUnauthenticated: (error: ApiError) => void,
  ) {}

  /** The answer, unread: its status checked (a 401 signs out), for a body read as a stream. */
  async fetch(path: string, init: { method?: string; body?: unknown; file?: { body: Blob; type: string }; idempotencyKey?: string; signal?: AbortSignal } = {}): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}` };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    // A file sent as it is (a bank statement), under its own media type.
    if (init.file !== undefined) headers['content-type'] = init.file.type;
    if (init.idempotencyKey !== undefined) headers['idempotency-key'] = init.idempotencyKey;
    let response: Response;
    try {
      response = await fetch(path, { method: init.method ?? 'GET', headers, body: init.file?.body ?? (init.body === undefined ? undefined : JSON.stringify(init.body)), signal: init.signal, cache: 'no-store' });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ApiError(0, 'NETWORK_ERROR', 'The server could not be reached. Check that it is running, then try again.');
    }
    if (response.ok) return response;
    const error = await errorOf(response);
    if (response.status === 401) this.onUnauthenticated(error);
    throw error;
  }

  /** A JSON object answer, every number kept as its text (JsonNumber). */
  async json<T>(path: string, init: Parameters<Api['fetch']>[1] = {}): Promise<T> {
    const response = await this.fetch(path, init);
    if (response.status === 204) return undefined as T;
    return parseJsonObject(await response.text()) as T;
  }
}

/** Checks a key and says what it may do: 401 (ApiError) when it is not a live key. */
export const signIn = (key: string): Promise<KeyInfo> => new Api(key, () => {}).json<KeyInfo>('/api/v1/api-keys/current');

/**
 * An answer's body as lines of text as they arrive (CRLF read as LF), the last one even without its newline; the
 * NDJSON export and the event stream are read this way. Returning early stops the download.
 */
export async function* textLines(response: Response): AsyncGenerator<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      const lines = buffer.split(/\r?\n/);
      buffer = lines.pop()!;
      yield* lines;
    }
    if (buffer !== '') yield buffer;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

export const can = (key: KeyInfo, scope: Scope): boolean => allows(key.scopes, scope);

/** An amount's exact text (a JSON number kept as written, or a decimal string). */
export const amountText = (value: unknown): string => (value instanceof JsonNumber ? value.text : String(value ?? ''));
