// One delivery attempt over HTTPS: to an address checked at connect time, no redirects, a bounded answer, a time-out.
import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import { addressesToConnect, type UrlPolicy } from './urlPolicy.js';
import { WEBHOOK_DELIVERY_TIMEOUT_MS, WEBHOOK_RESPONSE_READ_BYTES_MAX } from '../../core/limits.js';

export interface DeliveryOptions {
  policy: UrlPolicy;
  timeoutMs?: number;
  /** Trusted certificates besides the system's (tests and development; production uses NODE_EXTRA_CA_CERTS or none). */
  ca?: string;
}

/**
 * Connections are kept between deliveries. A pooled connection is keyed by the checked address it was opened to (and
 * the name its certificate was checked against), and every attempt checks the name's addresses again first.
 */
const keptAlive = new Agent({ keepAlive: true, maxFreeSockets: 256 });

export type AttemptOutcome = { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

export async function postOnce(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: DeliveryOptions,
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  let addresses: string[];
  try {
    addresses = await addressesToConnect(url, options.policy);
  } catch (error) {
    return { ok: false, statusCode: null, error: error instanceof Error ? error.message : String(error) };
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const timeoutMs = options.timeoutMs ?? WEBHOOK_DELIVERY_TIMEOUT_MS;
  return new Promise<AttemptOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = () => {
      req.destroy();
      finish({ ok: false, statusCode: null, error: 'the sender stopped' });
    };
    const req = request(
      {
        // The checked address itself: the name is not resolved a second time.
        host: addresses[0],
        port: url.port || 443,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        // The certificate is checked against the name in the URL.
        servername: isIP(host) ? undefined : host,
        headers: { ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) },
        ca: options.ca,
        agent: keptAlive,
      },
      (res) => {
        const statusCode = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > WEBHOOK_RESPONSE_READ_BYTES_MAX) res.destroy();
        });
        const done = () =>
          finish(statusCode >= 200 && statusCode < 300 ? { ok: true, statusCode } : { ok: false, statusCode, error: `answered ${statusCode}` });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    // One clock for the whole attempt: connecting, sending and the answer.
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, statusCode: null, error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('error', (error) => finish({ ok: false, statusCode: null, error: error.message }));
    signal?.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}
