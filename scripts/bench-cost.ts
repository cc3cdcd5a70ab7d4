/**
 * Per-request store cost, measured on a real system (private Redis, 1 Dispatch replica, 2 Workers as
 * processes): every command Redis receives is captured with MONITOR and attributed to its store step
 * (EVALSHA's script hash) or command. Counts CreateLive and PushText in separate windows, subtracting
 * the background steps (lease renewals, load publishing, load-view refreshes, recovery scans), which are
 * reported per second instead. Prints a table; the last line is the result as one JSON object, also
 * written to bench/cost.json.
 * Usage: node dist/scripts/bench-cost.js [--sessions N] [--pushes N]
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Redis } from 'ioredis';
import { fileName, integer, option, program as cliProgram, runScript } from '../impl/cli/flags.js';
import { launchSystem } from '../impl/ops/launch.js';
import { dispatchClient } from '../impl/rpc/client.js';
import { scripts } from '../impl/store/scripts.js';
import { type Store, openStore, readGen, readRelease } from '../impl/store/steps.js';

const program = cliProgram('bench-cost', 'Redis round trips per CreateLive and per PushText on a real system')
  .addOption(option('--sessions <n>', 'CreateLive calls', integer(1, 10_000)).default(200))
  .addOption(
    option('--pushes <n>', 'PushText calls (round-robin over the sessions)', integer(1, 100_000)).default(
      1000,
    ),
  )
  .addOption(option('--out <file>', 'results file', fileName).default('bench/cost.json'));

const byHash = new Map(
  [...scripts().values()].map((s) => [createHash('sha1').update(s.lua).digest('hex'), s.step]),
);

/** A command as MONITOR reports it → the store step (EVALSHA's script) or the command's name. */
function stepOf(args: string[]): string {
  const cmd = args[0]!.toLowerCase();
  if (cmd === 'evalsha') return byHash.get(args[1]!) ?? 'evalsha:unknown';
  return cmd === 'eval' ? 'eval (script load)' : cmd;
}

async function main(): Promise<number> {
  const o = program.parse().opts<{ sessions: number; pushes: number; out: string }>();
  const system = await launchSystem({ dispatchers: 1, workers: 2, capacity: o.sessions, leaseTtlMs: 3000 });
  const monitor = new Redis(system.redisUrl);
  // the bench's own polling goes through this connection and is not counted
  const observer = new Redis(system.redisUrl);
  const store = openStore(observer);
  await observer.ping();
  const observerAddr = `127.0.0.1:${(observer as unknown as { stream: { localPort: number } }).stream.localPort}`;
  const counts = new Map<string, Map<string, number>>();
  let phase = 'warmup';
  await (monitor as unknown as { monitor(): Promise<NodeJS.EventEmitter> }).monitor().then((m) =>
    m.on('monitor', (_time: string, args: string[], source: string) => {
      if (source === observerAddr) return;
      // a command a script runs is reported with source 'lua': inside a step, not a round trip
      const key = source === 'lua' ? `${phase}:in-script` : phase;
      const c = counts.get(key) ?? new Map<string, number>();
      const step = stepOf(args);
      c.set(step, (c.get(step) ?? 0) + 1);
      counts.set(key, c);
    }),
  );
  const d = dispatchClient(system.dispatchers[0]!.addr);
  const window = async (name: string, body: () => Promise<void>) => {
    phase = name;
    const t0 = performance.now();
    await body();
    const ms = performance.now() - t0;
    phase = 'between';
    return ms;
  };
  const sessions = Array.from({ length: o.sessions }, (_, i) => `cost${i}`);
  await new Promise((r) => setTimeout(r, 1000));
  const idleMs = await window('idle', () => new Promise((r) => setTimeout(r, 5000)));
  const createMs = await window('create', async () => {
    for (const session of sessions) await d.call('createLive', { cell: 'default', session });
    await settle(store, sessions, 0);
  });
  const pushMs = await window('push', async () => {
    for (let i = 0; i < o.pushes; i++) {
      const session = sessions[i % sessions.length]!;
      await d.call('pushText', { cell: 'default', session, requestId: `r${i}`, text: `input number ${i}` });
    }
    await settle(store, sessions, Math.floor(o.pushes / sessions.length));
  });
  d.close();
  monitor.disconnect();
  observer.disconnect();
  await system.stop();

  /** Per call, by step, net of what the same steps cost while idle over the same time. */
  const perCall = (name: string, n: number, ms: number) => {
    const idle = counts.get(name.replace(/^[a-z]+/, 'idle')) ?? new Map<string, number>();
    const row: Record<string, number> = {};
    let total = 0;
    for (const [step, k] of counts.get(name) ?? new Map<string, number>()) {
      const net = (k - ((idle.get(step) ?? 0) * ms) / idleMs) / n;
      if (net >= 0.005) row[step] = Math.round(net * 100) / 100;
      total += Math.max(0, net);
    }
    return { total: Math.round(total * 100) / 100, byStep: row };
  };
  const perSecond = (name: string) =>
    Object.fromEntries(
      [...(counts.get(name) ?? new Map<string, number>())].map(([s, k]) => [
        s,
        Math.round((k / idleMs) * 10_000) / 10,
      ]),
    );
  const cost = (name: string, n: number, ms: number) => ({
    calls: n,
    roundTripsPerCall: perCall(name, n, ms),
    commandsInScriptsPerCall: perCall(`${name}:in-script`, n, ms),
  });
  const result = {
    date: new Date().toISOString(),
    system: '1 Dispatch replica, 2 Workers, private Redis, separate processes; Dispatch and Workers together',
    createLive: cost('create', o.sessions, createMs),
    pushText: cost('push', o.pushes, pushMs),
    idlePerSecond: { roundTrips: perSecond('idle'), commandsInScripts: perSecond('idle:in-script') },
  };
  for (const [what, r] of [
    ['CreateLive', result.createLive],
    ['PushText', result.pushText],
  ] as const) {
    console.log(
      `${what}: ${r.roundTripsPerCall.total} Redis round trips per call ${JSON.stringify(r.roundTripsPerCall.byStep)}`,
    );
    console.log(`  commands run inside those scripts per call: ${r.commandsInScriptsPerCall.total}`);
  }
  console.log(`idle system, round trips per second: ${JSON.stringify(result.idlePerSecond.roundTrips)}`);
  fs.mkdirSync('bench', { recursive: true });
  fs.writeFileSync(o.out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result));
  return 0;
}

/** Waits until every session is claimed and has released `n` inputs. */
async function settle(store: Store, sessions: string[], n: number) {
  for (const session of sessions) {
    for (;;) {
      const gen = await readGen(store, { cell: 'default', session });
      const rel = await readRelease(store, { cell: 'default', session, fromSeq: Number.MAX_SAFE_INTEGER });
      if (gen?.phase === 'claimed' && rel.seq >= n) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

runScript('bench-cost', main);
