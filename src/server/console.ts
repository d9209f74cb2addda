// GET /console: the console's page (src/console), its script and stylesheet built into dist/console and served from
// memory, gzipped once; it loads nothing from another origin, and its Content-Security-Policy says so.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { H3, H3Event } from 'h3';
import { LedgerError } from '../core/errors.js';
import { respond } from './respond.js';

const CONSOLE_PATH = '/console';

/** No inline script or style, nothing from another origin, no framing, no form posted anywhere. */
const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>ledger console</title>
<link rel="stylesheet" href="${CONSOLE_PATH}/app.css">
<script type="module" src="${CONSOLE_PATH}/app.js"></script>
</head>
<body><div id="app"><main><p>Loading the console…</p></main></div><noscript>The console needs JavaScript.</noscript></body>
</html>
`;

interface Asset {
  type: string;
  body: Buffer;
  gzipped: Buffer;
  etag: string;
}

const asset = (type: string, body: Buffer): Asset => ({
  type,
  body,
  gzipped: gzipSync(body, { level: 9 }),
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
});

/** Where the build put the console: beside the bundle that runs (dist/), or dist/ of the checkout (the sources run). */
function builtFolder(): URL | undefined {
  const candidates = [new URL('./console/', import.meta.url), new URL('../../dist/console/', import.meta.url)];
  return candidates.find((folder) => existsSync(new URL('app.js', folder)));
}

/** The console's files by path, read once; undefined when it was never built (the sources run without `npm run build`). */
function loadAssets(): Map<string, Asset> | undefined {
  const folder = builtFolder();
  if (!folder) return undefined;
  return new Map([
    [CONSOLE_PATH, asset('text/html; charset=utf-8', Buffer.from(SHELL))],
    [`${CONSOLE_PATH}/app.js`, asset('text/javascript; charset=utf-8', readFileSync(new URL('app.js', folder)))],
    [`${CONSOLE_PATH}/app.css`, asset('text/css; charset=utf-8', readFileSync(new URL('app.css', folder)))],
  ]);
}

let assets: Map<string, Asset> | undefined | null = null;

function answer(event: H3Event, path: string): Response {
  assets ??= loadAssets() ?? null;
  if (assets === null) throw new LedgerError('NOT_FOUND', 'The console was not built: run `npm run build`, then start the server again.');
  const file = assets.get(path)!;
  const headers: Record<string, string> = {
    'content-type': file.type,
    // Checked again on every load, so that a new version is seen at once; unchanged, it is a 304 without a body.
    'cache-control': 'no-cache',
    etag: file.etag,
    vary: 'accept-encoding',
    'content-security-policy': CONSOLE_CSP,
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  };
  if (event.req.headers.get('if-none-match') === file.etag) return respond(null, 304, headers);
  const gzip = /\bgzip\b/.test(event.req.headers.get('accept-encoding') ?? '');
  if (gzip) headers['content-encoding'] = 'gzip';
  const body = gzip ? file.gzipped : file.body;
  headers['content-length'] = String(body.length);
  return respond(event.req.method === 'HEAD' ? null : body, 200, headers);
}

/** Serves the console on GET and HEAD: the page at /console (and /console/), its script and its stylesheet. */
export function mountConsole(app: H3, errorResponse: (error: unknown) => Response): void {
  for (const route of [CONSOLE_PATH, `${CONSOLE_PATH}/`, `${CONSOLE_PATH}/app.js`, `${CONSOLE_PATH}/app.css`]) {
    const file = route.replace(/\/$/, '');
    const handler = (event: H3Event) => {
      try {
        return answer(event, file);
      } catch (error) {
        return errorResponse(error);
      }
    };
    app.on('GET', route, handler);
    app.on('HEAD', route, handler);
  }
}
