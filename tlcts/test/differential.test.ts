/**
 * A differential fuzzer: fast-check builds small specifications (an integer, a set, a sequence and a
 * function, updated by actions with guards, primes, `\in` choices and UNCHANGED) as a syntax tree;
 * the test prints each as a TLA+ module for tlcts and runs the same tree through a reference
 * breadth-first search written here, which evaluates it directly (ints, sets as bit masks, arrays).
 * The two must agree on TLC's figures: distinct states, states generated (every successor of every
 * action, duplicates included, a guard's true disjuncts each a branch) and depth.
 *
 * Every value stays in 0..3 (ints are taken % 4, sequences have at most two elements), so each
 * state space is small and no expression can fail.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { runCheck } from '../src/check/run.js';

type IntE =
  | { k: 'c'; v: number }
  | { k: 'x' | 'xp' }
  | { k: 'f'; i: 1 | 2 }
  | { k: 'len' }
  | { k: 'add'; a: IntE; b: IntE }
  | { k: 'card'; s: SetE }
  | { k: 'choose'; s: SetE }
  | { k: 'if'; c: BoolE; a: IntE; b: IntE };
type SetE =
  | { k: 'empty' | 's' }
  | { k: 'pair'; a: IntE; b: IntE }
  | { k: 'upto'; a: IntE }
  | { k: 'cup' | 'cap' | 'diff'; a: SetE; b: SetE }
  | { k: 'filter'; s: SetE; c: number };
type BoolE =
  | { k: 'eq' | 'lt'; a: IntE; b: IntE }
  | { k: 'in'; a: IntE; s: SetE }
  | { k: 'sub'; a: SetE; b: SetE }
  | { k: 'not'; a: BoolE }
  | { k: 'and' | 'or'; a: BoolE; b: BoolE }
  | { k: 'some'; s: SetE }
  | { k: 'all'; s: SetE; c: number };
interface Action {
  /** a conjunct that must hold, or none */
  guard: BoolE | null;
  /** x' = e, x' \in S, \E v \in S : x' = (v + c) % 4, or UNCHANGED x */
  x: { k: 'set'; e: IntE } | { k: 'in'; s: SetE } | { k: 'exists'; s: SetE; c: number } | { k: 'keep' };
  /** s' = S or UNCHANGED s; S may use x' */
  s: SetE | null;
  /** append e while Len(q) < 2, else Tail; or UNCHANGED q */
  q: IntE | null;
  /** [f EXCEPT ![i] = e] or UNCHANGED f */
  f: { i: 1 | 2; e: IntE } | null;
}
interface Spec {
  inits: number[];
  actions: Action[];
}

// ------------------------------------------------------------------------------------------------
// Generators: `primed` says whether x' may appear (after x's update).

const arbs = (primed: boolean) =>
  fc.letrec<{ int: IntE; set: SetE; bool: BoolE }>((tie) => ({
    int: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'e' },
      fc.record({ k: fc.constant('c' as const), v: fc.integer({ min: 0, max: 3 }) }),
      fc.constant({ k: primed ? ('xp' as const) : ('x' as const) }),
      fc.constant({ k: 'x' as const }),
      fc.record({ k: fc.constant('f' as const), i: fc.constantFrom(1 as const, 2 as const) }),
      fc.constant({ k: 'len' as const }),
      fc.record({ k: fc.constant('add' as const), a: tie('int'), b: tie('int') }),
      fc.record({ k: fc.constant('card' as const), s: tie('set') }),
      fc.record({ k: fc.constant('choose' as const), s: tie('set') }),
      fc.record({ k: fc.constant('if' as const), c: tie('bool'), a: tie('int'), b: tie('int') }),
    ),
    set: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'e' },
      fc.constant({ k: 'empty' as const }),
      fc.constant({ k: 's' as const }),
      fc.record({ k: fc.constant('pair' as const), a: tie('int'), b: tie('int') }),
      fc.record({ k: fc.constant('upto' as const), a: tie('int') }),
      fc.record({
        k: fc.constantFrom('cup' as const, 'cap' as const, 'diff' as const),
        a: tie('set'),
        b: tie('set'),
      }),
      fc.record({ k: fc.constant('filter' as const), s: tie('set'), c: fc.integer({ min: 0, max: 3 }) }),
    ),
    bool: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'e' },
      fc.record({ k: fc.constantFrom('eq' as const, 'lt' as const), a: tie('int'), b: tie('int') }),
      fc.record({ k: fc.constant('in' as const), a: tie('int'), s: tie('set') }),
      fc.record({ k: fc.constant('sub' as const), a: tie('set'), b: tie('set') }),
      fc.record({ k: fc.constant('not' as const), a: tie('bool') }),
      fc.record({ k: fc.constantFrom('and' as const, 'or' as const), a: tie('bool'), b: tie('bool') }),
      fc.record({ k: fc.constant('some' as const), s: tie('set') }),
      fc.record({ k: fc.constant('all' as const), s: tie('set'), c: fc.integer({ min: 0, max: 3 }) }),
    ),
  }));

