/**
 * A Dispatch replica process: `tsx impl/dispatch/main.ts --redis redis://127.0.0.1:6379`. Every flag
 * falls back to a DHSCHED_* variable; bad flags exit 2 with the reason on stderr. Logs go to stderr; the
 * one stdout line is the Ready object, written once the replica serves. SIGTERM or SIGINT stops it.
 */
import { randomInt } from 'node:crypto';
import { Command, CommanderError, Option } from 'commander';
import { z } from 'zod';
import { makeLogger } from '../common/log.js';
import { serveMetrics } from '../common/metrics.js';
import { RedisUrl, announceReady, connectRedis, onShutdown } from '../common/process.js';
import { readApiKeys } from '../rpc/auth.js';
import { tlsFields, tlsOptions, withTls } from '../rpc/tls.js';
import { Id, MaxQueued, Protocol } from '../store/schema.js';
import { openStore } from '../store/steps.js';
import { RankingName, rankings, seededRandom } from './ranking.js';
import { DEFAULT_MAX_QUEUED, DEFAULT_PUSH_RATE } from './core.js';
import { startDispatchServer } from './server.js';

const NAME = 'dhsched-dispatch';

const flag = (spec: string, description: string, env: string, fallback?: string) => {
  const option = new Option(spec, description).env(env);
  return fallback === undefined ? option : option.default(fallback);
};

const program = new Command(NAME)
  .description('A stateless DHSched Dispatch replica; any number of them serve the same store')
  .addOption(flag('--redis <url>', 'the store: redis://h:p or redis+cluster://h:p,h:p', 'DHSCHED_REDIS_URL'))
  .addOption(flag('--id <id>', 'this replica’s id', 'DHSCHED_DISPATCH_ID', `dispatch-${process.pid}`))
  .addOption(
    flag('--listen <host:port>', 'gRPC address; port 0: a free one', 'DHSCHED_LISTEN', '127.0.0.1:0'),
  )
  .addOption(
    flag('--cells <list>', 'comma-separated cells served from the start', 'DHSCHED_CELLS', 'default'),
  )
  .addOption(flag('--refresh-ms <ms>', 'load view refresh period T', 'DHSCHED_REFRESH_MS', '200'))
  .addOption(flag('--recovery-ms <ms>', 'recovery pass period (jittered)', 'DHSCHED_RECOVERY_MS', '500'))
  .addOption(flag('--ranking <name>', 'least-loaded | p2c', 'DHSCHED_RANKING', 'least-loaded'))
  .addOption(
    flag('--seed <n>', 'seed of p2c and the recovery jitter (default: random, logged)', 'DHSCHED_SEED'),
  )
  .addOption(
    flag(
      '--protocol <name>',
      'dhsched | assignment_time | claim_only | workerid_only (unsafe baselines, for comparisons)',
      'DHSCHED_PROTOCOL',
      'dhsched',
    ),
  )
  .addOption(
    flag(
      '--max-queued <n>',
      'inputs a session may hold not yet released before PushText refuses (0: no limit)',
      'DHSCHED_MAX_QUEUED',
      String(DEFAULT_MAX_QUEUED),
    ),
  )
  .addOption(
    flag(
      '--push-rate <n>',
      'PushText calls per second a session may make on this replica, bursts of twice that (0: no limit)',
      'DHSCHED_PUSH_RATE',
      String(DEFAULT_PUSH_RATE),
    ),
  )
  .addOption(
    flag(
      '--api-keys <file>',
      'tenants, their API key digests and cells (JSON, see impl/rpc/auth.ts); absent: no authentication',
      'DHSCHED_API_KEYS',
    ),
  )
  .addOption(
    flag('--wait-replicas <n>', 'replicas that must acknowledge each write', 'DHSCHED_WAIT_REPLICAS', '0'),
  )
  .addOption(
    flag('--metrics-port <port>', '/metrics port; 0: a free one, -1: none', 'DHSCHED_METRICS_PORT', '0'),
  )
  .addOption(
    new Option(
      '--fault <name>',
      'inject a fault (tests): crash-after-commit kills the replica after a commit',
    )
      .choices(['crash-after-commit'])
      .env('DHSCHED_FAULT'),
  )
  .allowExcessArguments(false)
  .exitOverride();
