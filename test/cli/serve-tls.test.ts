// `ledger serve --tls-cert --tls-key` (issue 15): HTTPS without a proxy; SIGHUP reads the files again, so a renewed
// certificate is served to new connections without a restart (a broken renewal keeps the old one); plain HTTP on an
// address other than loopback warns once that keys cross the network in clear text; bad flags exit 2.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from 'selfsigned';
import { cli, createTenant, testDb } from '../helpers/server.js';
import { killAll, spawnServe } from '../helpers/spawn.js';
import { until } from '../helpers/poll.js';

const certificate = () =>
  generate([{ name: 'commonName', value: 'ledger.test' }], {
    keyType: 'ec',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
  });

/** One HTTPS GET on a new connection, trusting `ca`: the status, the body, and the serial of the certificate served. */
function httpsGet(url: string, ca: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; serial: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers, agent: false }, (res) => {
      const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, serial }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serve with TLS', () => {
  let dir: string;
  let db: string;
  let rawKey: string;
  const certFile = () => join(dir, 'cert.pem');
  const keyFile = () => join(dir, 'key.pem');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-tls-'));
    db = await testDb(dir);
    rawKey = (await createTenant(db)).apiKey.rawKey;
  });
  afterAll(async () => {
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves HTTPS, and after SIGHUP serves a renewed certificate to new connections without a restart', async () => {
    const first = await certificate();
    writeFileSync(certFile(), first.cert);
    writeFileSync(keyFile(), first.private);
    const server = await spawnServe(db, ['--tls-cert', certFile(), '--tls-key', keyFile()]);
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.stderr()).toContain('TLS: certificate CN=ledger.test');
    expect(server.stderr()).not.toContain('clear text');

    const before = await httpsGet(`${server.url}/api/v1/accounts`, first.cert, { authorization: `Bearer ${rawKey}` });
    expect(before.status).toBe(200);
    expect(JSON.parse(before.body)).toMatchObject({ items: [] });

    // Renewed: a new key pair in the same files, read again on SIGHUP.
    const second = await certificate();
    writeFileSync(certFile(), second.cert);
    writeFileSync(keyFile(), second.private);
    server.child.kill('SIGHUP');
    await until('the certificate reloaded', () => server.stderr().includes('TLS reloaded'));
    const after = await httpsGet(`${server.url}/healthz`, second.cert);
    expect(after.status).toBe(200);
    expect(after.serial).not.toBe(before.serial);
    await expect(httpsGet(`${server.url}/healthz`, first.cert)).rejects.toThrow();

    // A broken renewal is refused; the certificate in use stays.
    writeFileSync(keyFile(), first.private);
    server.child.kill('SIGHUP');
    await until('the broken reload reported', () => server.stderr().includes('TLS reload failed, still serving the previous certificate'));
    expect((await httpsGet(`${server.url}/healthz`, second.cert)).serial).toBe(after.serial);
    expect(server.child.exitCode).toBeNull();
    server.kill();
    await server.exited;
  });

  it('warns once, at start, when plain HTTP listens on an address other than loopback', async () => {
    const wide = await spawnServe(db, ['--host', '0.0.0.0']);
    expect(wide.stderr().match(/API keys will cross the network in clear text/g)).toHaveLength(1);
    wide.kill();
    await wide.exited;
    const local = await spawnServe(db);
    expect(local.stderr()).not.toContain('clear text');
    local.kill();
    await local.exited;
  });

  it('refuses bad TLS flags with exit 2, naming the flag', async () => {
    const pair = await certificate();
    writeFileSync(certFile(), pair.cert);
    writeFileSync(keyFile(), pair.private);
    const other = await certificate();
    const otherKey = join(dir, 'other-key.pem');
    writeFileSync(otherKey, other.private);
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'not a certificate');
    for (const [args, message] of [
      [['--tls-cert', certFile()], '--tls-cert and --tls-key go together'],
      [['--tls-key', keyFile()], '--tls-cert and --tls-key go together'],
      [['--tls-cert', join(dir, 'missing.pem'), '--tls-key', keyFile()], '--tls-cert'],
      [['--tls-cert', notPem, '--tls-key', keyFile()], 'is not a PEM certificate'],
      [['--tls-cert', certFile(), '--tls-key', otherKey], 'does not go with --tls-cert'],
    ] as const) {
      const res = await cli(['--db', db, 'serve', '--port', '0', ...args]);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(message);
    }
  });
});
