/**
 * The system demo: DHSched as separate processes (a private Redis, a media sink, 2 Dispatch replicas,
 * 3 Workers) driven over gRPC through a session's life — create, push, migrate with input in flight,
 * a worker killed with SIGKILL and its sessions recovered — then the history check on the audit stream.
 * Exits 0 when every input was released exactly once, in order, by the current generation.
 */
import { Redis } from 'ioredis';
import { checkHistory } from '../harness/history.js';
import { launchSystem } from '../impl/ops/launch.js';
import { dispatchClient, mediaSinkClient } from '../impl/rpc/client.js';
import type { Session } from '../impl/rpc/proto.js';
import { configureCell, openStore, readAudit } from '../impl/store/steps.js';

const cell = 'default';
const say = (line: string) => console.log(line);

async function until<T>(what: string, probe: () => Promise<T | false>, timeoutMs = 30_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const v = await probe();
    if (v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main(): Promise<number> {
  say('== starting: private redis-server, media sink, 2 Dispatch replicas, 3 Workers (capacity 4 each)');
  const system = await launchSystem({
    dispatchers: 2,
    workers: 3,
    capacity: 4,
    leaseTtlMs: 1500,
    recoveryMs: 200,
  });
  const redis = new Redis(system.redisUrl);
  try {
    const store = openStore(redis);
    await configureCell(store, { cell, audit: true });
    const [d1, d2] = system.dispatchers.map((d) => dispatchClient(d.addr));
    say(`   dispatch ${system.dispatchers.map((d) => d.addr).join(', ')}; logs in ${system.logDir}`);
    const sessions = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
    const pushed = new Map<string, number>();
    const push = async (session: string, text: string) => {
      const n = (pushed.get(session) ?? 0) + 1;
      pushed.set(session, n);
      await d2!.call('pushText', { cell, session, requestId: `${session}-${n}`, text });
    };
    const released = () =>
      until('every input released', async () => {
        const all: Session[] = await Promise.all(
          sessions.map((session) => d1!.call('getSession', { cell, session })),
        );
        return all.every((s) => s.phase === 'claimed' && s.releasedSeq === pushed.get(s.session)) && all;
      });
    const table = (all: Session[]) =>
      all.forEach((s) =>
        say(`   ${s.session.padEnd(6)} on ${s.worker} epoch ${s.epoch}, released ${s.releasedSeq}`),
      );

    say('\n== CreateLive on alternating replicas, then 3 lines of text each');
    for (const [k, session] of sessions.entries())
      await (k % 2 ? d2 : d1)!.call('createLive', { cell, session });
    for (const session of sessions)
      for (const line of ['Hello there.', 'How are you?', 'Fine, thanks.']) await push(session, line);
    table(await released());

    say('\n== Migrate alice twice while 20 more lines stream in');
    const streaming = (async () => {
      for (let i = 1; i <= 20; i++) await push('alice', `line ${i} of a long answer`);
    })();
    for (let k = 0; k < 2; k++) {
      const before = await d1!.call('getSession', { cell, session: 'alice' });
      const after = await d1!.call('migrate', {
        cell,
        session: 'alice',
        target: '',
        fromEpoch: before.epoch,
      });
      say(`   alice: ${before.worker} epoch ${before.epoch} → ${after.worker} epoch ${after.epoch}`);
    }
    await streaming;
    await released();

    const placed = await released();
    const victim = placed[0]!.worker;
    say(
      `\n== SIGKILL worker ${victim} (it runs ${placed
        .filter((s) => s.worker === victim)
        .map((s) => s.session)
        .join(', ')})`,
    );
    system.workers.find((w) => w.id === victim)!.signal('SIGKILL');
    for (const session of sessions) await push(session, 'Are you still there?');
    say('   lease expires; both replicas run recovery, the store lets one commit per session');
    table(await released());

    const sink = mediaSinkClient(system.sink.addr);
    const media = (await sink.call('stats', {})).sessions;
    sink.close();
    say('\n== media at the sink: frames of a superseded generation that arrive late are dropped');
    for (const m of media)
      say(
        `   ${m.session.padEnd(6)} epoch ${m.epoch}: ${m.accepted} frames accepted, ${m.dropped} dropped, last input ${m.lastSeq}`,
      );

    const history = checkHistory(await readAudit(store, { cell }), pushed);
    say(
      `\n== history: ${history.commits} commits, ${history.releases} releases, ${history.violations.length} violations`,
    );
    for (const v of history.violations) say(`   ${v.kind} ${v.session}#${v.seq}: ${v.detail}`);
    for (const c of [d1, d2]) c!.close();
    return history.violations.length === 0 ? 0 : 1;
  } finally {
    redis.disconnect();
    await system.stop();
  }
}

process.exitCode = await main();
