/**
 * Ranking: the order in which Dispatch offers a session to the workers of a (possibly stale) load view.
 * It is advice only: admitCommit decides admission. A ranking orders the eligible workers; `candidates`
 * picks them and falls back to the ones the view may wrongly show as full.
 */
import { z } from 'zod';
import type { WorkerView } from '../store/steps.js';

/** Orders eligible workers, best first; returns a permutation of its input. */
export type Ranking = (eligible: readonly WorkerView[]) => WorkerView[];

/** Uniform in [0, 1), like Math.random. */
export type Random = () => number;

/** mulberry32: a small seeded generator, so that a p2c run can be replayed from its seed. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fewer tokens per slot first, then fewer published runtimes + queued inputs, then by id. */
export function compareLoad(a: WorkerView, b: WorkerView): number {
  return (
    a.tokens * b.cap - b.tokens * a.cap ||
    a.runtimes + a.queued - (b.runtimes + b.queued) ||
    (a.worker < b.worker ? -1 : a.worker > b.worker ? 1 : 0)
  );
}

export const leastLoaded: Ranking = (eligible) => [...eligible].sort(compareLoad);

/** Power of two choices: two eligible workers drawn at random, the better first, then the rest least-loaded. */
export function powerOfTwo(random: Random): Ranking {
  return (eligible) => {
    if (eligible.length < 2) return [...eligible];
    const i = Math.floor(random() * eligible.length);
    let j = Math.floor(random() * (eligible.length - 1));
    if (j >= i) j++;
    const pair = [eligible[i]!, eligible[j]!].sort(compareLoad);
    return [...pair, ...leastLoaded(eligible.filter((_, k) => k !== i && k !== j))];
  };
}

export const RankingName = z.enum(['least-loaded', 'p2c']);
export type RankingName = z.infer<typeof RankingName>;

/** The rankings a replica can be started with (--ranking), each made from the replica's random source. */
export const rankings: Record<RankingName, (random: Random) => Ranking> = {
  'least-loaded': () => leastLoaded,
  p2c: powerOfTwo,
};

const takesNewWork = (w: WorkerView, exclude: ReadonlySet<string>) =>
  w.live && !w.draining && !exclude.has(w.worker);

/** The workers the view shows live, not draining, with room, and not in `exclude`. */
export function eligible(view: readonly WorkerView[], exclude: ReadonlySet<string>): WorkerView[] {
  return view.filter((w) => takesNewWork(w, exclude) && w.tokens < w.cap);
}

/**
 * The workers to offer a session to, in order: the eligible ones, ranked; when the view shows none, the
 * live, non-draining ones least-loaded first, since the view may be stale. `exclude` names workers never
 * to offer (the source of a move).
 */
export function candidates(
  view: readonly WorkerView[],
  ranking: Ranking,
  exclude: ReadonlySet<string>,
): string[] {
  const room = eligible(view, exclude);
  const offers = room.length > 0 ? ranking(room) : leastLoaded(view.filter((w) => takesNewWork(w, exclude)));
  return offers.map((w) => w.worker);
}
