/**
 * Temporal formulas as TLC's liveness checker represents them (`tlc2.tool.liveness.LiveExprNode`
 * and its subclasses): boolean constants, state and action predicates (atoms), negation,
 * conjunction, disjunction, [], <> and, for the tableau only, the next-state operator ().
 * The rewritings (simplify, pushNeg, toDNF, makeBinary, ...) keep TLC's shapes, since the number
 * of branches TLC reports and the grouping of disjuncts by tableau depend on them.
 */
import type { Value } from '../values/value.js';
import { TlaError } from '../errors.js';
import { ACTION, CONSTANT, STATE, TEMPORAL } from './level.js';

/** TLC counts the disjuncts of the normal form in a Java int. */
const MAX_DISJUNCTS = 2 ** 31 - 1;

/** A state or action predicate of a temporal formula, evaluated by the model. */
export interface Atom {
  /** Index of the atom among all atoms of the model (a key for cached results). */
  readonly id: number;
  /** s: the state; t: its successor (action atoms only). */
  readonly eval: (s: Value[], t: Value[] | null) => boolean;
}

export type Live =
  | { readonly k: 'bool'; readonly b: boolean }
  | { readonly k: 'state'; readonly atom: Atom }
  | { readonly k: 'action'; readonly atom: Atom }
  | { readonly k: 'neg'; readonly body: Live }
  | { readonly k: 'and'; readonly items: Live[] }
  | { readonly k: 'or'; readonly items: Live[] }
  | { readonly k: 'always'; readonly body: Live }
  | { readonly k: 'even'; readonly body: Live }
  | { readonly k: 'next'; readonly body: Live };

export const TRUE: Live = { k: 'bool', b: true };
export const FALSE: Live = { k: 'bool', b: false };

export const neg = (body: Live): Live => ({ k: 'neg', body });
export const always = (body: Live): Live => ({ k: 'always', body });
export const even = (body: Live): Live => ({ k: 'even', body });
export const next = (body: Live): Live => ({ k: 'next', body });

/** A two-element conjunction or disjunction, nested junctions kept (TLC's two-argument constructors). */
export const and2 = (a: Live, b: Live): Live => ({ k: 'and', items: [a, b] });
export const or2 = (a: Live, b: Live): Live => ({ k: 'or', items: [a, b] });

/** A junction built by adding items one by one: nested junctions of the same kind are flattened. */
function junction<K extends 'and' | 'or'>(k: K, items: readonly Live[]): Live & { k: K } {
  const out: Live[] = [];
  for (const x of items)
    if (x.k === k) out.push(...(x as Live & { k: K }).items);
    else out.push(x);
  return { k, items: out } as Live & { k: K };
}

export const conj = (items: readonly Live[]) => junction('and', items);
export const disj = (items: readonly Live[]) => junction('or', items);

export function level(e: Live): number {
  switch (e.k) {
    case 'bool':
      return CONSTANT;
    case 'state':
      return STATE;
    case 'action':
    case 'next':
      return ACTION;
    case 'neg':
      return level(e.body);
    case 'and':
    case 'or':
      return e.items.reduce((l, x) => Math.max(l, level(x)), CONSTANT);
    case 'always':
    case 'even':
      return TEMPORAL;
  }
}

/** Whether e has an action predicate (`containAction`). */
export function containsAction(e: Live): boolean {
  switch (e.k) {
    case 'action':
      return true;
    case 'bool':
    case 'state':
      return false;
    case 'and':
    case 'or':
      return e.items.some(containsAction);
    default:
      return containsAction(e.body);
  }
}

/** Syntactic equality; atoms are equal only to themselves (TLC's tags). */
export function same(a: Live, b: Live): boolean {
  if (a === b) return true;
  switch (a.k) {
    case 'bool':
      return b.k === 'bool' && a.b === b.b;
    case 'state':
    case 'action':
      return b.k === a.k && a.atom === b.atom;
    case 'and':
    case 'or':
      return (
        b.k === a.k && a.items.length === b.items.length && a.items.every((x, i) => same(x, b.items[i]!))
      );
    default:
      return b.k === a.k && same(a.body, (b as { body: Live }).body);
  }
}

/** Removes boolean constants from junctions and collapses [][] and <><> (`LiveExprNode#simplify`). */
export function simplify(e: Live): Live {
  switch (e.k) {
    case 'and':
    case 'or': {
      const isAnd = e.k === 'and';
      const kept: Live[] = [];
      for (const x of e.items) {
        const y = simplify(x);
        if (y.k === 'bool') {
          if (y.b !== isAnd) return y;
        } else kept.push(y);
      }
      if (kept.length === 0) return isAnd ? TRUE : FALSE;
      if (kept.length === 1) return kept[0]!;
      return junction(e.k, kept);
    }
    case 'neg': {
      const body = simplify(e.body);
      return body.k === 'bool' ? { k: 'bool', b: !body.b } : neg(body);
    }
    case 'always':
    case 'even': {
      const body = simplify(e.body);
      return { k: e.k, body: body.k === e.k ? body.body : body };
    }
    default:
      return e;
  }
}

