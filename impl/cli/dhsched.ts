/**
 * `dhsched`: the operator's and the client's command line. `dhsched up` starts a whole system; every
 * other command is one Dispatch API call (or a media-sink watch) against a running system, found by
 * --dispatch, $DHSCHED_DISPATCH, or the state file `up` writes (.dhsched/system.json).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { type Command, CommanderError, Option } from 'commander';
import { z } from 'zod';
import { SpokenText } from '../dispatch/server.js';
import { type Client, PushStream, dispatchClient, retrying } from '../rpc/client.js';
import { grpcCode } from '../rpc/errors.js';
import { type DispatchMethods, type Frame, services } from '../rpc/proto.js';
import {
  Exit,
  UsageError,
  argument,
  checked,
  exitStatus,
  integer,
  option,
  parser,
  program as cliProgram,
} from './flags.js';

const stateFile = path.join('.dhsched', 'system.json');
const SystemState = z.object({ dispatch: z.array(z.string()).min(1), sink: z.string(), redis: z.string() });

const int = (min = 0, max?: number) => parser(integer(min, max));
const text = {
  words: 'something to say (not empty nor only white space, at most 16 KiB)',
  schema: SpokenText,
};

function readState(): z.infer<typeof SystemState> | undefined {
  if (!fs.existsSync(stateFile)) return undefined;
  const parsed = SystemState.safeParse(JSON.parse(fs.readFileSync(stateFile, 'utf8')));
  if (!parsed.success)
    throw new Error(`${stateFile} is not a system description; remove it or pass --dispatch`);
  return parsed.data;
}

interface Globals {
  dispatch?: string;
  sink?: string;
  cell: string;
  deadlineMs: number;
  apiKey?: string;
  json: boolean;
}

function print(globals: Globals, value: unknown): void {
  if (globals.json) process.stdout.write(`${JSON.stringify(value)}\n`);
  else process.stdout.write(`${formatHuman(value, Date.now())}\n`);
}

/** `key=value` pairs; a time as an ISO 8601 date and how far off it is, or as a duration. */
function formatHuman(value: unknown, now: number): string {
  if (Array.isArray(value)) return value.map((v) => formatHuman(v, now)).join('\n');
  if (value && typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) => humanField(k, v, now))
      .join(' ');
  }
  return String(value);
}

const seconds = (ms: number, digits: number) => `${Number((ms / 1000).toFixed(digits))} s`;

function humanField(key: string, v: unknown, now: number): string {
  if (key === 'leaseExpiresAtMs' && typeof v === 'number') {
    if (v === 0) return 'leaseExpires=lapsed';
    const off = v >= now ? `in ${seconds(v - now, 1)}` : `${seconds(now - v, 1)} ago`;
    return `leaseExpires=${new Date(v).toISOString()} (${off})`;
  }
  if (key === 'ptsMs' && typeof v === 'number') return `pts=${seconds(v, 2)}`;
  return `${key}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`;
}

const OUTPUT = `
Output: one line per reply; with --json, the reply's message of proto/dhsched.proto as JSON with
camelCase fields: Session (create, close, migrate, get, sessions: an array), PushTextReply (push),
DrainWorkerReply (drain), UndrainWorkerReply (undrain), WorkerInfo (workers: an array; leaseExpiresAtMs is milliseconds since the
Unix epoch, 0 once the lease lapsed), Frame (watch: ptsMs is milliseconds into the session, bytes the
payload's size). Without --json, key=value pairs, a lease's expiry as an ISO 8601 date with how far off
it is, and pts in seconds.

Exit status: 0 done, 1 refused or failed (the call's gRPC status is printed), 2 bad usage (an unknown
option, a bad value, or a request Dispatch refused as INVALID_ARGUMENT).`;

