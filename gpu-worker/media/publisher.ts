/**
 * The worker's side of the media path: its runtimes' frames stream to the media sink on one Publish call,
 * reopened after it fails. Media is best effort: `publish` never blocks the protocol and never throws.
 * Frames that cannot go out (the sink down, too many buffered) are dropped, counted and logged.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from 'pino';
import client from 'prom-client';
import { registry } from '../../impl/common/metrics.js';
import { type Frame, type PublishReply, services } from '../../impl/rpc/proto.js';
import type { MediaFrame } from '../runtime/pipeline.js';

/** Where a worker's frames go. */
export interface FrameSink {
  publish(frames: readonly MediaFrame[]): void;
  /** Flushes what is buffered (briefly) and lets go of the connection. */
  close(): Promise<void>;
}

/** For a worker run without a media sink. */
export const discardMedia: FrameSink = {
  publish: () => undefined,
  close: async () => undefined,
};

const mediaPublished = new client.Counter({
  name: 'dhsched_media_published_total',
  help: 'Media frames a worker wrote to its sink stream, or dropped (sink down, stream backlog full)',
  labelNames: ['worker', 'result'] as const,
  registers: [registry],
});

export interface PublisherOptions {
  /** The media sink, host:port. */
  addr: string;
  worker: string;
  log: Logger;
  /** After the stream fails, frames are dropped for this long, then it is reopened. */
  retryMs?: number;
  /** Frames buffered on the stream (not yet on the wire) beyond which new ones are dropped. */
  maxBuffered?: number;
  /** How long `close` waits for the sink to take what is buffered. */
  closeGraceMs?: number;
}

interface OpenStream {
  readonly call: grpc.ClientWritableStream<Frame>;
  /** Resolves when the call has ended, either way. */
  readonly ended: Promise<void>;
}

export class MediaPublisher implements FrameSink {
  private readonly client: grpc.Client;
  private readonly retryMs: number;
  private readonly maxBuffered: number;
  private readonly closeGraceMs: number;
  private stream: OpenStream | undefined;
  private retryAt = 0;
  private closed = false;

  constructor(private readonly options: PublisherOptions) {
    this.client = new (services().MediaSink)(options.addr, grpc.credentials.createInsecure(), {
      'grpc.keepalive_time_ms': 10_000,
    });
    this.retryMs = options.retryMs ?? 1000;
    this.maxBuffered = options.maxBuffered ?? 4096;
    this.closeGraceMs = options.closeGraceMs ?? 2000;
  }

  publish(frames: readonly MediaFrame[]): void {
    if (frames.length === 0) return;
    const call = this.open();
    let written = 0;
    for (const frame of frames) {
      if (!call || call.writableLength >= this.maxBuffered) break;
      call.write(frame);
      written++;
    }
    const dropped = frames.length - written;
    if (written > 0) mediaPublished.inc({ worker: this.options.worker, result: 'written' }, written);
    if (dropped > 0) mediaPublished.inc({ worker: this.options.worker, result: 'dropped' }, dropped);
  }

  async close(): Promise<void> {
    this.closed = true;
    const open = this.stream;
    if (open) {
      open.call.end();
      await Promise.race([open.ended, new Promise((r) => setTimeout(r, this.closeGraceMs).unref())]);
    }
    this.client.close();
  }

  /** The open stream; a new one once the retry delay after a failure has passed; none while closed. */
  private open(): grpc.ClientWritableStream<Frame> | undefined {
    if (this.stream) return this.stream.call;
    if (this.closed || Date.now() < this.retryAt) return undefined;
    const publish = (this.client as unknown as Record<string, PublishMethod>)['publish']!.bind(this.client);
    let call!: grpc.ClientWritableStream<Frame>;
    const ended = new Promise<void>((resolve) => {
      call = publish((err) => {
        if (this.stream?.call === call) this.stream = undefined;
        if (err && !this.closed) this.failed(err);
        resolve();
      });
    });
    this.stream = { call, ended };
    return call;
  }

  private failed(err: grpc.ServiceError): void {
    this.retryAt = Date.now() + this.retryMs;
    this.options.log.warn(
      { addr: this.options.addr, code: grpc.status[err.code] },
      `media sink stream failed: ${err.details}; frames are dropped for ${this.retryMs} ms, then it reopens`,
    );
  }
}

type PublishMethod = (callback: grpc.requestCallback<PublishReply>) => grpc.ClientWritableStream<Frame>;
