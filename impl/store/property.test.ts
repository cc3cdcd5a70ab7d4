/**
 * Random interleavings of every step, from random callers — Dispatch replicas acting on stale reads,
 * stale and current runtimes, crashing and re-registering workers, a clock that expires leases — never
 * violate the spec's invariants as read back from Redis: NoDualRelease, InOrder, NoStaleRelease,
 * NoDuplicateInput, NoCapacityOvershoot (tokens and runtimes; every live runtime holds its token) and
 * EpochMonotone (each epoch of a session names one worker).
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { inCell } from '../test-support/cell.js';
import { dropCell, loggedRequests, newCell, useStore } from '../test-support/redis.js';
import { StoreCode, isStoreError } from './codes.js';
import { tokenOf } from './keys.js';
import type { Generation } from './steps.js';

const f = useStore();
const T0 = 1_700_000_000_000;
const TTL = 1_000;
const WORKERS = ['w1', 'w2', 'w3'];
const S = ['s1', 's2', 's3'];

const pick = fc.nat(15);
const Op = fc.oneof(
  { weight: 8, arbitrary: fc.record({ t: fc.constant('begin'), d: fc.nat(1), s: fc.nat(2), w: fc.nat(2) }) },
  { weight: 8, arbitrary: fc.record({ t: fc.constant('commit'), d: fc.nat(1) }) },
  { weight: 6, arbitrary: fc.record({ t: fc.constant('move'), s: fc.nat(2), w: fc.nat(2) }) },
  { weight: 8, arbitrary: fc.record({ t: fc.constant('claim'), i: pick }) },
  { weight: 6, arbitrary: fc.record({ t: fc.constant('reconstruct'), i: pick }) },
  { weight: 12, arbitrary: fc.record({ t: fc.constant('release'), i: pick }) },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('replay'), i: pick, back: fc.integer({ min: -2, max: 1 }) }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('fence'), i: pick }) },
  { weight: 5, arbitrary: fc.record({ t: fc.constant('teardown'), i: pick }) },
  { weight: 10, arbitrary: fc.record({ t: fc.constant('append'), s: fc.nat(2), r: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('close'), s: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('drain'), w: fc.nat(2) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('tick'), dt: fc.nat(TTL / 2) }) },
  { weight: 8, arbitrary: fc.record({ t: fc.constant('renew'), w: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('crash'), w: fc.nat(2) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('register'), w: fc.nat(2) }) },
);
type Op = typeof Op extends fc.Arbitrary<infer T> ? T : never;

interface Runtime {
  w: string;
  s: string;
  e: number;
  cur: number;
  ph: 'new' | 'ready' | 'stopping';
}
interface Pending {
  s: string;
  to: string;
  expected: { worker: string; epoch: number } | null;
}

/** What the runs exercised, so that the property is not vacuous. */
const seen = { releases: 0, lostAuthority: 0, stale: 0, commits: 0, conflicts: 0, registrations: 0 };

/** Expected refusals are outcomes; anything else fails the run. */
async function attempt<T>(p: Promise<T>): Promise<T | StoreCode> {
  try {
    return await p;
  } catch (err) {
    if (isStoreError(err) && err.code > StoreCode.INVALID_INPUT) return err.code;
    throw err;
  }
}
const refused = (x: unknown): x is StoreCode => typeof x === 'number' && x < 0;

