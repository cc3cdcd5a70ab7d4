/**
 * The particle tableau of a temporal formula without actions (Manna & Pnueli's PART-TAB, as TLC's
 * `TBPar`/`TBGraph` build it): nodes are particles, sets of formulas a state may satisfy; the
 * initial nodes are the particles of the formula; a node's successors are the particles of what
 * its ()-formulas require of the next state.
 */
import { TlaError } from '../errors.js';
import { STATE } from './level.js';
import { level, next, same, type Live } from './formula.js';

export interface TableauNode {
  readonly index: number;
  readonly par: readonly Live[];
  readonly nexts: TableauNode[];
  /** The particle's constant and state formulas: a state must satisfy them to pair with this node. */
  readonly statePreds: readonly Live[];
}

export class Tableau {
  readonly nodes: TableauNode[] = [];
  /** Nodes [0, initCount) are the initial ones. */
  readonly initCount: number;

  constructor(tf: Live) {
    for (const par of particleClosure([tf])) this.add(par);
    this.initCount = this.nodes.length;
    for (let i = 0; i < this.nodes.length; i++) {
      const src = this.nodes[i]!;
      const implied = src.par.flatMap((x) => (x.k === 'next' ? [x.body] : []));
      for (const par of particleClosure(implied)) {
        src.nexts.push(this.nodes.find((n) => sameParticle(n.par, par)) ?? this.add(par));
      }
    }
  }

  private add(par: Live[]): TableauNode {
    const node: TableauNode = {
      index: this.nodes.length,
      par,
      nexts: [],
      statePreds: par.filter((x) => level(x) <= STATE),
    };
    this.nodes.push(node);
    return node;
  }
}

/** A particle fulfils the promise <>p if it does not contain it or contains p. */
export function fulfils(par: readonly Live[], promise: Live & { k: 'even' }): boolean {
  return !member(par, promise) || member(par, promise.body);
}

const member = (par: readonly Live[], e: Live): boolean => par.some((x) => same(e, x));

const sameParticle = (a: readonly Live[], b: readonly Live[]): boolean =>
  a.every((x) => member(b, x)) && b.every((x) => member(a, x));

interface Triple {
  a: Live;
  b: Live;
  c: Live;
}

/** All particles containing the terms. */
function particleClosure(terms: Live[]): Live[][] {
  const closure = positiveClosure(terms);
  const alphas: Triple[] = [];
  const betas: Triple[] = [];
  for (const x of closure) {
    const al = alpha(x);
    if (al) alphas.push({ a: x, b: al[0], c: al[1] });
    const be = beta(x);
    if (be) betas.push({ a: x, b: be[0], c: be[1] });
  }
  return closeAlpha(terms, alphas, betas);
}

/** []p holds with p and ()[]p; p /\ q with p and q. */
function alpha(x: Live): [Live, Live] | undefined {
  if (x.k === 'always') return [x.body, next(x)];
  if (x.k === 'and') return [x.items[0]!, x.items[1]!];
  return undefined;
}

/** <>p holds with p or ()<>p; p \/ q with p or q. */
function beta(x: Live): [Live, Live] | undefined {
  if (x.k === 'even') return [x.body, next(x)];
  if (x.k === 'or') return [x.items[0]!, x.items[1]!];
  return undefined;
}

function closeAlpha(terms: Live[], alphas: Triple[], betas: Triple[]): Live[][] {
  if (!locallyConsistent(terms)) return [];
  const out = terms.slice();
  // []p expands to p, ()[]p; p /\ q to p, q.
  for (let i = 0; i < out.length; i++) {
    for (const k of alpha(out[i]!) ?? []) if (!member(out, k)) out.push(k);
  }
  // And back: p, ()[]p give []p; p, q give p /\ q.
  for (let changed = true; changed;) {
    changed = false;
    for (const t of alphas) {
      if (member(out, t.b) && member(out, t.c) && !member(out, t.a)) {
        out.push(t.a);
        changed = true;
      }
    }
  }
  if (out.length > terms.length && !locallyConsistent(out)) return [];
  return closeBeta(out, alphas, betas);
}

function closeBeta(terms: Live[], alphas: Triple[], betas: Triple[]): Live[][] {
  // <>p branches to p or ()<>p; p \/ q to p or q.
  for (const x of terms) {
    const [k1, k2] = beta(x) ?? [];
    if (!k1 || !k2 || member(terms, k1) || member(terms, k2)) continue;
    const left = closeAlpha([...terms, k1], alphas, betas);
    const right = closeAlpha([...terms, k2], alphas, betas);
    return [...left.filter((p) => !right.some((q) => sameParticle(p, q))), ...right];
  }
  for (const t of betas) {
    if ((member(terms, t.b) || member(terms, t.c)) && !member(terms, t.a))
      return closeAlpha([...terms, t.a], alphas, betas);
  }
  return [terms];
}

/** No state formula together with its negation. */
function locallyConsistent(terms: readonly Live[]): boolean {
  const positive = terms.filter((x) => x.k === 'state' || x.k === 'bool');
  const negated = terms.flatMap((x) =>
    x.k === 'neg' && (x.body.k === 'state' || x.body.k === 'bool') ? [x.body] : [],
  );
  return !positive.some((p) => member(negated, p));
}

/** The terms and their positive subterms, with ()-formulas for [] and <> (MP p. 452). */
function positiveClosure(terms: readonly Live[]): Live[] {
  const todo = terms.slice();
  const out: Live[] = [];
  while (todo.length > 0) {
    const x = todo.pop()!;
    switch (x.k) {
      case 'neg':
        todo.push(x.body);
        break;
      case 'next':
        out.push(x);
        todo.push(x.body);
        break;
      case 'even':
      case 'always':
        out.push(x, next(x));
        todo.push(x.body);
        break;
      case 'and':
      case 'or':
        todo.push(...x.items);
        out.push(x);
        break;
      case 'state':
      case 'bool':
        out.push(x);
        break;
      case 'action':
        throw new TlaError('TLC encountered actions when computing closure.', 255);
    }
  }
  return out;
}
