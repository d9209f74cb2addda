// Every answer of the server is made here: its status line carries the reason phrase, and it carries the headers
// every answer carries (no sniffing of content types; nothing stored by caches, since answers carry balances, keys
// and secrets).
import { STATUS_CODES } from 'node:http';
import { FastResponse } from 'srvx';

const EVERY_ANSWER = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' } as const;

export type Body = ConstructorParameters<typeof FastResponse>[0];

export function respond(body: Body, status: number, headers: Record<string, string> | Headers = {}): Response {
  const all = new Headers(EVERY_ANSWER);
  new Headers(headers).forEach((value, name) => all.set(name, value));
  return new FastResponse(body, { status, statusText: STATUS_CODES[status] ?? '', headers: all }) as unknown as Response;
}
