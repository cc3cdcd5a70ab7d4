/**
 * A worker thread of scripts/bench-ownership: runs one lane (bench.ts `runLane`) of the job in
 * its workerData, posts how many runs ended every second, then its tally.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type LaneJob, type Tally, runLane } from './bench.js';

export type LaneMessage = { kind: 'progress'; done: number } | { kind: 'tally'; tally: Tally };

const port = parentPort;
if (!port) throw new Error('harness/ownership/lane.js runs as a worker thread');
let done = 0;
const timer = setInterval(() => port.postMessage({ kind: 'progress', done } satisfies LaneMessage), 1000);
const tally = await runLane(workerData as LaneJob, () => void done++);
clearInterval(timer);
port.postMessage({ kind: 'tally', tally } satisfies LaneMessage);