const unprimed = arbs(false);
const afterX = arbs(true);

const actionArb: fc.Arbitrary<Action> = fc.record({
  guard: fc.oneof({ weight: 1, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: unprimed.bool }),
  x: fc.oneof(
    fc.record({ k: fc.constant('set' as const), e: unprimed.int }),
    fc.record({ k: fc.constant('in' as const), s: unprimed.set }),
    fc.record({ k: fc.constant('exists' as const), s: unprimed.set, c: fc.integer({ min: 0, max: 3 }) }),
    fc.constant({ k: 'keep' as const }),
  ),
  s: fc.option(afterX.set, { nil: null }),
  q: fc.option(afterX.int, { nil: null }),
  f: fc.option(fc.record({ i: fc.constantFrom(1 as const, 2 as const), e: afterX.int }), { nil: null }),
});

const specArb: fc.Arbitrary<Spec> = fc.record({
  inits: fc.uniqueArray(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 3 }),
  actions: fc.array(actionArb, { minLength: 1, maxLength: 3 }),
});

// ------------------------------------------------------------------------------------------------
// The module tlcts checks.

const tInt = (e: IntE): string => {
  switch (e.k) {
    case 'c':
      return String(e.v);
    case 'x':
      return 'x';
    case 'xp':
      return "x'";
    case 'f':
      return `f[${e.i}]`;
    case 'len':
      return 'Len(q)';
    case 'add':
      return `((${tInt(e.a)} + ${tInt(e.b)}) % 4)`;
    case 'card':
      return `(Cardinality(${tSet(e.s)}) % 4)`;
    case 'choose':
      return `(LET c == ${tSet(e.s)} IN IF c = {} THEN 0 ELSE CHOOSE m \\in c : TRUE)`;
    case 'if':
      return `(IF ${tBool(e.c)} THEN ${tInt(e.a)} ELSE ${tInt(e.b)})`;
  }
};
const tSet = (e: SetE): string => {
  switch (e.k) {
    case 'empty':
      return '{}';
    case 's':
      return 's';
    case 'pair':
      return `{${tInt(e.a)}, ${tInt(e.b)}}`;
    case 'upto':
      return `(0..${tInt(e.a)})`;
    case 'cup':
      return `(${tSet(e.a)} \\cup ${tSet(e.b)})`;
    case 'cap':
      return `(${tSet(e.a)} \\cap ${tSet(e.b)})`;
    case 'diff':
      return `(${tSet(e.a)} \\ ${tSet(e.b)})`;
    case 'filter':
      return `{n \\in ${tSet(e.s)} : n > ${e.c}}`;
  }
};
const tBool = (e: BoolE): string => {
  switch (e.k) {
    case 'eq':
      return `(${tInt(e.a)} = ${tInt(e.b)})`;
    case 'lt':
      return `(${tInt(e.a)} < ${tInt(e.b)})`;
    case 'in':
      return `(${tInt(e.a)} \\in ${tSet(e.s)})`;
    case 'sub':
      return `(${tSet(e.a)} \\subseteq ${tSet(e.b)})`;
    case 'not':
      return `(~${tBool(e.a)})`;
    case 'and':
      return `(${tBool(e.a)} /\\ ${tBool(e.b)})`;
    case 'or':
      return `(${tBool(e.a)} \\/ ${tBool(e.b)})`;
    case 'some':
      return `(\\E m \\in ${tSet(e.s)} : m = x)`;
    case 'all':
      return `(\\A m \\in ${tSet(e.s)} : m >= ${e.c})`;
  }
};

