// A server for `bench/tls.ts`: the ledger's HTTPS posting path served one of two ways, on the same app and store.
//   node     the way `ledger serve --tls-cert --tls-key` serves it (node:https around srvx's node handler)
//   listhen  listhen's listen() with its https option (needs `npm i --no-save listhen@1`)
// Prints `url <url>` once it listens.
import { toNodeHandler } from 'srvx/node';
import { startServer } from '../src/server/serve.js';
import { urlPolicyOf } from '../src/workers/index.js';
import { openLedger } from '../src/store/open.js';
import { createApp } from '../src/server/app.js';
import { BODY_IDLE_TIMEOUT_DEFAULT_MS } from '../src/core/limits.js';

const [variant, db, certFile, keyFile, port] = process.argv.slice(2) as [string, string, string, string, string];

if (variant === 'node') {
  const running = await startServer({ db, host: '127.0.0.1', port: 0, log: () => {}, tls: { certFile, keyFile }, workers: new Set() });
  process.stdout.write(`url ${running.url}\n`);
} else {
  const { listen } = (await import('listhen' as string)) as { listen: (handler: unknown, options: object) => Promise<{ url: string }> };
  const opened = await openLedger(db, { writer: 'thread', serving: true });
  const app = createApp(opened.ledger, { urlPolicy: urlPolicyOf(), bodyIdleTimeoutMs: BODY_IDLE_TIMEOUT_DEFAULT_MS }, () => {});
  const listener = await listen(toNodeHandler(app.fetch), {
    port: Number(port),
    hostname: '127.0.0.1',
    https: { cert: certFile, key: keyFile },
    showURL: false,
    isProd: true,
  });
  process.stdout.write(`url ${listener.url.replace(/\/$/, '')}\n`);
}
