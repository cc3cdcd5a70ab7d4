/**
 * The media sink process: serves the MediaSink service (sink.ts) until SIGTERM or SIGINT. Logs go to
 * stderr; its one stdout line is the Ready object (impl/common/process.ts).
 */
import * as grpc from '@grpc/grpc-js';
import { Command } from 'commander';
import { z } from 'zod';
import { makeLogger } from '../../impl/common/log.js';
import { announceReady, onShutdown } from '../../impl/common/process.js';
import { services } from '../../impl/rpc/proto.js';
import { listen, shutdown } from '../../impl/rpc/server.js';
import { Id } from '../../impl/store/schema.js';
import {
  HostPort,
  flag,
  intFlag,
  listenFlag,
  metricsPortFlag,
  parseFlags,
  serveMetricsFlag,
} from '../process-flags.js';
import { MediaSink } from './sink.js';

const Flags = z.object({ listen: HostPort, id: Id, metricsPort: intFlag(-1, 65_535) });

function program(): Command {
  return new Command('media-sink')
    .description('The DHSched media sink: forwards each session’s frames of its newest generation only')
    .addOption(listenFlag())
    .addOption(flag('--id <id>', 'this sink’s id, in its logs', 'DHSCHED_SINK_ID', 'sink'))
    .addOption(metricsPortFlag());
}

async function main(argv: string[]): Promise<void> {
  const flags = parseFlags(program(), Flags, argv);
  const log = makeLogger('media-sink', flags.id);
  const sink = new MediaSink(log);
  const server = new grpc.Server();
  server.addService(services().MediaSink.service, sink.service());
  const addr = await listen(server, flags.listen);
  const metrics = await serveMetricsFlag(flags.listen, flags.metricsPort);
  onShutdown(async () => {
    sink.close();
    await shutdown(server);
    await metrics?.close();
  }, log);
  log.info({ addr, metricsPort: metrics?.port }, 'media sink serving');
  announceReady({ role: 'media-sink', id: flags.id, addr, metricsPort: metrics?.port ?? 0 });
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`media-sink: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
