/**
 * What the worker and the media sink processes share: flags with $DHSCHED_* fallbacks, validated with zod
 * (a bad or missing one is a clear message and exit status 2), and the /metrics endpoint they serve.
 */
import { type Command, type CommanderError, Option } from 'commander';
import { z } from 'zod';
import { serveMetrics } from '../impl/common/metrics.js';
import { Addr } from '../impl/store/schema.js';

/** host:port to serve on or to reach. */
export const HostPort = Addr.min(1, 'an address is host:port');

/** An integer flag; flags and environment variables arrive as strings. */
export const intFlag = (min: number, max: number) =>
  z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

/** A flag that falls back on an environment variable, then on its default. */
export function flag(flags: string, description: string, env: string, defaultValue?: string): Option {
  const option = new Option(flags, description).env(env);
  return defaultValue === undefined ? option : option.default(defaultValue);
}

export const listenFlag = () =>
  flag('--listen <host:port>', 'where to serve gRPC (port 0: a free one)', 'DHSCHED_LISTEN', '127.0.0.1:0');

export const metricsPortFlag = () =>
  flag(
    '--metrics-port <port>',
    'the port of /metrics, on the --listen host (0: a free one, -1: none)',
    'DHSCHED_METRICS_PORT',
    '0',
  );

/** Parses argv into the schema's shape; on a bad or missing flag prints why and exits with status 2. */
export function parseFlags<S extends z.ZodTypeAny>(program: Command, schema: S, argv: string[]): z.output<S> {
  program.exitOverride((err: CommanderError) => process.exit(err.exitCode === 0 ? 0 : 2));
  const given = program.parse(argv, { from: 'user' }).opts();
  const parsed = schema.safeParse(given);
  if (parsed.success) return parsed.data as z.output<S>;
  for (const issue of parsed.error.issues) {
    const option = program.options.find((o) => o.attributeName() === issue.path[0]);
    const name = option?.long ?? String(issue.path[0] ?? 'flags');
    const missing = issue.path.length === 1 && given[String(issue.path[0])] === undefined;
    const why = missing ? `required${option?.envVar ? ` (or set $${option.envVar})` : ''}` : issue.message;
    process.stderr.write(`${program.name()}: ${name}: ${why}\n`);
  }
  process.exit(2);
}

/** Serves /metrics on the host of `listen`, on `port` (0: a free one), or not at all when port is -1. */
export async function serveMetricsFlag(
  listen: string,
  port: number,
): Promise<{ port: number; close(): Promise<void> } | undefined> {
  if (port < 0) return undefined;
  return serveMetrics(listen.slice(0, listen.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1'), port);
}
