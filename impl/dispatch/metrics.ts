/** Dispatch's own metrics, on the process registry of impl/common/metrics.ts. */
import client from 'prom-client';
import { registry } from '../common/metrics.js';

const registers = [registry];

export const workerNotifications = new client.Counter({
  name: 'dhsched_dispatch_worker_notifications_total',
  help: 'Fast-path calls to workers (Revoke, Stop) by method and result (ok, error, no_addr)',
  labelNames: ['method', 'result'] as const,
  registers,
});

export const loadViewReads = new client.Counter({
  name: 'dhsched_dispatch_load_view_reads_total',
  help: 'Reads of a cell load view by Dispatch, by result (ok, error)',
  labelNames: ['result'] as const,
  registers,
});
