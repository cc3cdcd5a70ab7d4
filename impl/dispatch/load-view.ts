/**
 * The replica's cached load view: per cell, the workers as readLoadView last saw them, refreshed every
 * `refreshMs` in the background. Ranking reads it and may be misled by its staleness; admission never
 * reads it (admitCommit decides on the store's own state).
 */
import type { Logger } from 'pino';
import * as steps from '../store/steps.js';
import type { Store, WorkerView } from '../store/steps.js';
import { type Loop, startLoop } from './loop.js';
import { loadViewReads } from './metrics.js';

export interface LoadViewOptions {
  store: Store;
  /** The cells served from the start; a cell requested later is served once it has a worker. */
  cells: readonly string[];
  refreshMs: number;
  log: Logger;
  now?: () => number;
}

export class LoadView {
  private readonly store: Store;
  private readonly refreshMs: number;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly served: Set<string>;
  private readonly views = new Map<string, readonly WorkerView[]>();
  /** First reads of a cell not cached yet, shared by the requests that wait for it. */
  private readonly firstReads = new Map<string, Promise<readonly WorkerView[]>>();
  private loop: Loop | undefined;

  constructor(o: LoadViewOptions) {
    this.store = o.store;
    this.refreshMs = o.refreshMs;
    this.log = o.log;
    this.now = o.now ?? Date.now;
    this.served = new Set(o.cells);
  }

  /** The cells this replica serves: refreshes and recovery passes run over them. */
  cells(): string[] {
    return [...this.served];
  }

  /** The cached view of the cell, read once if there is none yet. */
  view(cell: string): Promise<readonly WorkerView[]> {
    const cached = this.views.get(cell);
    if (cached) return Promise.resolve(cached);
    let first = this.firstReads.get(cell);
    if (!first) {
      first = this.fresh(cell).finally(() => this.firstReads.delete(cell));
      this.firstReads.set(cell, first);
    }
    return first;
  }

  /** Reads the cell's view now (recovery, ListWorkers) and caches it. */
  async fresh(cell: string): Promise<readonly WorkerView[]> {
    let view: WorkerView[];
    try {
      view = await steps.readLoadView(this.store, { cell, now: this.now() });
    } catch (err) {
      loadViewReads.inc({ result: 'error' });
      throw err;
    }
    loadViewReads.inc({ result: 'ok' });
    if (view.length > 0) this.served.add(cell);
    if (this.served.has(cell)) this.views.set(cell, view);
    return view;
  }

  /** Counts a token just admitted on the worker, so that ranking sees it before the next refresh. */
  recordAdmission(cell: string, worker: string): void {
    const view = this.views.get(cell);
    if (view)
      this.views.set(
        cell,
        view.map((w) => (w.worker === worker ? { ...w, tokens: w.tokens + 1 } : w)),
      );
  }

  /** Reads every served cell once; fails if any read fails. */
  async refreshAll(): Promise<void> {
    await Promise.all(this.cells().map((cell) => this.fresh(cell)));
  }

  /** Refreshes every served cell every refreshMs until `stop`. */
  start(): void {
    this.loop ??= startLoop(
      'load view refresh',
      () => this.refreshAll(),
      () => this.refreshMs,
      this.log,
    );
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
    this.loop = undefined;
  }
}