function moduleText(spec: Spec): string {
  const actions = spec.actions.map((a, i) => {
    const x =
      a.x.k === 'set'
        ? `x' = ${tInt(a.x.e)}`
        : a.x.k === 'in'
          ? `x' \\in ${tSet(a.x.s)}`
          : a.x.k === 'exists'
            ? `\\E v \\in ${tSet(a.x.s)} : x' = (v + ${a.x.c}) % 4`
            : 'UNCHANGED x';
    const s = a.s ? `s' = ${tSet(a.s)}` : 'UNCHANGED s';
    const q = a.q ? `q' = IF Len(q) < 2 THEN Append(q, ${tInt(a.q)}) ELSE Tail(q)` : 'UNCHANGED q';
    const f = a.f ? `f' = [f EXCEPT ![${a.f.i}] = ${tInt(a.f.e)}]` : 'UNCHANGED f';
    return `A${i} == /\\ ${a.guard ? tBool(a.guard) : 'TRUE'}\n      /\\ ${x}\n      /\\ ${s}\n      /\\ ${q}\n      /\\ ${f}`;
  });
  return [
    '---- MODULE Fuzz ----',
    'EXTENDS Naturals, FiniteSets, Sequences',
    'VARIABLES x, s, q, f',
    `Init == x \\in {${spec.inits.join(', ')}} /\\ s = {} /\\ q = <<>> /\\ f = [i \\in 1..2 |-> 0]`,
    ...actions,
    `Next == ${spec.actions.map((_, i) => `A${i}`).join(' \\/ ')}`,
    '====',
    '',
  ].join('\n');
}

// ------------------------------------------------------------------------------------------------
// The reference: the tree evaluated directly, sets as bit masks over 0..3.

interface St {
  x: number;
  s: number;
  q: number[];
  f: [number, number];
}
interface Env {
  cur: St;
  xNext?: number;
}

const bits = (m: number) => [0, 1, 2, 3].filter((i) => m & (1 << i));
const card = (m: number) => bits(m).length;

const rInt = (e: IntE, env: Env): number => {
  switch (e.k) {
    case 'c':
      return e.v;
    case 'x':
      return env.cur.x;
    case 'xp':
      return env.xNext!;
    case 'f':
      return env.cur.f[e.i - 1]!;
    case 'len':
      return env.cur.q.length;
    case 'add':
      return (rInt(e.a, env) + rInt(e.b, env)) % 4;
    case 'card':
      return card(rSet(e.s, env)) % 4;
    case 'choose':
      // TLC's CHOOSE takes the first element in its order of values: the least integer
      return bits(rSet(e.s, env))[0] ?? 0;
    case 'if':
      return rBool(e.c, env) ? rInt(e.a, env) : rInt(e.b, env);
  }
};
const rSet = (e: SetE, env: Env): number => {
  switch (e.k) {
    case 'empty':
      return 0;
    case 's':
      return env.cur.s;
    case 'pair':
      return (1 << rInt(e.a, env)) | (1 << rInt(e.b, env));
    case 'upto':
      return (1 << (rInt(e.a, env) + 1)) - 1;
    case 'cup':
      return rSet(e.a, env) | rSet(e.b, env);
    case 'cap':
      return rSet(e.a, env) & rSet(e.b, env);
    case 'diff':
      return rSet(e.a, env) & ~rSet(e.b, env);
    case 'filter':
      return bits(rSet(e.s, env))
        .filter((n) => n > e.c)
        .reduce((m, n) => m | (1 << n), 0);
  }
};
const rBool = (e: BoolE, env: Env): boolean => {
  switch (e.k) {
    case 'eq':
      return rInt(e.a, env) === rInt(e.b, env);
    case 'lt':
      return rInt(e.a, env) < rInt(e.b, env);
    case 'in':
      return (rSet(e.s, env) & (1 << rInt(e.a, env))) !== 0;
    case 'sub': {
      const a = rSet(e.a, env);
      return (a & rSet(e.b, env)) === a;
    }
    case 'not':
      return !rBool(e.a, env);
    case 'and':
      return rBool(e.a, env) && rBool(e.b, env);
    case 'or':
      return rBool(e.a, env) || rBool(e.b, env);
    case 'some':
      return (rSet(e.s, env) & (1 << env.cur.x)) !== 0;
    case 'all':
      return bits(rSet(e.s, env)).every((m) => m >= e.c);
  }
};

