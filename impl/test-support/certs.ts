/**
 * Certificates for mutual-TLS tests, made with openssl (Debian's, installed by .ci/run): a CA of its own
 * and, for each name, a P-256 key and a certificate it signs for 127.0.0.1 and localhost, valid for a day
 * as a server and as a client.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Tls } from '../rpc/tls.js';

/** Each name's Tls (the CA's certificate, its own certificate and key), in a fresh directory. */
export function makeCerts<N extends string>(names: readonly N[]): Record<N, Tls> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dhsched-certs-'));
  const at = (file: string) => path.join(dir, file);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...newKey,
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.crt'),
    '-subj',
    '/CN=test-ca',
    '-days',
    '1',
  );
  fs.writeFileSync(
    at('leaf.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n',
  );
  const out = {} as Record<N, Tls>;
  for (const name of names) {
    openssl(
      'req',
      ...newKey,
      '-keyout',
      at(`${name}.key`),
      '-out',
      at(`${name}.csr`),
      '-subj',
      `/CN=${name}`,
    );
    openssl(
      'x509',
      '-req',
      '-in',
      at(`${name}.csr`),
      '-CA',
      at('ca.crt'),
      '-CAkey',
      at('ca.key'),
      '-CAcreateserial',
      '-out',
      at(`${name}.crt`),
      '-days',
      '1',
      '-extfile',
      at('leaf.ext'),
    );
    out[name] = {
      ca: fs.readFileSync(at('ca.crt')),
      cert: fs.readFileSync(at(`${name}.crt`)),
      key: fs.readFileSync(at(`${name}.key`)),
    };
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}
