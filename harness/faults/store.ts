/**
 * The Redis of one fault run: a private primary that persists every write before acknowledging it (AOF,
 * fsync always), reached by each client through its own FaultProxy; with `standby`, also a replica that a
 * failover promotes. Its faults: a crash and restart of the primary (it reloads its AOF), and a failover
 * (the primary killed, the replica promoted, every proxy retargeted to it, a fresh replica of it started).
 * Faults of the store run one at a time.
 */
import { Redis } from 'ioredis';
import { type RedisServer, startRedis } from '../../impl/ops/redis-server.js';
import { FaultProxy } from './proxy.js';

const PERSISTENT = ['--appendonly', 'yes', '--appendfsync', 'always'];
const REPLICATION = ['--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0'];

/** A replica of `primary`, made one by a command (restarted after its promotion, it stays a primary). */
async function startReplicaOf(primary: RedisServer): Promise<RedisServer> {
  const replica = await startRedis([...PERSISTENT, ...REPLICATION]);
  const r = new Redis({ host: replica.host, port: replica.port, maxRetriesPerRequest: 1 });
  try {
    await r.replicaof(primary.host, String(primary.port));
    for (const deadline = Date.now() + 10_000; !/master_link_status:up/.test(await r.info('replication'));) {
      if (Date.now() > deadline) throw new Error(`the replica on port ${replica.port} did not come online`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } catch (err) {
    await replica.stop();
    throw err;
  } finally {
    r.disconnect();
  }
  return replica;
}

export class RunStore {
  private readonly proxies = new Map<string, FaultProxy>();
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    private primary: RedisServer,
    private standby: RedisServer | undefined,
  ) {}

  /** A primary, and a replica of it when `standby`; one proxy per name in `links`. */
  static async start(o: { standby: boolean; links: readonly string[] }): Promise<RunStore> {
    const primary = await startRedis([...PERSISTENT, ...REPLICATION]);
    const store = new RunStore(primary, undefined);
    try {
      if (o.standby) store.standby = await startReplicaOf(primary);
      for (const link of o.links) store.proxies.set(link, await FaultProxy.start(primary));
    } catch (err) {
      await store.stop();
      throw err;
    }
    return store;
  }

  /** The proxy of one link: its faults are that link's. */
  link(name: string): FaultProxy {
    const proxy = this.proxies.get(name);
    if (!proxy) throw new Error(`the run's store has no link ${name}`);
    return proxy;
  }

  url(name: string): string {
    return `redis://127.0.0.1:${this.link(name).port}`;
  }

  /** The primary crashes (SIGKILL) and restarts after `downMs` from its AOF; the proxies reconnect to it. */
  restart(downMs: number): Promise<void> {
    return this.serially(() => this.primary.restart(downMs));
  }

  /**
   * The primary crashes and its replica is promoted: writes it had not replicated are lost (acknowledged
   * ones are not when every client WAITs for one replica). Every link moves to the new primary, and a
   * fresh replica of it is started.
   */
  failover(): Promise<void> {
    return this.serially(async () => {
      const promoted = this.standby;
      if (!promoted) throw new Error('failover needs a store started with a standby');
      this.primary.signal('SIGKILL');
      const r = new Redis({ host: promoted.host, port: promoted.port, maxRetriesPerRequest: 1 });
      try {
        await r.replicaof('NO', 'ONE');
      } finally {
        r.disconnect();
      }
      const old = this.primary;
      this.primary = promoted;
      this.standby = undefined;
      for (const proxy of this.proxies.values()) proxy.retarget(promoted);
      await old.stop();
      this.standby = await startReplicaOf(promoted);
    });
  }

  async stop(): Promise<void> {
    await this.queue;
    for (const proxy of this.proxies.values()) await proxy.close();
    await this.standby?.stop();
    await this.primary.stop();
  }

  private serially(fault: () => Promise<void>): Promise<void> {
    const run = this.queue.then(fault);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
