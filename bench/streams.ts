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
