// A real local HTTPS receiver for webhook tests: a self-signed certificate made here, every request recorded raw.
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived. */
  raw: Buffer;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  /** PEM of the receiver's certificate: trust it through the sender's `ca` or NODE_EXTRA_CA_CERTS. */
  cert: string;
  received: Received[];
  /** Decides each answer; the default answers 200. */
  respond: (request: Received, res: ServerResponse) => void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
  });
  const receiver = {
    received: [] as Received[],
    respond: (_request: Received, res: ServerResponse) => {
      res.writeHead(200).end('ok');
    },
  } as Receiver;
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { path: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks), at: Date.now() };
      receiver.received.push(request);
      receiver.respond(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  receiver.port = port;
  receiver.url = `https://127.0.0.1:${port}`;
  receiver.cert = pems.cert;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
