/**
 * The web console: a page (impl/console/public/) and its JSON API over Dispatch's gRPC API and the media
 * sink, and WebRTC signalling for the avatar's media (rtc.ts).
 *   GET  /api/state                      workers (each with its process here), sessions and the
 *                                        sink's per-session media counts
 *   GET  /api/id-rule                    {pattern, message}: the store's Id rule, for the page's fields
 *   POST /api/sessions                   {session}            CreateLive
 *   POST /api/sessions/:s/text           {text}               PushText
 *   POST /api/sessions/:s/migrate        {target?}            Migrate (no target: Dispatch picks)
 *   POST /api/sessions/:s/close                               CloseLive
 *   POST /api/workers/:w/drain                                DrainWorker (refused once its lease lapsed)
 *   POST /api/workers/:w/undrain                              UndrainWorker
 *   POST /api/workers/:w/kill                                 SIGKILL (the console runs beside the
 *                                                             processes; refused once its process ended)
 *   POST /api/rtc                        {session, sdp}       the SDP answer to a viewer's offer
 * Bodies are validated with zod; a refusal is {error} with the HTTP status of its gRPC code.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { type Client, dispatchClient, mediaSinkClient } from '../rpc/client.js';
import { grpcCode } from '../rpc/errors.js';
import type { DispatchMethods } from '../rpc/proto.js';
import type { System } from '../ops/launch.js';
import { ID_RULE as STORE_ID_RULE, Id } from '../store/schema.js';
import { answerViewer, type RtcViewer } from './rtc.js';
import { issuesText } from '../common/issues.js';

/** The page's files: beside this module in the source tree, or under the repository root seen from dist/. */
function publicDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'public'), path.join(here, '../../../impl/console/public')];
  const found = candidates.find((d) => fs.existsSync(path.join(d, 'index.html')));
  if (!found) throw new Error(`the console's page is missing (looked in ${candidates.join(', ')})`);
  return found;
}

const FILES: Record<string, string> = {
  '/': 'index.html',
  '/console.js': 'console.js',
  '/console.css': 'console.css',
  '/favicon.svg': 'favicon.svg',
  // where a client that does not read the page's <link rel="icon"> looks
  '/favicon.ico': 'favicon.svg',
};
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};
const MAX_BODY_BYTES = 256 * 1024;