export function program(): Command {
  const cli = cliProgram('dhsched', 'DHSched: place, feed, move and watch long-lived avatar sessions')
    .option(
      '--dispatch <host:port>',
      'a Dispatch replica (default: $DHSCHED_DISPATCH or .dhsched/system.json)',
    )
    .option(
      '--sink <host:port>',
      'the media sink, for watch (default: $DHSCHED_SINK or .dhsched/system.json)',
    )
    .option('--cell <id>', 'the cell', process.env['DHSCHED_CELL'] ?? 'default')
    .option('--deadline-ms <ms>', 'per-call deadline', int(1), 10_000)
    .option('--api-key <key>', 'the tenant’s API key (default: $DHSCHED_API_KEY)')
    .option('--json', 'print JSON lines (see Output below)', false)
    .helpCommand('help [command]', 'print the help of a command')
    .addHelpText('after', OUTPUT);

  const globals = () => cli.opts<Globals>();
  const dispatch = (): Client<DispatchMethods> => {
    const addr = globals().dispatch ?? process.env['DHSCHED_DISPATCH'] ?? readState()?.dispatch[0];
    if (!addr)
      throw new UsageError('no Dispatch address: pass --dispatch, set DHSCHED_DISPATCH, or run `dhsched up`');
    return dispatchClient(addr, globals().deadlineMs, globals().apiKey ?? process.env['DHSCHED_API_KEY']);
  };
  /** One call: its reply printed, then exit 1 if `refused` says why the reply is not what was asked. */
  const run =
    <A extends unknown[], R>(
      f: (c: Client<DispatchMethods>, ...args: A) => Promise<R>,
      refused?: (reply: R, ...args: A) => string | undefined,
    ) =>
    async (...args: A) => {
      const c = dispatch();
      try {
        const reply = await f(c, ...args);
        print(globals(), reply);
        const why = refused?.(reply, ...args);
        if (why) throw new Error(why);
      } finally {
        c.close();
      }
    };
  const session = ['<session>', 'the session id'] as const;

  cli
    .command('create')
    .description('CreateLive: place a new session')
    .argument(...session)
    .action(run((c, session: string) => c.call('createLive', { cell: globals().cell, session })));
  cli
    .command('push')
    .description('PushText: append text to the session (idempotent on --request-id)')
    .argument(...session)
    .addArgument(argument('<text>', 'what the avatar says', text))
    .option('--request-id <id>', 'the idempotency key (default: a fresh UUID)')
    .option(
      '--stream',
      'send it on a PushTextStream (the streaming ingress) instead of the unary call',
      false,
    )
    .action(
      run(async (c, session: string, text: string, o: { requestId?: string; stream: boolean }) => {
        const request = { cell: globals().cell, session, text, requestId: o.requestId ?? randomUUID() };
        const stream = o.stream ? new PushStream(c) : undefined;
        try {
          // idempotent on the request id: a refusal for overload, or Dispatch away, is retried until the deadline
          return await retrying(() => (stream ? stream.push(request) : c.call('pushText', request)), {
            deadline: Date.now() + globals().deadlineMs,
          });
        } finally {
          stream?.close();
        }
      }),
    );
  cli
    .command('close')
    .description('CloseLive: close the session')
    .argument(...session)
    .action(run((c, session: string) => c.call('closeLive', { cell: globals().cell, session })));
  cli
    .command('migrate')
    .description(
      'Migrate: move the session, guarded by its source epoch; exit 1 if it had already left --from-epoch',
    )
    .argument(...session)
    .addOption(new Option('--to <worker>', 'the target').default('', 'the best-ranked other worker'))
    .addOption(option('--from-epoch <epoch>', 'the epoch you saw', integer()).default(0, 'the current one'))
    .action(
      run(
        (c, session: string, o: { to: string; fromEpoch: number }) =>
          c.call('migrate', { cell: globals().cell, session, target: o.to, fromEpoch: o.fromEpoch }),
        (s, session, o) =>
          s.moved
            ? undefined
            : `session ${session} did not move: it is at epoch ${s.epoch} on ${s.worker}, past --from-epoch ${o.fromEpoch}`,
      ),
    );
  cli
    .command('drain')
    .description('DrainWorker: no new placements on the worker; move its sessions away')
    .argument('<worker>', 'the worker id')
    .action(run((c, worker: string) => c.call('drainWorker', { cell: globals().cell, worker })));
  cli
    .command('undrain')
    .description('UndrainWorker: the worker takes new placements again (a drain undone)')
    .argument('<worker>', 'the worker id')
    .action(
      run(async (c, worker: string) => {
        const reply = await c.call('undrainWorker', { cell: globals().cell, worker });
        if (!reply.undrained) process.stderr.write(`dhsched: ${worker} was not draining: nothing changed\n`);
        return reply;
      }),
    );
  cli
    .command('get')
    .description('GetSession: the session’s owner, epoch, phase and released seq')
    .argument(...session)
    .action(run((c, session: string) => c.call('getSession', { cell: globals().cell, session })));
  cli
    .command('sessions')
    .description('ListSessions: every live session of the cell')
    .option('--limit <n>', 'page size', int(1, 1000), 100)
    .action(
      run(async (c, o: { limit: number }) => {
        const all = [];
        let cursor = '0';
        do {
          const page = await c.call('listSessions', { cell: globals().cell, cursor, limit: o.limit });
          all.push(...page.sessions);
          cursor = page.nextCursor;
        } while (cursor !== '0');
        return all;
      }),
    );
  cli
    .command('workers')
    .description('ListWorkers: every worker of the cell, its lease, capacity and load')
    .action(run(async (c) => (await c.call('listWorkers', { cell: globals().cell })).workers));
  cli
    .command('watch')
    .description('print the media frames the sink accepts (all sessions when none is named) until Ctrl-C')
    .argument('[session]', 'the session id (default: every session)')
    .action((session: string | undefined) => watch(globals(), session ?? ''));
  cli
    .command('up')
    .description('start Redis (private unless --redis), a media sink, N Dispatch replicas and M Workers')
    .option('--redis <url>', 'an existing Redis (redis://host:port); default: a private redis-server')
    .addOption(new Option('--dispatchers <n>', 'Dispatch replicas').argParser(int(1)).default(2))
    .addOption(new Option('--workers <n>', 'Worker processes').argParser(int(1)).default(3))
    .addOption(new Option('--capacity <n>', 'runtimes per worker').argParser(int(1)).default(4))
    .addOption(
      new Option('--lease-ttl-ms <ms>', 'how long a worker’s lease lasts unless renewed')
        .argParser(int(100))
        .default(3000),
    )
    .addOption(
      new Option('--ranking <name>', 'how Dispatch picks a worker (p2c: the better of two drawn at random)')
        .choices(['least-loaded', 'p2c'])
        .default('least-loaded'),
    )
    .addOption(
      new Option('--protocol <name>', 'an unsafe baseline, for comparisons only')
        .choices(['dhsched', 'assignment_time', 'claim_only', 'workerid_only'])
        .default('dhsched'),
    )
    .addOption(
      new Option('--runtime <name>', 'the workers’ runtime backend')
        .choices(['avatar', 'cpu-reference', 'null'])
        .default('avatar'),
    )
    .option('--console <host:port>', 'where the web console serves (port 0: a free one)', '127.0.0.1:8377')
    .option('--log-dir <dir>', 'where each process logs (default: a temp dir)')
    .action(async (o: Record<string, unknown>) => up(globals(), o));
  return cli;
}

