/**
 * A temporal formula evaluated on a lasso: the states, then forever the cycle from `loop` to the
 * last state (TLC's `LiveExprNode#evalOnLasso`). TLC names the violated properties this way.
 */
import type { Value } from '../values/value.js';
import type { Live } from './formula.js';

export function holdsOnLasso(e: Live, states: readonly Value[][], loop: number, pos = 0): boolean {
  switch (e.k) {
    case 'bool':
      return e.b;
    case 'state':
      return e.atom.eval(states[pos]!, null);
    case 'action':
      return e.atom.eval(states[pos]!, states[pos + 1 < states.length ? pos + 1 : loop]!);
    case 'neg':
      return !holdsOnLasso(e.body, states, loop, pos);
    case 'and':
      return e.items.every((x) => holdsOnLasso(x, states, loop, pos));
    case 'or':
      return e.items.some((x) => holdsOnLasso(x, states, loop, pos));
    case 'always':
    case 'even': {
      // From pos on, every (some) position: the rest of the prefix, then the whole cycle.
      const want = e.k === 'even';
      for (const i of positions(states.length, loop, pos))
        if (holdsOnLasso(e.body, states, loop, i) === want) return want;
      return !want;
    }
    case 'next':
      return holdsOnLasso(e.body, states, loop, pos + 1 < states.length ? pos + 1 : loop);
  }
}

function* positions(n: number, loop: number, pos: number): Generator<number> {
  for (let i = pos; i < loop; i++) yield i;
  for (let i = loop; i < n; i++) yield i;
}
