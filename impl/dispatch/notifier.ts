/**
 * The fast path to workers for what their work stream does not carry: after a move Dispatch tells the
 * source to fence its runtime (Revoke), after a close the owner to stop it (Stop), instead of leaving it to
 * the next sweep. Assignments and appended inputs need no call: the commit or append writes them to the
 * worker's stream, whose blocking read that same store step wakes, sooner than any call made after it.
 * Every call is a hint the worker checks against the store, so one that fails or never arrives costs
 * latency, never safety: it is logged and counted, and the request that caused it does not wait for it.
 */
import type { Logger } from 'pino';
import { ClientPool, type Client, workerClient } from '../rpc/client.js';
import type { WorkerMethods } from '../rpc/proto.js';
import type { Tls } from '../rpc/tls.js';
import type { LoadView } from './load-view.js';
import { workerNotifications } from './metrics.js';

export type NotifyMethod = 'revoke' | 'stop';

export interface Notifier {
  /** Sends the call to the worker of the cell, without waiting and without ever failing. */
  notify<K extends NotifyMethod>(cell: string, worker: string, method: K, request: WorkerMethods[K][0]): void;
  close(): void;
}

export interface WorkerNotifierOptions {
  /** Where the workers' addresses come from. */
  loadView: LoadView;
  log: Logger;
  deadlineMs?: number;
  /** Mutual TLS to the workers; absent: plaintext. */
  tls?: Tls;
}

/** Calls workers over gRPC at the address their lease publishes; workers without one are skipped. */
export class WorkerNotifier implements Notifier {
  private readonly pool: ClientPool<Client<WorkerMethods>>;
  private readonly loadView: LoadView;
  private readonly log: Logger;
  private readonly deadlineMs: number;

  constructor(o: WorkerNotifierOptions) {
    this.loadView = o.loadView;
    this.log = o.log;
    this.deadlineMs = o.deadlineMs ?? 1000;
    this.pool = new ClientPool((addr) => workerClient(addr, undefined, o.tls));
  }

  notify<K extends NotifyMethod>(
    cell: string,
    worker: string,
    method: K,
    request: WorkerMethods[K][0],
  ): void {
    void this.send(cell, worker, method, request);
  }

  private async send<K extends NotifyMethod>(
    cell: string,
    worker: string,
    method: K,
    request: WorkerMethods[K][0],
  ): Promise<void> {
    try {
      const addr = (await this.loadView.view(cell)).find((w) => w.worker === worker)?.addr ?? '';
      if (addr === '') {
        workerNotifications.inc({ method, result: 'no_addr' });
        return;
      }
      await this.pool.get(addr).call(method, request, this.deadlineMs);
      workerNotifications.inc({ method, result: 'ok' });
    } catch (err) {
      workerNotifications.inc({ method, result: 'error' });
      this.log.debug({ err, cell, worker, method }, 'worker notification failed');
    }
  }

  close(): void {
    this.pool.closeAll();
  }
}
