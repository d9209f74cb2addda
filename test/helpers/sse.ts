// A Server-Sent Events client for tests: reads a stream with fetch, parses its frames as they arrive.
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  /** A comment line (`: heartbeat`), without its colon. */
  comment?: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** Every frame received so far, in order. */
  frames: SseFrame[];
  /** The event frames (those with an id), in order. */
  events(): SseFrame[];
  /** Resolves once `count` event frames have arrived (or throws after `timeoutMs`). */
  waitForEvents(count: number, timeoutMs?: number): Promise<SseFrame[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** The body of an answer that is not a stream (an error). */
  text?: string;
  close(): void;
}

function parseFrame(block: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const field = line.slice(0, colon) as keyof SseFrame;
    const value = line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data' && frame.data !== undefined) frame.data += `\n${value}`;
    else if (field === 'id' || field === 'event' || field === 'data' || field === 'retry') frame[field] = value;
  }
  return frame;
}

export async function openStream(url: string, rawKey: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${rawKey}`, accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const frames: SseFrame[] = [];
  const waiters = new Set<() => void>();
  const stream: SseStream = {
    status: response.status,
    headers: response.headers,
    frames,
    events: () => frames.filter((f) => f.id !== undefined),
    waitForEvents: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (stream.events().length < count) return false;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(stream.events().slice(0, count));
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${stream.events().length} events of ${count} within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      }),
    ended: Promise.resolve(),
    close: () => abort.abort(),
  };
  if (!response.ok || !response.body) {
    stream.text = await response.text();
    return stream;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  stream.ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          frames.push(parseFrame(buffer.slice(0, end)));
          buffer = buffer.slice(end + 2);
          for (const check of [...waiters]) check();
        }
      }
    } catch {
      // Closed by this side (close()), or cut by the server.
    }
  })();
  return stream;
}
