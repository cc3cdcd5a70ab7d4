/**
 * The process's Prometheus metrics (prom-client) and the HTTP endpoint that serves them. One registry per
 * process; components label by worker or service, so several of them can share a process in tests.
 */
import http from 'node:http';
import client from 'prom-client';

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

const registers = [registry];

export const rpcDuration = new client.Histogram({
  name: 'dhsched_rpc_duration_seconds',
  help: 'Served gRPC calls by service, method and status code',
  labelNames: ['service', 'method', 'code'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers,
});

export const rpcRefusals = new client.Counter({
  name: 'dhsched_rpc_refusals_total',
  help: 'Calls refused before they ran, by service, method and reason (overloaded: admission was at its limit)',
  labelNames: ['service', 'method', 'reason'] as const,
  registers: [registry],
});

export const inputsReleased = new client.Counter({
  name: 'dhsched_inputs_released_total',
  help: 'Inputs released to a runtime after revalidation, by worker',
  labelNames: ['worker'] as const,
  registers,
});

export const staleRejections = new client.Counter({
  name: 'dhsched_stale_rejections_total',
  help: 'Steps the store refused because the generation had lost authority, by worker and step',
  labelNames: ['worker', 'step'] as const,
  registers,
});

export const migrations = new client.Counter({
  name: 'dhsched_migrations_total',
  help: 'Moves attempted by Dispatch, by reason (migrate, drain, recovery) and result',
  labelNames: ['reason', 'result'] as const,
  registers,
});

export const admissionRefusals = new client.Counter({
  name: 'dhsched_admission_refusals_total',
  help: 'Candidates the store refused at admit-and-commit, by status (FULL, NOT_LIVE, DRAINING, ...)',
  labelNames: ['code'] as const,
  registers,
});

export const capacityTokens = new client.Gauge({
  name: 'dhsched_capacity_tokens',
  help: 'Capacity tokens held on the worker (generations occupying a slot)',
  labelNames: ['worker'] as const,
  registers,
});

export const runtimesGauge = new client.Gauge({
  name: 'dhsched_runtimes',
  help: 'Runtimes alive on the worker, stopping ones included',
  labelNames: ['worker'] as const,
  registers,
});

export const mediaFrames = new client.Counter({
  name: 'dhsched_media_frames_total',
  help: 'Media frames at the sink, accepted or dropped by epoch fencing',
  labelNames: ['result'] as const,
  registers,
});

/** Serves GET /metrics on host:port (port 0: a free one); resolves to the bound port. */
export function serveMetrics(host: string, port: number): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const bound = (server.address() as { port: number }).port;
      resolve({ port: bound, close: () => new Promise((r) => server.close(() => r())) });
    });
  });
}
