/**
 * The floor's server (harness/bench-floor/run.ts), a child process: one gRPC method, a bidirectional
 * stream of raw buffers. Stage `echo` answers each message at once; stage `store` appends the messages
 * that arrive while its last append is in flight with one EVALSHA (one RPUSH a message, the shape of
 * Dispatch's append batch, none of its logic) and then answers them. Tells its port on the IPC channel.
 */
import * as grpc from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { FLOOR_METHOD, FloorStage } from './method.js';

const Args = z.tuple([FloorStage, z.coerce.number().int().min(0).max(65535)]);
const [stage, redisPort] = Args.parse(process.argv.slice(2));

/** Appends each message's key (its first four bytes) to a list of 100,000. */
const APPEND = "for i = 1, #ARGV do redis.call('RPUSH', 'log:' .. ARGV[i], 'x') end return #ARGV";

const redis = stage === 'store' ? new Redis({ host: '127.0.0.1', port: redisPort }) : undefined;
const sha = redis ? String(await redis.script('LOAD', APPEND)) : '';

function serve(call: grpc.ServerDuplexStream<Buffer, Buffer>): void {
  let waiting: Buffer[] = [];
  let appending = false;
  const appendWaiting = async (): Promise<void> => {
    if (appending || waiting.length === 0) return;
    appending = true;
    const batch = waiting;
    waiting = [];
    await redis!.evalsha(sha, 0, ...batch.map((m) => String(m.readUInt32LE(0) % 100_000)));
    for (const m of batch) call.write(m);
    appending = false;
    void appendWaiting();
  };
  call.on('data', (message: Buffer) => {
    if (!redis) {
      call.write(message);
      return;
    }
    waiting.push(message);
    void appendWaiting();
  });
  call.on('end', () => call.end());
}

const server = new grpc.Server();
server.addService({ push: FLOOR_METHOD }, { push: serve });
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  process.send!(port);
});
process.on('disconnect', () => process.exit(0));
