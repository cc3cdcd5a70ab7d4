/**
 * The media sink, the RTC side of the media path: it takes every worker's frames (Publish) and forwards to
 * its viewers (Watch) only those of the newest generation it has seen for each (cell, session). A frame
 * whose epoch is older is dropped, so media still in flight from a stale runtime cannot reach a viewer after
 * the new generation's first frame: Emit(w, s, e) of spec/DHSched.tla, fencing at the sink's end.
 * What it remembers per session (the newest epoch, counts) lives as long as the process.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import client from 'prom-client';
import { z } from 'zod';
import { mediaFrames, registry } from '../../impl/common/metrics.js';
import { toStatus } from '../../impl/rpc/errors.js';
import type {
  Frame,
  MediaSinkUnaryMethods,
  PublishReply,
  SessionMediaStats,
  WatchRequest,
} from '../../impl/rpc/proto.js';
import { unaryService } from '../../impl/rpc/server.js';
import { Epoch, Id, Seq } from '../../impl/store/schema.js';

const FrameMessage = z.object({
  cell: Id,
  session: Id,
  epoch: Epoch,
  /** 0 in the idle frame of a runtime that has rendered no input yet. */
  seq: Seq.or(z.literal(0)),
  index: z.number().int().nonnegative(),
  ptsMs: z.number().int().nonnegative(),
  worker: Id,
  payload: z.instanceof(Buffer),
});
const AnyOrId = Id.or(z.literal(''));
/** An empty cell or session watches all of them. */
const WatchMessage = z.object({ cell: AnyOrId, session: AnyOrId });

/** What became of an offered frame. */
export type Offer = 'accepted' | 'dropped' | 'invalid';

const watchSkipped = new client.Counter({
  name: 'dhsched_media_watch_skipped_total',
  help: 'Accepted frames not forwarded to a watcher whose stream backlog was full',
  registers: [registry],
});

interface Watcher extends WatchRequest {
  readonly call: grpc.ServerWritableStream<WatchRequest, Frame>;
}

export class MediaSink {
  private readonly sessions = new Map<string, SessionMediaStats>();
  private readonly watchers = new Set<Watcher>();

  constructor(
    private readonly log: Logger,
    /** Frames buffered for one watcher beyond which new ones skip it. */
    private readonly maxWatchBacklog = 1024,
  ) {}

  /** Epoch fencing: accepts a frame unless its session has seen a newer epoch; forwards what it accepts. */
  offer(message: unknown): Offer {
    const parsed = FrameMessage.safeParse(message);
    if (!parsed.success) {
      mediaFrames.inc({ result: 'invalid' });
      this.log.debug({ issues: parsed.error.issues }, 'invalid media frame dropped');
      return 'invalid';
    }
    const frame = parsed.data;
    const key = `${frame.cell}/${frame.session}`;
    let media = this.sessions.get(key);
    if (!media) {
      media = { cell: frame.cell, session: frame.session, epoch: 0, accepted: 0, dropped: 0, lastSeq: 0 };
      this.sessions.set(key, media);
    }
    if (frame.epoch < media.epoch) {
      media.dropped++;
      mediaFrames.inc({ result: 'dropped' });
      return 'dropped';
    }
    media.epoch = frame.epoch;
    media.accepted++;
    media.lastSeq = frame.seq;
    mediaFrames.inc({ result: 'accepted' });
    for (const w of this.watchers) {
      if ((w.cell !== '' && w.cell !== frame.cell) || (w.session !== '' && w.session !== frame.session)) {
        continue;
      }
      if (w.call.writableLength >= this.maxWatchBacklog) watchSkipped.inc();
      else w.call.write(frame);
    }
    return 'accepted';
  }

  /** Per session: the newest epoch seen, frames accepted and dropped, the seq of the last accepted frame. */
  stats(): SessionMediaStats[] {
    return [...this.sessions.values()]
      .map((m) => ({ ...m }))
      .sort((a, b) => a.cell.localeCompare(b.cell) || a.session.localeCompare(b.session));
  }

  /** The MediaSink service of proto/dhsched.proto. */
  service(): grpc.UntypedServiceImplementation {
    return {
      ...unaryService<MediaSinkUnaryMethods>(
        'MediaSink',
        { stats: z.object({}) },
        { stats: async () => ({ sessions: this.stats() }) },
        this.log,
      ),
      publish: (
        call: grpc.ServerReadableStream<Frame, PublishReply>,
        callback: grpc.sendUnaryData<PublishReply>,
      ) => {
        const reply: PublishReply = { accepted: 0, dropped: 0 };
        call.on('data', (frame: unknown) => {
          if (this.offer(frame) === 'accepted') reply.accepted++;
          else reply.dropped++;
        });
        call.on('end', () => callback(null, reply));
        call.on('error', (err) => this.log.debug({ err }, 'publish stream failed'));
      },
      watch: (call: grpc.ServerWritableStream<WatchRequest, Frame>) => {
        const request = WatchMessage.safeParse(call.request);
        if (!request.success) {
          call.emit('error', toStatus(request.error));
          return;
        }
        const watcher: Watcher = { ...request.data, call };
        this.watchers.add(watcher);
        call.sendMetadata(new grpc.Metadata()); // the headers tell the watcher it is subscribed
        const forget = () => this.watchers.delete(watcher);
        call.on('cancelled', forget);
        call.on('close', forget);
      },
    };
  }

  /** Ends every Watch stream (before the server shuts down, which waits for open calls). */
  close(): void {
    for (const w of this.watchers) w.call.end();
    this.watchers.clear();
  }
}