async function up(globals: Globals, o: Record<string, unknown>): Promise<void> {
  // loaded here: the other commands start faster without the launcher and the console (WebRTC)
  const [{ SystemOptions, launchSystem }, { startConsole }, { default: pino }] = await Promise.all([
    import('../ops/launch.js'),
    import('../console/server.js'),
    import('pino'),
  ]);
  const options = checked(SystemOptions, {
    redisUrl: o['redis'],
    dispatchers: o['dispatchers'],
    workers: o['workers'],
    capacity: o['capacity'],
    cell: globals.cell,
    leaseTtlMs: o['leaseTtlMs'],
    ranking: o['ranking'],
    protocol: o['protocol'],
    extraArgs: { worker: ['--runtime', String(o['runtime'])] },
    restartWorkersAfterMs: 1000,
    ...(o['logDir'] ? { logDir: o['logDir'] } : {}),
  });
  const say = (line: string) => process.stderr.write(`dhsched up: ${line}\n`);
  const keepLogs = (why: string) => say(`the processes' logs are kept in ${options.logDir} (${why})`);
  /** Why the logs are kept: a process that ended during the run, not by the console's Kill. */
  let crash: string | undefined;
  const system = await launchSystem(options, {
    exited(p, { code, killed }) {
      if (!killed) crash ??= `${p.id} exited (${code}) during the run`;
      const again = p.role === 'worker' ? `; starting it again in ${options.restartWorkersAfterMs} ms` : '';
      say(`${p.id} ${killed ? 'was killed from the console' : `exited (${code})`}${again}`);
    },
    restarted: (w) => say(`${w.id} started again: pid ${w.child.pid}, ${w.addr}`),
    restartFailed: (id, err) =>
      say(`${id} did not start again: ${String(err).split('\n')[0]} (its log has more); trying again`),
  }).catch((err: unknown) => {
    keepLogs('the start failed');
    throw err;
  });
  const web = await startConsole({
    listen: String(o['console']),
    cell: globals.cell,
    dispatch: system.dispatchers.map((d) => d.addr),
    sink: system.sink.addr,
    log: pino({ level: 'warn' }, pino.destination(2)),
    processes: system,
  }).catch(async (err: unknown) => {
    await system.stop();
    keepLogs('the start failed');
    throw err;
  });
  const state = {
    dispatch: system.dispatchers.map((d) => d.addr),
    sink: system.sink.addr,
    redis: system.redisUrl,
    console: web.url,
  };
  fs.mkdirSync(path.dirname(stateFile), { recursive: true });
  fs.writeFileSync(stateFile, JSON.stringify(state, null, 2));
  print(globals, { ...state, workers: system.workers.map((w) => `${w.id}@${w.addr}`), logs: system.logDir });
  process.stderr.write('dhsched up: running; Ctrl-C stops every process\n');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  // stopping first: a Ctrl-C reaches the processes too, and their exits then are no crash to restart
  const stopped = system.stop();
  await web.close();
  await stopped;
  fs.rmSync(stateFile, { force: true });
  if (crash) keepLogs(crash);
  else if (!o['logDir']) fs.rmSync(options.logDir, { recursive: true, force: true });
}

