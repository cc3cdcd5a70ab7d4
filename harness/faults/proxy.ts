/**
 * A TCP proxy in front of one endpoint (Redis for a worker, a worker's gRPC port for Dispatch): the fault
 * harness puts one on each link it may break. Bytes pass in order in both directions unless the link is
 * partitioned (held, then delivered in order on heal), delayed (each chunk leaves `delayMs` after it
 * arrived), or cut (every open connection reset: what was held is lost). Retargeted, it forwards to
 * another endpoint (a promoted Redis replica) from then on.
 */
import net from 'node:net';

interface Chunk {
  data: Buffer;
  dueAt: number;
}

/** One direction of one connection: a queue released in order once each chunk is due and the link is up. */
class Direction {
  private readonly queue: Chunk[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly to: net.Socket,
    private readonly link: FaultProxy,
  ) {}

  push(data: Buffer): void {
    this.queue.push({ data, dueAt: Date.now() + this.link.delayMs });
    this.pump();
  }

  pump(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0 && !this.link.partitioned && !this.to.destroyed) {
      const wait = this.queue[0]!.dueAt - Date.now();
      if (wait > 0) {
        this.timer = setTimeout(() => this.pump(), wait);
        return;
      }
      this.to.write(this.queue.shift()!.data);
    }
  }

  clear(): void {
    clearTimeout(this.timer);
    this.queue.length = 0;
  }
}

export class FaultProxy {
  /** Held while true: nothing leaves in either direction until `heal`. */
  partitioned = false;
  /** Latency added to every chunk, in ms. */
  delayMs = 0;
  private readonly connections = new Set<{ sockets: net.Socket[]; directions: Direction[] }>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
    private target: { host: string; port: number },
  ) {}

  /** Listens on a free port of 127.0.0.1 and forwards every connection to `target`. */
  static async start(target: { host: string; port: number }): Promise<FaultProxy> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const proxy = new FaultProxy(server, (server.address() as net.AddressInfo).port, target);
    server.on('connection', (client) => proxy.accept(client));
    return proxy;
  }

  private accept(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    const up = new Direction(upstream, this);
    const down = new Direction(client, this);
    const connection = { sockets: [client, upstream], directions: [up, down] };
    this.connections.add(connection);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.on('data', (d: Buffer) => up.push(d));
    upstream.on('data', (d: Buffer) => down.push(d));
    const close = () => {
      if (!this.connections.delete(connection)) return;
      for (const d of connection.directions) d.clear();
      for (const s of connection.sockets) s.destroy();
    };
    for (const s of connection.sockets) {
      s.on('error', close);
      s.on('close', close);
    }
  }

  partition(): void {
    this.partitioned = true;
  }

  /** Ends a partition: what was held is delivered, in order. */
  heal(): void {
    this.partitioned = false;
    for (const c of this.connections) for (const d of c.directions) d.pump();
  }

  /** Resets every open connection; what was held is lost. New connections are still accepted. */
  cut(): void {
    for (const c of [...this.connections]) for (const s of c.sockets) s.destroy();
  }

  /** Forwards new connections to `target` and resets the open ones (their clients reconnect to it). */
  retarget(target: { host: string; port: number }): void {
    this.target = target;
    this.cut();
  }

  /** Open connections through the proxy. */
  get open(): number {
    return this.connections.size;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
