// TLS without a proxy: the certificate and key are read from files at start and again on SIGHUP, so a renewed
// certificate is served to new connections without a restart. A reload that fails keeps the certificate in use.
import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { invalid } from '../core/errors.js';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** Reads and checks the pair (PEM, and the key belongs to the certificate); a problem names the file. */
export function readTls(files: TlsFiles): SecureContextOptions & { summary: string } {
  const read = (file: string, flag: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw invalid(`${flag} ${file} cannot be read: ${(error as Error).message}`);
    }
  };
  const cert = read(files.certFile, '--tls-cert');
  const key = read(files.keyFile, '--tls-key');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (error) {
    throw invalid(`--tls-cert ${files.certFile} is not a PEM certificate: ${(error as Error).message}`);
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw invalid(`--tls-key ${files.keyFile} does not go with --tls-cert ${files.certFile}: ${(error as Error).message}`);
  }
  return { cert, key, summary: `certificate ${x509.subject.replace(/\n/g, ', ')} (serial ${x509.serialNumber}, valid until ${new Date(x509.validTo).toISOString()})` };
}

/** Addresses a plain-HTTP listener may use without sending API keys across a network. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}
