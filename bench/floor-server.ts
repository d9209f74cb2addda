// The servers `npm run bench:floor` measures, in one process over one ledger on a fresh SQLite file: node:http alone,
// h3 alone, h3 with only the parts a request cannot do without (its body read from the socket as the ledger reads it, the key's HMAC and seek, the balance), and the
// ledger's own app. It prints their ports as one JSON line and runs until SIGTERM.
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { H3 } from 'h3';
import { FastResponse } from 'srvx';
import { toNodeHandler } from 'srvx/node';
import { openLedger } from '../src/store/open.js';
import { createApp } from '../src/server/app.js';
import { urlPolicyOf } from '../src/workers/index.js';
import { toJsonText } from '../src/core/json.js';
import { readBody } from '../src/server/body.js';
import { nodeRequestOf } from '../src/server/route.js';
import { makeTenant, named } from './seed.js';

const dir = mkdtempSync(join(tmpdir(), 'ledger-floor-'));
// Writes as `ledger serve` makes them: on a writer thread.
const opened = await openLedger(join(dir, 'floor.db'), { writer: 'thread' });
const { ledger } = opened;
// The balance read's account, then the accounts the posting cases post between.
const tenant = await makeTenant(ledger, 'floor', ['floor', ...named('p', 64)]);
const [accountId, ...accounts] = tenant.accounts as [string, ...string[]];

const OK = '{"status":"ok"}';
const json = (text: string) => new FastResponse(text, { headers: { 'content-type': 'application/json' } });
const keyOf = (authorization: string | null) => authorization?.slice('Bearer '.length) ?? null;

const bare = new H3();
bare.get('/ok', () => json(OK));
bare.post('/body', async (event) => {
  // Read after a turn, as the ledger reads it after the key's check: a small body has arrived by then.
  await null;
  JSON.parse((await readBody(nodeRequestOf(event), 30_000)).toString('utf8'));
  return json(OK);
});
bare.get('/auth', async (event) => {
  await ledger.tenants.authenticate(keyOf(event.req.headers.get('authorization')));
  return json(OK);
});
bare.get('/balance', async (event) => {
  const principal = await ledger.tenants.authenticate(keyOf(event.req.headers.get('authorization')));
  return json(toJsonText(await ledger.entries.balance(principal.tenantId, accountId, undefined)));
});

const app = createApp(ledger, { urlPolicy: urlPolicyOf(), bodyIdleTimeoutMs: 30_000 }, () => {});
const listen = (handler: RequestListener) =>
  new Promise<number>((resolve) => {
    const server = createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
const ports = {
  node: await listen((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(OK)),
  h3: await listen(toNodeHandler(bare.fetch) as RequestListener),
  app: await listen(toNodeHandler(app.fetch) as RequestListener),
};
console.log(JSON.stringify({ ports, rawKey: tenant.rawKey, accountId, accounts }));
process.once('SIGTERM', async () => {
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