/**
 * How many times an action's guard lets its step through, as TLC evaluates a conjunct of an action
 * (docs/tlc-semantics.md, 1.2): every true disjunct of a \/ is a branch of its own, a /\ multiplies the
 * branches of its sides, and anything else (a ~ included) is a value, one branch if TRUE.
 */
const branches = (e: BoolE, env: Env): number => {
  if (e.k === 'or') return branches(e.a, env) + branches(e.b, env);
  if (e.k === 'and') {
    const left = branches(e.a, env);
    return left === 0 ? 0 : left * branches(e.b, env);
  }
  return rBool(e, env) ? 1 : 0;
};

function successors(a: Action, cur: St): St[] {
  const n = a.guard ? branches(a.guard, { cur }) : 1;
  return Array.from({ length: n }, () => update(a, cur)).flat();
}

/** The states an action's updates give from cur (one branch of its guard). */
function update(a: Action, cur: St): St[] {
  const x = a.x;
  // \E enumerates its bound: each v a branch, even where two give the same x'
  const xs =
    x.k === 'set'
      ? [rInt(x.e, { cur })]
      : x.k === 'in'
        ? bits(rSet(x.s, { cur }))
        : x.k === 'exists'
          ? bits(rSet(x.s, { cur })).map((v) => (v + x.c) % 4)
          : [cur.x];
  return xs.map((xNext) => {
    const env = { cur, xNext };
    const f: [number, number] = [...cur.f];
    if (a.f) f[a.f.i - 1] = rInt(a.f.e, env);
    return {
      x: xNext,
      s: a.s ? rSet(a.s, env) : cur.s,
      q: a.q ? (cur.q.length < 2 ? [...cur.q, rInt(a.q, env)] : cur.q.slice(1)) : cur.q,
      f,
    };
  });
}

/** TLC's figures by breadth-first search: distinct, generated (duplicates included), depth. */
function reference(spec: Spec): { distinct: number; generated: number; depth: number } {
  const seen = new Set<string>();
  const key = (st: St) => JSON.stringify(st);
  let queue: St[] = [];
  let generated = 0;
  for (const x of spec.inits) {
    generated++;
    const st: St = { x, s: 0, q: [], f: [0, 0] };
    if (!seen.has(key(st))) {
      seen.add(key(st));
      queue.push(st);
    }
  }
  let depth = 1;
  while (queue.length > 0) {
    const next: St[] = [];
    for (const cur of queue) {
      for (const a of spec.actions) {
        for (const succ of successors(a, cur)) {
          generated++;
          if (seen.has(key(succ))) continue;
          seen.add(key(succ));
          next.push(succ);
        }
      }
    }
    if (next.length > 0) depth++;
    queue = next;
  }
  return { distinct: seen.size, generated, depth };
}

// ------------------------------------------------------------------------------------------------

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tlcts-fuzz-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('differential fuzzing against a reference search', () => {
  it('agrees on distinct states, states generated and depth for random specifications', () => {
    const tlaFile = path.join(dir, 'Fuzz.tla');
    const cfgFile = path.join(dir, 'Fuzz.cfg');
    fs.writeFileSync(cfgFile, 'INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n');
    fc.assert(
      fc.property(specArb, (spec) => {
        fs.writeFileSync(tlaFile, moduleText(spec));
        const { result } = runCheck({ tlaFile, cfgFile });
        const got = {
          exitCode: result.exitCode,
          distinct: result.distinctStates,
          generated: result.generatedStates,
          depth: result.depth,
        };
        expect(got, moduleText(spec)).toEqual({ exitCode: 0, ...reference(spec) });
      }),
      { numRuns: 300, seed: 20261205 },
    );
  }, 120_000);
});
