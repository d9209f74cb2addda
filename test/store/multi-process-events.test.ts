// The event feed across processes (issue 18): two `ledger serve` processes on one PostgreSQL database; a stream on one
// sees every commit made through either, in commit order, and paging on each process reads the same events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/postgres.js';
import { tenantOver, type HttpTenant } from '../helpers/tenant.js';
import { killAll, spawnServe, type Spawned } from '../helpers/spawn.js';
import { openStream } from '../helpers/sse.js';

describe('event streams across two servers on one PostgreSQL database', () => {
  let servers: Array<Spawned & { url: string }>;
  let acme: HttpTenant;
  let from: string;
  let to: string;

  beforeAll(async () => {
    const db = await freshDatabaseUrl();
    acme = await tenantOver(db);
    servers = await Promise.all([0, 1].map(() => spawnServe(db)));
    from = await acme.account(servers[0]!.url, 'from');
    to = await acme.account(servers[1]!.url, 'to');
  });
  afterAll(() => killAll());

  it('a stream on one process carries the commits of both, in the order of the feed', async () => {
    const stream = await openStream(`${servers[0]!.url}/api/v1/events/stream`, acme.rawKey);
    expect(stream.status).toBe(200);
    const posted: string[] = [];
    await Promise.all(
      [0, 1, 0, 1].map(async (server) => {
        for (let i = 0; i < 10; i++) {
          const res = await acme.transfer(servers[(server + i) % 2]!.url, from, to);
          expect(res.status).toBe(201);
          posted.push(((await res.json()) as { transactionId: string }).transactionId);
        }
      }),
    );
    const frames = await stream.waitForEvents(posted.length, 20_000);
    stream.close();
    expect(new Set(frames.map((f) => JSON.parse(f.data!).data.transactionId))).toEqual(new Set(posted));
    for (const server of servers) {
      const res = await fetch(`${server.url}/api/v1/events?limit=200`, { headers: acme.headers });
      const items = ((await res.json()) as { items: Array<{ id: string }> }).items;
      expect(items.map((e) => e.id)).toEqual(frames.map((f) => f.id));
    }
  });
});
