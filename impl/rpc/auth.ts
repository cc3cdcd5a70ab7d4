/**
 * Client authentication for the Dispatch API: API keys, each naming a tenant and the cells it may use.
 * The keys file holds SHA-256 digests, never keys; a call carries its key as `authorization: Bearer <key>`
 * metadata. A call without a known key is UNAUTHENTICATED; one for a cell of another tenant is
 * PERMISSION_DENIED (a tenant touches only the sessions of its cells). Keys are never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { z } from 'zod';
import { Id } from '../store/schema.js';
import { RpcError } from './errors.js';
import { issuesText } from '../common/issues.js';

const Tenant = z.object({
  tenant: Id,
  /** The hex SHA-256 digest of the tenant's API key (`dhsched key`-style: sha256sum of the key). */
  keySha256: z.string().regex(/^[0-9a-f]{64}$/, 'a key digest is 64 lowercase hex digits'),
  cells: z.array(Id).min(1),
});
export const ApiKeys = z.object({ tenants: z.array(Tenant).min(1) });
export type ApiKeys = z.infer<typeof ApiKeys>;

const BEARER = /^Bearer ([\x21-\x7e]{16,512})$/;

export const digestOf = (key: string): Buffer => createHash('sha256').update(key).digest();

/** Reads and validates a keys file; the error names the file and what is wrong with it. */
export function readApiKeys(file: string): ApiKeys {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`API keys file ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = ApiKeys.safeParse(json);
  if (!parsed.success) {
    const why = issuesText(parsed.error, 'file');
    throw new Error(`API keys file ${file}: ${why}`);
  }
  return parsed.data;
}

/** Checks each call's key and the cell it names. */
export class Authenticator {
  private readonly tenants: { name: string; digest: Buffer; cells: ReadonlySet<string> }[];

  constructor(keys: ApiKeys) {
    this.tenants = keys.tenants.map((t) => ({
      name: t.tenant,
      digest: Buffer.from(t.keySha256, 'hex'),
      cells: new Set(t.cells),
    }));
  }

  /** The tenant of the call's key, if it may use `cell`; else the refusal to answer with. */
  check(metadata: grpc.Metadata, cell: string): string {
    const [header] = metadata.get('authorization');
    const key = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    const digest = key === undefined ? undefined : digestOf(key);
    const tenant = digest && this.tenants.find((t) => timingSafeEqual(t.digest, digest));
    if (!tenant) {
      throw new RpcError(
        grpc.status.UNAUTHENTICATED,
        'a valid API key is required (authorization: Bearer <key>)',
      );
    }
    if (!tenant.cells.has(cell)) {
      throw new RpcError(grpc.status.PERMISSION_DENIED, `tenant ${tenant.name} may not use cell ${cell}`);
    }
    return tenant.name;
  }
}

/** A client interceptor that sends `key` with every call. */
export function bearer(key: string): grpc.Interceptor {
  return (options, next) =>
    new grpc.InterceptingCall(next(options), {
      start(metadata, listener, start) {
        metadata.set('authorization', `Bearer ${key}`);
        start(metadata, listener);
      },
    });
}