/** Pushes a negation one level down, recursively through the temporal operators (`#pushNeg`). */
function pushNeg(e: Live): Live {
  switch (e.k) {
    case 'and':
      return disj(e.items.map(pushNeg));
    case 'or':
      return conj(e.items.map(pushNeg));
    case 'neg':
      return e.body;
    case 'always':
      return even(pushNeg(e.body));
    case 'even':
      return always(pushNeg(e.body));
    case 'bool':
      return { k: 'bool', b: !e.b };
    default:
      return neg(e);
  }
}

/** Disjunctive normal form over the junctions outside temporal operators (`#toDNF`). */
export function toDNF(e: Live): Live {
  switch (e.k) {
    case 'neg':
      return e.body.k === 'state' || e.body.k === 'action' ? e : toDNF(pushNeg(e.body));
    case 'and':
      return conjToDNF(e.items.map(toDNF));
    case 'or': {
      // []<>A1 \/ []<>A2 is []<>(A1 \/ A2).
      const infinitely: Live[] = [];
      const rest: Live[] = [];
      for (const x of e.items) {
        const d = toDNF(x);
        for (const y of d.k === 'or' ? d.items : [d]) {
          if (y.k === 'always' && y.body.k === 'even') infinitely.push(y.body.body);
          else rest.push(y);
        }
      }
      if (infinitely.length === 1) rest.push(always(even(infinitely[0]!)));
      else if (infinitely.length > 1) rest.push(always(even(disj(infinitely))));
      return disj(rest);
    }
    default:
      return e;
  }
}

/** The cross product of conjuncts in DNF, in TLC's order (`LNConj#toDNF`). */
function conjToDNF(parts: Live[]): Live {
  const nes: Live[] = [];
  let total = 1;
  for (const p of parts) {
    if (p.k === 'or') {
      nes.push(p);
      total *= p.items.length;
      if (total > MAX_DISJUNCTS) {
        throw new TlaError(
          'TLC cannot handle the temporal formula because it exceeds the maximum supported size in disjunctive normal form.',
          255,
        );
      }
    } else if (p.k === 'and') nes.push(...p.items);
    else nes.push(p);
  }
  if (total === 1) return { k: 'and', items: nes };
  const res: Live[][] = Array.from({ length: total }, () => []);
  const add = (i: number, x: Live) => {
    if (x.k === 'and') res[i]!.push(...x.items);
    else res[i]!.push(x);
  };
  let num = 1;
  let rCount = total;
  for (const ln of nes) {
    if (ln.k === 'or') {
      const n = ln.items.length;
      rCount /= n;
      let idx = 0;
      for (let j = 0; j < num; j++)
        for (let k = 0; k < n; k++) for (let l = 0; l < rCount; l++) add(idx++, ln.items[k]!);
      num *= n;
    } else for (let j = 0; j < total; j++) add(j, ln);
  }
  return { k: 'or', items: res.map((items) => ({ k: 'and', items })) };
}

/** Removes one-element junctions and double negations (`#flattenSingleJunctions`). */
export function flattenSingle(e: Live): Live {
  switch (e.k) {
    case 'and':
    case 'or':
      if (e.items.length === 1) return flattenSingle(e.items[0]!);
      return junction(e.k, e.items.map(flattenSingle));
    case 'neg':
      return e.body.k === 'neg' ? flattenSingle(e.body.body) : neg(flattenSingle(e.body));
    case 'always':
    case 'even':
    case 'next':
      return { k: e.k, body: flattenSingle(e.body) };
    default:
      return e;
  }
}

/** Makes every junction binary, balanced (`#makeBinary`); the tableau construction needs it. */
export function makeBinary(e: Live): Live {
  switch (e.k) {
    case 'and':
    case 'or': {
      if (e.items.length === 1) return makeBinary(e.items[0]!);
      const mid = Math.floor(e.items.length / 2);
      const left = makeBinary(junction(e.k, e.items.slice(0, mid)));
      const right = makeBinary(junction(e.k, e.items.slice(mid)));
      return { k: e.k, items: [left, right] };
    }
    case 'neg':
    case 'always':
    case 'even':
    case 'next':
      return { k: e.k, body: makeBinary(e.body) };
    default:
      return e;
  }
}

/** The promises <>p of a binary formula, each once (`#extractPromises`). */
export function promises(e: Live, out: Live[] = []): (Live & { k: 'even' })[] {
  switch (e.k) {
    case 'even':
      if (!out.some((p) => same(p, e))) out.push(e);
      promises(e.body, out);
      break;
    case 'and':
    case 'or':
      promises(e.items[0]!, out);
      promises(e.items[1]!, out);
      break;
    case 'neg':
    case 'always':
    case 'next':
      promises(e.body, out);
      break;
  }
  return out as (Live & { k: 'even' })[];
}
