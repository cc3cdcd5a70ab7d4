/**
 * Mutual TLS between Dispatch and Workers: each side holds a certificate signed by the deployment's CA.
 * A Worker's gRPC server accepts only clients that present such a certificate; Dispatch checks the
 * Worker's certificate against the address it dials. Without the three files both sides speak plaintext.
 */
import fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { Option } from 'commander';
import { z } from 'zod';

export interface Tls {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** The flags (and $DHSCHED_TLS_* variables) naming the PEM files. */
export const tlsOptions = (): Option[] => [
  new Option('--tls-ca <file>', 'mutual TLS: the CA certificate the peer must be signed by').env(
    'DHSCHED_TLS_CA',
  ),
  new Option('--tls-cert <file>', 'mutual TLS: this process’s certificate').env('DHSCHED_TLS_CERT'),
  new Option('--tls-key <file>', 'mutual TLS: this process’s private key').env('DHSCHED_TLS_KEY'),
];

const pem = (file: string, ctx: z.RefinementCtx): Buffer => {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: (err as Error).message });
    return z.NEVER;
  }
};

/** The three flags, as a CLI's flags schema holds them. */
export const tlsFields = {
  tlsCa: z.string().optional(),
  tlsCert: z.string().optional(),
  tlsKey: z.string().optional(),
};

/** The flags' shape: the three files read, all or none (none: plaintext). */
const TlsFlags = z
  .object(tlsFields)
  .superRefine((f, ctx) => {
    const given = [f.tlsCa, f.tlsCert, f.tlsKey].filter((x) => x !== undefined).length;
    if (given % 3 !== 0)
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['tlsCa'],
        message: '--tls-ca, --tls-cert and --tls-key go together',
      });
  })
  .transform((f, ctx): Tls | undefined =>
    f.tlsCa === undefined || f.tlsCert === undefined || f.tlsKey === undefined
      ? undefined
      : { ca: pem(f.tlsCa, ctx), cert: pem(f.tlsCert, ctx), key: pem(f.tlsKey, ctx) },
  );

/** A server's credentials: with `tls`, clients must present a certificate signed by its CA. */
export const serverCredentials = (tls?: Tls): grpc.ServerCredentials =>
  tls
    ? grpc.ServerCredentials.createSsl(tls.ca, [{ cert_chain: tls.cert, private_key: tls.key }], true)
    : grpc.ServerCredentials.createInsecure();

/** A client's credentials: with `tls`, it presents its certificate and checks the server's. */
export const channelCredentials = (tls?: Tls): grpc.ChannelCredentials =>
  tls ? grpc.credentials.createSsl(tls.ca, tls.key, tls.cert) : grpc.credentials.createInsecure();

/** For a flags schema's transform: the flags with `tls` added, the three files read (or an issue each). */
export function withTls<F extends { tlsCa?: string; tlsCert?: string; tlsKey?: string }>(
  flags: F,
  ctx: z.RefinementCtx,
): F & { tls: Tls | undefined } {
  const parsed = TlsFlags.safeParse(flags);
  if (parsed.success) return { ...flags, tls: parsed.data };
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: z.ZodIssueCode.custom });
  return z.NEVER;
}
