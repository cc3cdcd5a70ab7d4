/**
 * WebRTC delivery of one session's media to a browser (werift, pure TypeScript): the browser offers a
 * data channel, this side answers (ICE on the host's addresses, loopback included) and sends every frame
 * the media sink forwards for the session as one binary message: u32 header length, the header (JSON:
 * cell, session, epoch, seq, index, ptsMs, worker), the backend's payload. Frames travel on a data
 * channel, not an RTP track, so each keeps its generation stamp: the page fences on it (console.js).
 */
import * as grpc from '@grpc/grpc-js';
import { RTCPeerConnection, type RTCDataChannel } from 'werift';
import type { Logger } from 'pino';
import { type Frame, services } from '../rpc/proto.js';

/** Frames the channel may have buffered beyond which new ones are skipped (a slow viewer). */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export function frameMessage(frame: Frame): Buffer {
  const { payload, ...stamp } = frame;
  const header = Buffer.from(JSON.stringify(stamp));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(header.length);
  return Buffer.concat([length, header, payload]);
}

export interface RtcViewer {
  /** The SDP answer, with its ICE candidates (no trickle). */
  readonly answer: string;
  /** Resolves once the connection is closed, by the browser or by `close`. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Answers a browser's offer and, once its data channel opens, forwards the sink's frames of
 * (cell, session) to it until the browser or `close` ends the connection.
 */
export async function answerViewer(o: {
  offer: string;
  sink: string;
  cell: string;
  session: string;
  log: Logger;
}): Promise<RtcViewer> {
  const pc = new RTCPeerConnection({ iceAdditionalHostAddresses: ['127.0.0.1'], iceUseIpv6: false });
  const sink = new (services().MediaSink)(o.sink, grpc.credentials.createInsecure());
  let stream: grpc.ClientReadableStream<Frame> | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      stream?.cancel();
      sink.close();
      await pc.close();
    })());
  const closed = new Promise<void>((resolve) => {
    pc.connectionStateChange.subscribe((state) => state === 'closed' && resolve());
  });
  pc.onDataChannel.subscribe((channel: RTCDataChannel) => {
    const forward = () => {
      stream = sink['watch']({ cell: o.cell, session: o.session }) as grpc.ClientReadableStream<Frame>;
      stream.on('data', (frame: Frame) => {
        if (channel.readyState === 'open' && channel.bufferedAmount < MAX_BUFFERED_BYTES)
          channel.send(frameMessage(frame));
      });
      stream.on('error', (err: grpc.ServiceError) => {
        if (err.code !== grpc.status.CANCELLED)
          o.log.warn({ err: err.message }, 'watching the media sink failed');
      });
    };
    if (channel.readyState === 'open') forward();
    else channel.stateChanged.subscribe((state) => state === 'open' && forward());
    channel.stateChanged.subscribe((state) => state === 'closed' && void close());
  });
  pc.connectionStateChange.subscribe((state) => {
    if (state === 'failed' || state === 'closed') void close();
  });
  try {
    await pc.setRemoteDescription({ type: 'offer', sdp: o.offer });
    await pc.setLocalDescription(await pc.createAnswer());
  } catch (err) {
    await close();
    throw err;
  }
  return { answer: pc.localDescription!.sdp, closed, close };
}