async function watch(globals: Globals, session: string): Promise<void> {
  const addr = globals.sink ?? process.env['DHSCHED_SINK'] ?? readState()?.sink;
  if (!addr)
    throw new UsageError('no media sink address: pass --sink, set DHSCHED_SINK, or run `dhsched up`');
  const client = new (services().MediaSink)(addr, grpc.credentials.createInsecure());
  const stream = client['watch']({ cell: globals.cell, session }) as grpc.ClientReadableStream<Frame>;
  process.once('SIGINT', () => stream.cancel());
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (f: Frame) => {
      const { payload, ...stamp } = f;
      print(globals, { ...stamp, bytes: payload.length });
    });
    stream.on('end', resolve);
    stream.on('error', (err: grpc.ServiceError) =>
      err.code === grpc.status.CANCELLED ? resolve() : reject(err),
    );
  });
  client.close();
}

/** Runs the CLI; resolves to the exit status (flags.ts: 0 done, 1 refused or failed, 2 bad usage). */
export async function main(argv: string[]): Promise<number> {
  try {
    await program().parseAsync(argv, { from: 'user' });
    return Exit.done;
  } catch (err) {
    // commander has printed the usage error (or the help, or the version)
    if (err instanceof CommanderError) return exitStatus(err);
    const code = grpcCode(err);
    const why =
      code === undefined
        ? String(err instanceof Error ? err.message : err)
        : `${grpc.status[code]}: ${(err as grpc.ServiceError).details}`;
    process.stderr.write(`dhsched: ${why}\n`);
    return code === grpc.status.INVALID_ARGUMENT ? Exit.usage : exitStatus(err);
  }
}