for (const option of tlsOptions()) program.addOption(option);

const Int = z
  .string()
  .regex(/^-?[0-9]+$/, 'an integer')
  .transform(Number);

const Flags = z
  .object({
    redis: z
      .string({
        error: (issue) => (issue.input === undefined ? 'required (or DHSCHED_REDIS_URL)' : undefined),
      })
      .pipe(RedisUrl),
    id: Id,
    listen: z.string().regex(/^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\]):[0-9]{1,5}$/, 'an address is host:port'),
    cells: z
      .string()
      .transform((list) => list.split(',').map((c) => c.trim()))
      .pipe(z.array(Id).min(1)),
    refreshMs: Int.pipe(z.number().positive()),
    recoveryMs: Int.pipe(z.number().positive()),
    ranking: RankingName,
    seed: Int.pipe(
      z
        .number()
        .nonnegative()
        .max(2 ** 32 - 1),
    ).optional(),
    protocol: Protocol,
    waitReplicas: Int.pipe(z.number().nonnegative()),
    maxQueued: Int.pipe(MaxQueued),
    pushRate: Int.pipe(z.number().nonnegative().max(1_000_000)),
    apiKeys: z
      .string()
      .min(1)
      .transform((file, ctx) => {
        try {
          return readApiKeys(file);
        } catch (err) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: (err as Error).message });
          return z.NEVER;
        }
      })
      .optional(),
    metricsPort: Int.pipe(z.number().min(-1).max(65535)),
    fault: z.enum(['crash-after-commit']).optional(),
    ...tlsFields,
  })
  .transform(withTls);
type Flags = z.infer<typeof Flags>;

function parseFlags(): Flags {
  try {
    program.parse();
  } catch (err) {
    // commander has printed why; help and version exit 0
    process.exit(err instanceof CommanderError && err.exitCode === 0 ? 0 : 2);
  }
  const parsed = Flags.safeParse(program.opts());
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      process.stderr.write(`${NAME}: --${name}: ${issue.message}\n`);
    }
    process.exit(2);
  }
  return parsed.data;
}

async function main(): Promise<void> {
  const flags = parseFlags();
  const log = makeLogger('dispatch', flags.id);
  if (flags.protocol !== 'dhsched') {
    log.warn(
      { protocol: flags.protocol },
      `UNSAFE PROTOCOL ${flags.protocol}: a baseline without DHSched's fencing, for comparisons only`,
    );
  }
  if (!flags.apiKeys) log.warn('no --api-keys: every client may use every cell');
  const seed = flags.seed ?? randomInt(2 ** 32);
  const random = seededRandom(seed);
  const redis = connectRedis(flags.redis);
  redis.on('error', (err: unknown) => log.warn({ err }, 'store connection'));
  try {
    const store = openStore(redis, { waitReplicas: flags.waitReplicas, protocol: flags.protocol });
    const server = await startDispatchServer({
      store,
      id: flags.id,
      listen: flags.listen,
      cells: flags.cells,
      refreshMs: flags.refreshMs,
      recoveryMs: flags.recoveryMs,
      maxQueued: flags.maxQueued,
      pushRate: flags.pushRate,
      apiKeys: flags.apiKeys,
      workerTls: flags.tls,
      ranking: rankings[flags.ranking](random),
      log,
      random,
      ...(flags.fault === 'crash-after-commit' && {
        afterCommit: () => process.kill(process.pid, 'SIGKILL'),
      }),
    });
    const host = flags.listen.slice(0, flags.listen.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1');
    const metrics = flags.metricsPort >= 0 ? await serveMetrics(host, flags.metricsPort) : undefined;
    onShutdown(async () => {
      await server.stop();
      await metrics?.close();
      await redis.quit();
    }, log);
    log.info({ addr: server.addr, cells: flags.cells, ranking: flags.ranking, seed }, 'serving');
    announceReady({ role: 'dispatch', id: flags.id, addr: server.addr, metricsPort: metrics?.port ?? 0 });
  } catch (err) {
    log.error({ err }, 'could not start');
    redis.disconnect();
    process.exit(1);
  }
}

void main();
