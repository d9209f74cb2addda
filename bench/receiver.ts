// A local HTTPS webhook receiver for the bench: answers 200 at once and counts what it gets.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Starts the receiver on loopback with a self-signed certificate, written into `dir` for the server to trust. */
export async function startReceiver(dir: string) {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const certFile = join(dir, 'receiver.pem');
  writeFileSync(certFile, pems.cert);
  let count = 0;
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    certFile,
    received: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