async function run(caps: number[], ops: Op[]): Promise<void> {
  const W = WORKERS.slice(0, caps.length);
  const worker = (i: number) => W[i % W.length]!;
  const cell = newCell();
  const c = inCell(f.store, cell);
  let now = T0;
  const incarnation = new Map<string, number>();
  const up = new Map<string, boolean>();
  const pending = new Map<number, Pending>();
  const sent: [string, string, number][] = [];
  let rts: Runtime[] = [];
  const rels = new Map<string, number[]>();
  const epochWorker = new Map<string, string>();
  const lastGen = new Map<string, Generation>();
  try {
    for (const [i, w] of W.entries()) {
      incarnation.set(w, (await c.register(w, caps[i]!, now, TTL)).incarnation);
      up.set(w, true);
    }
    const rt = (i: number, ph?: Runtime['ph']) => {
      const xs = rts.filter((r) => up.get(r.w) && (ph === undefined || r.ph === ph));
      return xs.length === 0 ? undefined : xs[i % xs.length];
    };
    const begin = async (d: number, si: number, wi: number) => {
      const s = S[si]!;
      const to = worker(wi);
      const g = await c.gen(s);
      if (g === null) pending.set(d, { s, to, expected: null });
      else if (g.phase !== 'closed' && g.worker !== to)
        pending.set(d, { s, to, expected: { worker: g.worker, epoch: g.epoch } });
    };
    const commit = async (d: number) => {
      const p = pending.get(d);
      if (!p) return;
      pending.delete(d);
      const r = await attempt(
        p.expected === null
          ? c.create(p.s, p.to, now)
          : c.move(p.s, [p.expected.worker, p.expected.epoch], p.to, now),
      );
      if (refused(r)) seen.conflicts += r === StoreCode.CONFLICT ? 1 : 0;
      else {
        seen.commits++;
        sent.push([p.to, p.s, r]);
      }
    };
    for (const op of ops) {
      switch (op.t) {
        case 'begin':
          await begin(op.d, op.s, op.w);
          break;
        case 'commit':
          await commit(op.d);
          break;
        case 'move': // a begin and its commit at once, by a third replica
          await begin(2, op.s, op.w);
          await commit(2);
          break;
        case 'claim': {
          if (sent.length === 0) break;
          const [w, s, e] = sent[sent.length - 1 - (op.i % sent.length)]!; // recent ones first
          if (!up.get(w) || rts.some((r) => r.w === w && r.s === s && r.e === e)) break;
          if ((await c.claim(w, s, e)) === 'claimed') rts.push({ w, s, e, cur: 0, ph: 'new' });
          else seen.stale++;
          break;
        }
        case 'reconstruct': {
          const r = rt(op.i, 'new');
          if (!r) break;
          r.cur = (await c.released(r.s)).seq;
          r.ph = 'ready';
          break;
        }
        case 'release':
        case 'replay': {
          // a replay is a runtime, buggy or duplicated, asking for some other seq than its next
          const r = rt(op.i, 'ready');
          if (!r) break;
          const seq = Math.max(1, r.cur + 1 + (op.t === 'replay' ? op.back : 0));
          const log = await loggedRequests(f.redis, cell, r.s);
          if (seq > log.length) break; // as in the spec: only an appended input
          const out = await attempt(c.release(r.w, r.s, r.e, seq));
          if (out === StoreCode.LOST_AUTHORITY) {
            seen.lostAuthority++;
            if (op.t === 'release') r.ph = 'stopping';
          } else if (!refused(out)) {
            seen.releases++;
            // NoStaleRelease: the store released it while (w, e) was the current claimed generation
            expect(await c.gen(r.s)).toEqual({ worker: r.w, epoch: r.e, phase: 'claimed' });
            expect(out.requestId).toBe(log[seq - 1]);
            // a replay of the last release is its retry: answered again, nothing released
            if (seq === r.cur) break;
            rels.set(r.s, [...(rels.get(r.s) ?? []), seq]);
            r.cur = seq;
          }
          break;
        }
        case 'fence': {
          const r = rt(op.i);
          if (!r || r.ph === 'stopping') break;
          const g = await c.gen(r.s);
          if (!(g && g.worker === r.w && g.epoch === r.e && g.phase === 'claimed')) r.ph = 'stopping';
          break;
        }
        case 'teardown': {
          const r = rt(op.i, 'stopping');
          if (!r) break;
          await c.teardown(r.w, r.s, r.e);
          rts = rts.filter((x) => x !== r);
          break;
        }
        case 'append':
          await attempt(c.append(S[op.s]!, `r${op.r}`));
          break;
        case 'close':
          await attempt(c.close(S[op.s]!));
          break;
        case 'drain':
          await c.drain(worker(op.w));
          break;
        case 'tick':
          now += op.dt;
          break;
        case 'renew': {
          const w = worker(op.w);
          if (up.get(w)) await attempt(c.renew(w, incarnation.get(w)!, now, TTL));
          break;
        }
        case 'crash': {
          const w = worker(op.w);
          up.set(w, false);
          rts = rts.filter((r) => r.w !== w);
          break;
        }
        case 'register': {
          const w = worker(op.w);
          const r = await attempt(c.register(w, caps[W.indexOf(w)]!, now, TTL));
          if (refused(r)) break;
          seen.registrations++;
          incarnation.set(w, r.incarnation);
          up.set(w, true);
          rts = rts.filter((x) => x.w !== w); // the new incarnation stops every runtime it had
          break;
        }
      }

      // The invariants, read back from Redis after every step (one round of concurrent reads).
      const [logs, gens, workers] = await Promise.all([
        Promise.all(S.map((s) => loggedRequests(f.redis, cell, s))),
        Promise.all(S.map((s) => c.gen(s))),
        Promise.all(W.map((w) => c.worker(w, now))),
      ]);
      for (const [j, s] of S.entries()) {
        const seqs = rels.get(s) ?? [];
        expect(seqs, `InOrder / NoDualRelease for ${s}`).toEqual(seqs.map((_, i) => i + 1));
        expect(new Set(logs[j]).size, `NoDuplicateInput for ${s}`).toBe(logs[j]!.length);
        const g = gens[j];
        const before = lastGen.get(s);
        if (g) {
          expect(g.epoch, `EpochMonotone for ${s}`).toBeGreaterThanOrEqual(before?.epoch ?? 0);
          const named = epochWorker.get(`${s}|${g.epoch}`) ?? g.worker;
          expect(g.worker, `epoch ${g.epoch} of ${s} names one worker`).toBe(named);
          epochWorker.set(`${s}|${g.epoch}`, g.worker);
          lastGen.set(s, g);
        } else expect(before, `${s} lost its generation`).toBeUndefined();
      }
      for (const [i, w] of W.entries()) {
        const { tokens } = workers[i]!;
        expect(tokens.length, `NoCapacityOvershoot (tokens) on ${w}`).toBeLessThanOrEqual(caps[i]!);
        const alive = rts.filter((r) => r.w === w);
        expect(alive.length, `NoCapacityOvershoot (runtimes) on ${w}`).toBeLessThanOrEqual(caps[i]!);
        const held = new Set(tokens.map((t) => tokenOf(t.session, t.epoch)));
        for (const r of alive)
          expect(held.has(tokenOf(r.s, r.e)), `runtime ${r.s}|${r.e} holds its token`).toBe(true);
      }
    }
  } finally {
    await dropCell(f.redis, cell);
  }
}

it('random steps from random callers keep every invariant of the spec', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: WORKERS.length }),
      fc.array(Op, { minLength: 60, maxLength: 150 }),
      run,
    ),
    { numRuns: 200, seed: Number(process.env['DHSCHED_SEED'] ?? 20240601) },
  );
  expect(seen.releases).toBeGreaterThan(100);
  expect(seen.lostAuthority).toBeGreaterThan(0);
  expect(seen.stale).toBeGreaterThan(0);
  expect(seen.conflicts).toBeGreaterThan(0);
  expect(seen.registrations).toBeGreaterThan(0);
});
