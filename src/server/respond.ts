// Every answer of the server is made here: the reason phrase on its status line, and the headers every answer carries
// (no content sniffing; nothing stored by caches, since answers carry balances, keys and secrets).
import { STATUS_CODES } from 'node:http';
import { FastResponse } from 'srvx';

export const EVERY_ANSWER = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' } as const;

export type Body = ConstructorParameters<typeof FastResponse>[0];

export const JSON_TYPE = 'application/json; charset=utf-8';
/** A JSON answer's headers, made once: most answers are one (srvx reads them, never changes them). */
const JSON_ANSWER = Object.freeze({ ...EVERY_ANSWER, 'content-type': JSON_TYPE });

/** A JSON answer without headers of its own. */
export const respondJson = (text: string, status: number): Response =>
  new FastResponse(text, { status, statusText: STATUS_CODES[status] ?? '', headers: JSON_ANSWER }) as unknown as Response;

/** `headers` as a plain object of lower-case names (the fast path srvx writes straight out), or a Headers to copy. */
export function respond(body: Body, status: number, headers: Record<string, string> | Headers = {}): Response {
  let all: Record<string, string> | Headers;
  if (headers instanceof Headers) {
    all = new Headers(EVERY_ANSWER);
    headers.forEach((value, name) => (all as Headers).set(name, value));
  } else {
    all = { ...EVERY_ANSWER, ...headers };
  }
  return new FastResponse(body, { status, statusText: STATUS_CODES[status] ?? '', headers: all }) as unknown as Response;
}
