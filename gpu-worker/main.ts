/**
 * The worker process: an Infer-Controller (controller.ts) behind the Worker gRPC service (server.ts). It
 * binds its gRPC port first, so that it registers with the address Dispatch will call, then announces the
 * Ready line (its only stdout line; logs go to stderr). SIGTERM or SIGINT stops it gracefully.
 */
import * as grpc from '@grpc/grpc-js';
import { Command } from 'commander';
import { match } from 'ts-pattern';
import { z } from 'zod';
import { makeLogger } from '../impl/common/log.js';
import { RedisUrl, announceReady, connectRedis, onShutdown } from '../impl/common/process.js';
import { services } from '../impl/rpc/proto.js';
import { listen, shutdown } from '../impl/rpc/server.js';
import { serverCredentials, tlsFields, tlsOptions, withTls } from '../impl/rpc/tls.js';
import { Id, MAX_CAPACITY, Protocol } from '../impl/store/schema.js';
import { openStore } from '../impl/store/steps.js';
import { InferController } from './controller.js';
import { MediaPublisher, discardMedia } from './media/publisher.js';
import {
  HostPort,
  flag,
  intFlag,
  listenFlag,
  metricsPortFlag,
  parseFlags,
  serveMetricsFlag,
} from './process-flags.js';
import { cpuReference } from './runtime/cpu-reference.js';
import { nullRuntime } from './runtime/null.js';
import { workerService } from './server.js';

const DAY_MS = 24 * 3600 * 1000;

const Flags = z
  .object({
    redis: RedisUrl,
    cell: Id,
    id: Id,
    capacity: intFlag(1, MAX_CAPACITY),
    listen: HostPort,
    leaseTtlMs: intFlag(100, DAY_MS),
    heartbeatMs: intFlag(10, DAY_MS).optional(),
    sweepMs: intFlag(10, DAY_MS),
    sink: HostPort.optional(),
    metricsPort: intFlag(-1, 65_535),
    protocol: Protocol,
    runtime: z.enum(['cpu-reference', 'avatar', 'null']),
    clockSkewMs: intFlag(-DAY_MS, DAY_MS),
    waitReplicas: intFlag(0, 16),
    ...tlsFields,
  })
  .refine((f) => f.heartbeatMs === undefined || f.heartbeatMs < f.leaseTtlMs, {
    path: ['heartbeatMs'],
    message: 'must be shorter than --lease-ttl-ms',
  })
  .transform(withTls);

function program(): Command {
  const cli = new Command('worker')
    .description('A DHSched worker: claims, revalidates and runs session runtimes')
    .addOption(
      flag('--redis <url>', 'the store: redis://host:port or redis+cluster://h:p,h:p', 'DHSCHED_REDIS_URL'),
    )
    .addOption(flag('--cell <id>', 'the cell it serves', 'DHSCHED_CELL', 'default'))
    .addOption(flag('--id <id>', 'this worker’s id, unique in the cell', 'DHSCHED_WORKER_ID'))
    .addOption(flag('--capacity <n>', 'runtimes it hosts at most (GPU slots)', 'DHSCHED_CAPACITY', '4'))
    .addOption(listenFlag())
    .addOption(
      flag(
        '--lease-ttl-ms <ms>',
        'its lease expires this long after a renewal',
        'DHSCHED_LEASE_TTL_MS',
        '3000',
      ),
    )
    .addOption(
      flag(
        '--heartbeat-ms <ms>',
        'lease renewal period (default: a third of the TTL)',
        'DHSCHED_HEARTBEAT_MS',
      ),
    )
    .addOption(
      flag(
        '--sweep-ms <ms>',
        'sweep period: its next 256 runtimes revalidated and woken if input waits unannounced',
        'DHSCHED_SWEEP_MS',
        '500',
      ),
    )
    .addOption(flag('--sink <host:port>', 'the media sink (none: frames are discarded)', 'DHSCHED_SINK'))
    .addOption(metricsPortFlag())
    .addOption(
      flag(
        '--protocol <name>',
        'dhsched, or an unsafe baseline for comparisons: assignment_time, claim_only, workerid_only',
        'DHSCHED_PROTOCOL',
        'dhsched',
      ),
    )
    .addOption(
      flag(
        '--runtime <name>',
        'the runtime backend: cpu-reference, avatar (a drawn face speaking with espeak-ng), or null (renders nothing; control-plane benchmarks)',
        'DHSCHED_RUNTIME',
        'cpu-reference',
      ),
    )
    .addOption(
      flag(
        '--clock-skew-ms <ms>',
        'added to this process’s clock, which times its lease (fault injection: a skewed host)',
        'DHSCHED_CLOCK_SKEW_MS',
        '0',
      ),
    )
    .addOption(
      flag('--wait-replicas <n>', 'replicas that must acknowledge each write', 'DHSCHED_WAIT_REPLICAS', '0'),
    );
  for (const option of tlsOptions()) cli.addOption(option);
  return cli;
}

async function main(argv: string[]): Promise<void> {
  const flags = parseFlags(program(), Flags, argv);
  const log = makeLogger('worker', flags.id);
  if (flags.protocol !== 'dhsched') {
    log.warn(
      { protocol: flags.protocol },
      `UNSAFE BASELINE PROTOCOL ${flags.protocol}: stale runtimes are not fenced; for comparisons only`,
    );
  }
  const redis = connectRedis(flags.redis);
  redis.on('error', (err: Error) => log.warn({ err: err.message }, 'redis connection'));
  const store = openStore(redis, { waitReplicas: flags.waitReplicas, protocol: flags.protocol });
  const backend = await match(flags.runtime)
    .with('cpu-reference', async () => cpuReference)
    // a native module (canvas): loaded only by the workers that draw
    .with('avatar', async () => (await import('./runtime/avatar.js')).avatar)
    .with('null', async () => nullRuntime)
    .exhaustive();
  const publisher = flags.sink
    ? new MediaPublisher({ addr: flags.sink, worker: flags.id, log })
    : discardMedia;
  const metrics = await serveMetricsFlag(flags.listen, flags.metricsPort);
  const server = new grpc.Server();
  const addr = await listen(server, flags.listen, serverCredentials(flags.tls));
  const controller = new InferController({
    store,
    cell: flags.cell,
    worker: flags.id,
    capacity: flags.capacity,
    addr,
    leaseTtlMs: flags.leaseTtlMs,
    heartbeatMs: flags.heartbeatMs,
    sweepMs: flags.sweepMs,
    backend,
    publisher,
    log,
    now: () => Date.now() + flags.clockSkewMs,
  });
  server.addService(services().Worker.service, workerService(controller, log));
  let stopping = false;
  onShutdown(async () => {
    stopping = true;
    await controller.stop();
    await shutdown(server);
    await publisher.close();
    await metrics?.close();
    await redis.quit();
  }, log);
  await controller.start();
  if (stopping) return;
  log.info({ addr, runtime: backend.name, metricsPort: metrics?.port }, 'worker serving');
  announceReady({ role: 'worker', id: flags.id, addr, metricsPort: metrics?.port ?? 0 });
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`worker: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
