import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../impl/common/log.js';
import { mediaFrames, registry } from '../../impl/common/metrics.js';
import { mediaSinkClient } from '../../impl/rpc/client.js';
import { type Frame, type WatchRequest, services } from '../../impl/rpc/proto.js';
import { listen, shutdown } from '../../impl/rpc/server.js';
import { waitFor } from '../test-support.js';
import { MediaPublisher } from './publisher.js';
import { MediaSink } from './sink.js';

const frame = (epoch: number, seq: number, session = 's1'): Frame => ({
  cell: 'c1',
  session,
  epoch,
  seq,
  index: 0,
  ptsMs: seq * 40,
  worker: `w${epoch}`,
  payload: Buffer.from([epoch, seq]),
});

const counted = async (result: string) =>
  (await mediaFrames.get()).values.find((v) => v.labels.result === result)?.value ?? 0;

describe('epoch fencing', () => {
  it('keeps the newest epoch per session and drops older frames', async () => {
    const sink = new MediaSink(silentLogger);
    const dropsBefore = await counted('dropped');
    expect(sink.offer(frame(1, 1))).toBe('accepted');
    expect(sink.offer(frame(2, 2))).toBe('accepted');
    expect(sink.offer(frame(1, 2))).toBe('dropped'); // in flight from the stale runtime
    expect(sink.offer(frame(2, 3))).toBe('accepted');
    expect(sink.offer(frame(1, 1, 's2'))).toBe('accepted'); // per session
    expect(sink.offer({ ...frame(0, 1) })).toBe('invalid');
    expect(await counted('dropped')).toBe(dropsBefore + 1);
    expect(sink.stats()).toEqual([
      { cell: 'c1', session: 's1', epoch: 2, accepted: 3, dropped: 1, lastSeq: 3 },
      { cell: 'c1', session: 's2', epoch: 1, accepted: 1, dropped: 0, lastSeq: 1 },
    ]);
  });

  it('takes the idle frame of a runtime that has rendered nothing yet (seq 0), fenced the same way', () => {
    const sink = new MediaSink(silentLogger);
    expect(sink.offer(frame(2, 0))).toBe('accepted');
    expect(sink.offer(frame(1, 0))).toBe('dropped');
    expect(sink.offer({ ...frame(2, 0), seq: -1 })).toBe('invalid');
    expect(sink.stats()).toEqual([
      { cell: 'c1', session: 's1', epoch: 2, accepted: 1, dropped: 1, lastSeq: 0 },
    ]);
  });
});

describe('the MediaSink service', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function serveSink() {
    const sink = new MediaSink(silentLogger);
    const server = new grpc.Server();
    server.addService(services().MediaSink.service, sink.service());
    const addr = await listen(server, '127.0.0.1:0');
    const raw = new (services().MediaSink)(addr, grpc.credentials.createInsecure());
    cleanup.push(async () => {
      raw.close();
      sink.close();
      await shutdown(server, 1000);
    });
    const watch = (request: WatchRequest) => {
      const stream = raw['watch'](request) as grpc.ClientReadableStream<Frame>;
      const seen: Frame[] = [];
      const ended = new Promise<grpc.ServiceError | undefined>((resolve) => {
        stream.on('data', (f: Frame) => seen.push(f));
        stream.on('error', (err: grpc.ServiceError) => resolve(err));
        stream.on('end', () => resolve(undefined));
      });
      cleanup.push(() => stream.cancel());
      return { seen, ended, subscribed: new Promise((r) => stream.once('metadata', r)) };
    };
    return { sink, addr, watch };
  }

  it('forwards to watchers only the frames of the newest generation; Stats counts the rest', async () => {
    const { addr, watch } = await serveSink();
    const one = watch({ cell: 'c1', session: 's1' });
    const all = watch({ cell: '', session: '' });
    const other = watch({ cell: 'c1', session: 's9' });
    await Promise.all([one.subscribed, all.subscribed, other.subscribed]);
    const publisher = new MediaPublisher({ addr, worker: 'w1', log: silentLogger });
    cleanup.push(() => publisher.close());
    publisher.publish([frame(2, 1), frame(1, 1), frame(2, 2), frame(1, 2), frame(3, 3), frame(2, 3)]);
    await waitFor(() => one.seen.length === 3 && all.seen.length === 3);
    expect(one.seen.map((f) => [f.epoch, f.seq])).toEqual([
      [2, 1],
      [2, 2],
      [3, 3],
    ]);
    expect(one.seen[0]!.payload).toEqual(Buffer.from([2, 1]));
    expect(other.seen).toEqual([]);
    const stats = await mediaSinkClient(addr).call('stats', {});
    expect(stats.sessions).toEqual([
      { cell: 'c1', session: 's1', epoch: 3, accepted: 3, dropped: 3, lastSeq: 3 },
    ]);
  });

  it('refuses a malformed Watch with INVALID_ARGUMENT', async () => {
    const { watch } = await serveSink();
    const err = await watch({ cell: 'not a cell!', session: '' }).ended;
    expect(err?.code).toBe(grpc.status.INVALID_ARGUMENT);
  });
});

describe('the publisher', () => {
  it('never throws or blocks while the sink is down: it drops frames until it retries', async () => {
    const publisher = new MediaPublisher({ addr: '127.0.0.1:1', worker: 'w-down', log: silentLogger });
    const dropped = async () =>
      (await registry.getSingleMetric('dhsched_media_published_total')!.get()).values.find(
        (v) => v.labels.worker === 'w-down' && v.labels.result === 'dropped',
      )?.value ?? 0;
    let seq = 0;
    await waitFor(async () => {
      publisher.publish([frame(1, ++seq)]);
      return (await dropped()) > 0;
    }, 'a dropped frame');
    await publisher.close();
  });
});
