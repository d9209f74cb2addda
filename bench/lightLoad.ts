// Another tenant's small requests, timed one by one: a few loops of 2-line postings and one of GET /healthz, each
// with one request in flight. They run on a thread of their own, so that the bench's own work (sending 60 bodies of
// 1.2 MB, reading their answers) does not delay their clocks. /healthz touches no database: a slow /healthz means the
// server's HTTP thread was busy, a slow posting beside a quick /healthz means the write waited.
import { Worker } from 'node:worker_threads';

export interface Sample {
  /** Date.now() when the request was sent. */
  startedAt: number;
  ms: number;
  status: number;
}

export interface LightLoad {
  /** Stops the loops, waits for the requests in flight, and answers every sample. */
  stop(): Promise<{ postings: Sample[]; health: Sample[] }>;
}

/** Runs inside the worker: plain JavaScript (no TypeScript loader there), fetch only. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { randomUUID } = require('node:crypto');
const { url, rawKey, accounts, loops } = workerData;
let stopping = false;
const postings = [];
const health = [];
const body = (i) => {
  const a = accounts[i % accounts.length];
  const b = accounts[(i + 1) % accounts.length];
  const line = (accountId, entryType) => ({ accountId, entryType, monetaryEntry: { type: 'FIAT', amount: '1.00', currency: 'USD', rail: 'PIX' } });
  return JSON.stringify({ lines: [line(a, 'DEBIT'), line(b, 'CREDIT')] });
};
async function loop(into, send) {
  let i = 0;
  while (!stopping) {
    const startedAt = Date.now();
    const t0 = performance.now();
    let status = 0;
    try {
      const res = await send(i++);
      status = res.status;
      await res.arrayBuffer();
    } catch {}
    into.push({ startedAt, ms: performance.now() - t0, status });
    if (status === 0 && !stopping) await new Promise((r) => setTimeout(r, 50));
  }
}
const headers = { authorization: 'Bearer ' + rawKey, 'content-type': 'application/json' };
const running = [
  ...Array.from({ length: loops }, (_, n) =>
    loop(postings, (i) => fetch(url + '/api/v1/transactions', { method: 'POST', headers: { ...headers, 'idempotency-key': randomUUID() }, body: body(i + n), signal: AbortSignal.timeout(60000) })),
  ),
  loop(health, () => fetch(url + '/healthz', { signal: AbortSignal.timeout(60000) })),
];
parentPort.on('message', async () => {
  stopping = true;
  await Promise.all(running);
  parentPort.postMessage({ postings, health });
});
`;

/** Starts `loops` posting loops between the tenant's accounts, and one /healthz loop. */
export function startLightLoad(url: string, rawKey: string, accounts: string[], loops: number): LightLoad {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { url, rawKey, accounts, loops } });
  return {
    stop: async () => {
      const done = new Promise<{ postings: Sample[]; health: Sample[] }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      worker.postMessage('stop');
      const samples = await done;
      await worker.terminate();
      return samples;
    },
  };
}

/** The samples in flight at some moment of [from, to] (Date.now() instants). */
export const during = (samples: readonly Sample[], from: number, to: number) => samples.filter((s) => s.startedAt <= to && s.startedAt + s.ms >= from);
