// Event stream clients for the bench: n connections to GET /api/v1/events/stream, each reading and counting what it
// is sent (as a real consumer would take it), kept open while a scenario runs beside them.
import { request } from 'node:http';

const EVENT_LINE = Buffer.from('\nevent: ');

export interface StreamClients {
  /** Event frames received so far, over every client. */
  events(): number;
  close(): void;
}

export async function openStreamClients(url: string, rawKey: string, count: number): Promise<StreamClients> {
  let events = 0;
  const requests = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof request>>((resolve, reject) => {
          const req = request(`${url}/api/v1/events/stream`, { headers: { authorization: `Bearer ${rawKey}`, accept: 'text/event-stream' } }, (res) => {
            if (res.statusCode !== 200) return reject(new Error(`event stream answered ${res.statusCode}`));
            // Counted in the bytes as they come (a frame's `event:` line never splits across the marker's first byte
            // and the rest in a way that matters for a count over millions).
            res.on('data', (chunk: Buffer) => {
              for (let i = chunk.indexOf(EVENT_LINE); i !== -1; i = chunk.indexOf(EVENT_LINE, i + 1)) events++;
            });
            res.on('error', () => {});
            resolve(req);
          });
          req.on('error', reject);
          req.end();
        }),
    ),
  );
  return {
    events: () => events,
    close: () => {
      for (const req of requests) req.destroy();
    },
  };
}

/**
 * At rest: the time from a posting's answer to its event reaching a connected stream client, over `count` postings
 * made one at a time (the server commits before it answers, so this is the stream's own delay, plus the answer's).
 */
export async function streamDelayAtRest(url: string, rawKey: string, postOne: () => Promise<void>, count = 20): Promise<{ p50: number; max: number }> {
  let arrived: (() => void) | undefined;
  // The streams of a scenario just ended may still hold the tenant's slots for a moment (429): asked again until one is free.
  let req: ReturnType<typeof request> | undefined;
  for (let tries = 0; !req; tries++) {
    req = await new Promise<ReturnType<typeof request> | undefined>((resolve, reject) => {
      const asked = request(`${url}/api/v1/events/stream`, { headers: { authorization: `Bearer ${rawKey}` } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          if (tries >= 50) reject(new Error(`event stream answered ${res.statusCode}`));
          else setTimeout(() => resolve(undefined), 100);
          return;
        }
        res.on('data', (chunk: Buffer) => {
          if (chunk.includes(EVENT_LINE)) arrived?.();
        });
        res.on('error', () => {});
        resolve(asked);
      });
      asked.on('error', reject);
      asked.end();
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  const delays: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const seen = new Promise<void>((resolve) => (arrived = resolve));
      await postOne();
      const answeredAt = performance.now();
      await seen;
      delays.push(performance.now() - answeredAt);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    req.destroy();
  }
  delays.sort((a, b) => a - b);
  return { p50: delays[Math.floor(delays.length / 2)]!, max: delays.at(-1)! };
}