const HTTP_STATUS: Partial<Record<grpc.status, number>> = {
  [grpc.status.INVALID_ARGUMENT]: 400,
  [grpc.status.UNAUTHENTICATED]: 401,
  [grpc.status.PERMISSION_DENIED]: 403,
  [grpc.status.NOT_FOUND]: 404,
  [grpc.status.ALREADY_EXISTS]: 409,
  [grpc.status.FAILED_PRECONDITION]: 409,
  [grpc.status.ABORTED]: 409,
  [grpc.status.RESOURCE_EXHAUSTED]: 429,
  [grpc.status.UNAVAILABLE]: 503,
  [grpc.status.DEADLINE_EXCEEDED]: 504,
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const Create = z.object({ session: Id });
const Text = z.object({
  text: z
    .string()
    .min(1)
    .max(16 * 1024),
});
const Migrate = z.object({ target: Id.optional() });
const Offer = z.object({
  session: Id,
  sdp: z
    .string()
    .min(1)
    .max(64 * 1024),
});
const Empty = z.object({}).strict();

/** The store's Id rule (impl/store/schema.ts), served to the page so that its fields check the same. */
const ID_RULE = { pattern: STORE_ID_RULE.pattern.source, message: STORE_ID_RULE.message };

export interface ConsoleOptions {
  /** host:port (port 0: a free one). */
  listen: string;
  cell: string;
  /** Dispatch replicas; calls go to the first that answers. */
  dispatch: readonly string[];
  sink: string;
  log: Logger;
  /** The processes the console runs beside (`dhsched up`): what it shows of them, and Kill. */
  processes: Pick<System, 'worker' | 'kill'>;
}

export interface Console {
  readonly url: string;
  close(): Promise<void>;
}

export async function startConsole(o: ConsoleOptions): Promise<Console> {
  const dir = publicDir();
  const dispatchers = o.dispatch.map((addr) => dispatchClient(addr, 10_000));
  const sink = mediaSinkClient(o.sink);
  const viewers = new Set<RtcViewer>();
  let next = 0;

  /** One Dispatch call, tried on each replica in turn while they are unavailable. */
  async function call<K extends keyof DispatchMethods & string>(
    method: K,
    request: DispatchMethods[K][0],
  ): Promise<DispatchMethods[K][1]> {
    for (let tried = 0; ; tried++) {
      const d: Client<DispatchMethods> = dispatchers[next++ % dispatchers.length]!;
      try {
        return await d.call(method, request);
      } catch (err) {
        if (grpcCode(err) !== grpc.status.UNAVAILABLE || tried + 1 >= dispatchers.length) throw err;
      }
    }
  }

  const cell = o.cell;
  /** The worker's process here: running (ended null), how it ended, or null if none was started here. */
  const processOf = (worker: string) => {
    const p = o.processes.worker(worker);
    return p ? { pid: p.child.pid ?? 0, ended: p.ended ?? null } : null;
  };
  const routes: [
    method: string,
    pattern: RegExp,
    handle: (m: string[], body: unknown) => Promise<unknown>,
  ][] = [
    [
      'GET',
      /^\/api\/state$/,
      async () => {
        const [workers, sessions, media] = await Promise.all([
          call('listWorkers', { cell }),
          call('listSessions', { cell, cursor: '', limit: 1000 }),
          sink.call('stats', {}),
        ]);
        return {
          cell,
          workers: workers.workers.map((w) => ({ ...w, process: processOf(w.worker) })),
          sessions: sessions.sessions,
          media: media.sessions.filter((m) => m.cell === cell),
        };
      },
    ],
    ['GET', /^\/api\/id-rule$/, async () => ID_RULE],
    ['POST', /^\/api\/sessions$/, async (_, body) => call('createLive', { cell, ...parse(Create, body) })],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/text$/,
      async ([session], body) =>
        call('pushText', { cell, session: id(session), requestId: randomUUID(), ...parse(Text, body) }),
    ],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/migrate$/,
      async ([session], body) =>
        call('migrate', {
          cell,
          session: id(session),
          target: parse(Migrate, body).target ?? '',
          fromEpoch: 0,
        }),
    ],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/close$/,
      async ([session], body) => {
        parse(Empty, body);
        return call('closeLive', { cell, session: id(session) });
      },
    ],
    [
      'POST',
      /^\/api\/workers\/([^/]+)\/drain$/,
      async ([worker], body) => {
        parse(Empty, body);
        const w = id(worker);
        const { workers } = await call('listWorkers', { cell });
        if (workers.some((info) => info.worker === w && !info.live))
          throw new HttpError(
            409,
            `${w}'s lease lapsed: it takes no work until it registers again, which ends a drain`,
          );
        return call('drainWorker', { cell, worker: w });
      },
    ],
    [
      'POST',
      /^\/api\/workers\/([^/]+)\/undrain$/,
      async ([worker], body) => {
        parse(Empty, body);
        return call('undrainWorker', { cell, worker: id(worker) });
      },
    ],
    [
      'POST',
      /^\/api\/workers\/([^/]+)\/kill$/,
      async ([worker], body) => {
        parse(Empty, body);
        const p = o.processes.worker(id(worker));
        if (!p) throw new HttpError(404, `no worker ${worker} was started here`);
        if (p.ended !== undefined)
          throw new HttpError(409, `${worker}'s process already ended (${p.ended}): nothing to kill`);
        await o.processes.kill(p);
        return { killed: worker };
      },
    ],
    [
      'POST',
      /^\/api\/rtc$/,
      async (_, body) => {
        const offer = parse(Offer, body);
        const viewer = await answerViewer({
          offer: offer.sdp,
          sink: o.sink,
          cell,
          session: offer.session,
          log: o.log,
        });
        viewers.add(viewer);
        void viewer.closed.then(() => viewers.delete(viewer));
        return { sdp: viewer.answer };
      },
    ],
  ];

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://console');
    const file = FILES[url.pathname];
    if (req.method === 'GET' && file) {
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)]!, 'cache-control': 'no-store' });
      fs.createReadStream(path.join(dir, file)).pipe(res);
      return;
    }
    void respond(req, url.pathname).then(
      (reply) => send(res, 200, reply),
      (err: unknown) => {
        const code = grpcCode(err);
        const status =
          err instanceof HttpError ? err.status : code !== undefined ? (HTTP_STATUS[code] ?? 500) : 500;
        const message = code !== undefined ? (err as grpc.ServiceError).details : (err as Error).message;
        if (status >= 500) o.log.warn({ err: message, path: url.pathname }, 'console request failed');
        send(res, status, { error: message });
      },
    );
  });

  async function respond(req: http.IncomingMessage, pathname: string): Promise<unknown> {
    // a page of another origin cannot send this type without a preflight, which is never answered
    if (req.method === 'POST' && !/^application\/json\b/.test(req.headers['content-type'] ?? ''))
      throw new HttpError(415, 'POST bodies are application/json');
    for (const [method, pattern, handle] of routes) {
      const m = pattern.exec(pathname);
      if (m && req.method === method) return handle(m.slice(1).map(decodeURIComponent), await body(req));
    }
    throw new HttpError(404, `no ${req.method} ${pathname}`);
  }

  const [host, port] = splitHostPort(o.listen);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}/`,
    async close() {
      for (const v of viewers) await v.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      sink.close();
      for (const d of dispatchers) d.close();
    },
  };
}

function splitHostPort(listen: string): [string, number] {
  const i = listen.lastIndexOf(':');
  return [listen.slice(0, i).replace(/^\[(.*)\]$/, '$1'), Number(listen.slice(i + 1))];
}

function parse<S extends z.ZodTypeAny>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body ?? {});
  if (r.success) return r.data as z.output<S>;
  throw new HttpError(400, issuesText(r.error, 'body'));
}

function id(value: string | undefined): string {
  return parse(z.object({ id: Id }), { id: value }).id;
}

async function body(req: http.IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
}

function send(res: http.ServerResponse, status: number, reply: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(reply));
}
