import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INTEGERS } from '../src/stdlib/integers.js';
import { NATURALS } from '../src/stdlib/naturals.js';
import { isSubsetEq, powerSet, setCap, setCup, setDiff } from '../src/stdlib/core.js';
import {
  FcnValue,
  FiniteSet,
  IntervalSet,
  LazyFcn,
  Record,
  type SetValue,
  Tuple,
  type Value,
  compare,
  equals,
  fcnFromPairs,
  modelValue,
  recordOf,
  setOf,
  show,
} from '../src/values/value.js';

/** A value type: values of one type can always be compared with each other. */
type Ty =
  | { k: 'int' }
  | { k: 'bool' }
  | { k: 'str' }
  | { k: 'mv' }
  | { k: 'set'; e: Ty }
  | { k: 'seq'; e: Ty }
  | { k: 'rec'; e: Ty }
  | { k: 'fcn'; e: Ty };

const tyArb: fc.Arbitrary<Ty> = fc.letrec<{ ty: Ty }>((tie) => ({
  ty: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'ty' },
    fc.constant<Ty>({ k: 'int' }),
    fc.constant<Ty>({ k: 'bool' }),
    fc.constant<Ty>({ k: 'str' }),
    fc.constant<Ty>({ k: 'mv' }),
    tie('ty').map((e): Ty => ({ k: 'set', e })),
    tie('ty').map((e): Ty => ({ k: 'seq', e })),
    tie('ty').map((e): Ty => ({ k: 'rec', e })),
    tie('ty').map((e): Ty => ({ k: 'fcn', e })),
  ),
})).ty;

const MODEL_VALUES = ['m1', 'm2', 'm3'].map(modelValue);

function valueArb(ty: Ty): fc.Arbitrary<Value> {
  switch (ty.k) {
    case 'int':
      return fc.integer({ min: -3, max: 3 });
    case 'bool':
      return fc.boolean();
    case 'str':
      return fc.constantFrom('a', 'b', 'c');
    case 'mv':
      return fc.constantFrom(...MODEL_VALUES);
    case 'set':
      return fc.array(valueArb(ty.e), { maxLength: 4 }).map(setOf);
    case 'seq':
      return fc.array(valueArb(ty.e), { maxLength: 3 }).map((a) => new Tuple(a));
    case 'rec':
      return fc
        .uniqueArray(fc.tuple(fc.constantFrom('x', 'y', 'z'), valueArb(ty.e)), {
          selector: (p) => p[0],
          minLength: 1,
        })
        .map((ps) => recordOf(ps.map(([name, value]) => ({ name, value }))));
    case 'fcn':
      return fc
        .uniqueArray(fc.tuple(fc.integer({ min: 0, max: 3 }), valueArb(ty.e)), {
          selector: (p) => p[0],
          maxLength: 3,
        })
        .map(fcnFromPairs);
  }
}

const pairArb = tyArb.chain((ty) => fc.tuple(valueArb(ty), valueArb(ty)));
const tripleArb = tyArb.chain((ty) => fc.tuple(valueArb(ty), valueArb(ty), valueArb(ty)));

/** The pairs of an explicit function, in its key order. */
function pairsOf(f: FcnValue): [Value, Value][] {
  const m = f.materialize();
  return Array.from({ length: m.size() }, (_, i): [Value, Value] => [m.keyAt(i), m.valAt(i)]);
}

/** An equal value built another way: sets shuffled with duplicates, functions as other representations. */
function rebuild(v: Value, depth = 0): Value {
  if (typeof v !== 'object' || !(v instanceof FiniteSet || v instanceof FcnValue)) return v;
  if (v instanceof FiniteSet) {
    const elems = v.elems.map((e) => rebuild(e, depth + 1)).reverse();
    return setOf([...elems, ...elems.slice(0, 2)]);
  }
  const pairs = pairsOf(v).map(([k, x]): [Value, Value] => [rebuild(k, depth + 1), rebuild(x, depth + 1)]);
  if (depth % 2 === 1 || pairs.length === 0) return fcnFromPairs(pairs.reverse());
  const dom = v instanceof Tuple ? new IntervalSet(1, pairs.length) : setOf(pairs.map((p) => p[0]));
  return new LazyFcn(dom, (k) => pairs.find((p) => equals(p[0], k))![1]);
}

const sameFp = (a: Value, b: Value) => {
  const fa = typeof a === 'object' ? a.fingerprint() : null;
  const fb = typeof b === 'object' ? b.fingerprint() : null;
  return fa === null || fb === null ? equals(a, b) : fa[0] === fb[0] && fa[1] === fb[1];
};

describe('value semantics (property tests)', () => {
  it('equal values have the same fingerprint', () => {
    fc.assert(
      fc.property(pairArb, ([a, b]) => {
        if (equals(a, b)) expect(sameFp(a, b)).toBe(true);
      }),
    );
  });

  it('a value rebuilt another way is equal, compares 0 and has the same fingerprint', () => {
    fc.assert(
      fc.property(
        tyArb.chain((ty) => valueArb(ty)),
        (v) => {
          const w = rebuild(v);
          expect(equals(v, w), `${show(v)} vs ${show(w)}`).toBe(true);
          expect(equals(w, v)).toBe(true);
          expect(compare(v, w)).toBe(0);
          expect(sameFp(v, w)).toBe(true);
        },
      ),
    );
  });

  it('set equality ignores order and duplicates', () => {
    fc.assert(
      fc.property(
        tyArb.chain((ty) =>
          fc
            .array(valueArb(ty), { maxLength: 6 })
            .chain((a) =>
              fc.tuple(fc.constant(a), fc.shuffledSubarray(a, { minLength: a.length }), fc.subarray(a)),
            ),
        ),
        ([a, shuffled, dups]) => {
          const s = setOf([...a]);
          const t = setOf([...shuffled, ...dups]);
          expect(equals(s, t)).toBe(true);
          expect(sameFp(s, t)).toBe(true);
          expect(t.size()).toBe(s.size());
        },
      ),
    );
  });

  it('records equal the functions with the same string keys', () => {
    fc.assert(
      fc.property(
        tyArb.chain((ty) =>
          fc.uniqueArray(fc.tuple(fc.constantFrom('p', 'q', 'r', 's'), valueArb(ty)), {
            selector: (p) => p[0],
            minLength: 1,
          }),
        ),
        (pairs) => {
          const r = recordOf(pairs.map(([name, value]) => ({ name, value })));
          const f = fcnFromPairs([...pairs].reverse());
          const lazy = new LazyFcn(setOf(pairs.map((p) => p[0])), (k) => pairs.find((p) => p[0] === k)![1]);
          expect(r).toBeInstanceOf(Record);
          for (const g of [f, lazy]) {
            expect(equals(r, g)).toBe(true);
            expect(compare(r, g)).toBe(0);
            expect(sameFp(r, g)).toBe(true);
          }
        },
      ),
    );
  });

  it('tuples equal the functions on 1..n', () => {
    fc.assert(
      fc.property(
        tyArb.chain((ty) => fc.array(valueArb(ty), { maxLength: 5 })),
        (elems) => {
          const t = new Tuple(elems);
          const f = fcnFromPairs(elems.map((v, i): [Value, Value] => [i + 1, v]).reverse());
          const lazy = new LazyFcn(new IntervalSet(1, elems.length), (i) => elems[(i as number) - 1]!);
          expect(f).toBeInstanceOf(Tuple);
          for (const g of [f, lazy]) {
            expect(equals(t, g)).toBe(true);
            expect(sameFp(t, g)).toBe(true);
          }
        },
      ),
    );
  });

  it('compare is a total order consistent with equality on values of one type', () => {
    const sign = (n: number) => Math.sign(n);
    fc.assert(
      fc.property(tripleArb, ([a, b, c]) => {
        expect(sign(compare(a, b)) + sign(compare(b, a))).toBe(0);
        expect(compare(a, b) === 0).toBe(equals(a, b));
        expect(compare(a, a)).toBe(0);
        if (compare(a, b) <= 0 && compare(b, c) <= 0) expect(compare(a, c)).toBeLessThanOrEqual(0);
      }),
    );
  });
});

/** Sets of small integers, explicit, as intervals, lazy, or infinite. */
const intSetArb: fc.Arbitrary<SetValue> = fc.oneof(
  fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 5 }).map(setOf),
  fc
    .tuple(fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 }))
    .map(([lo, hi]) => new IntervalSet(lo, hi)),
  fc
    .tuple(fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 3 }), fc.integer({ min: -3, max: 3 }))
    .map(([a, x]) => setDiff(new IntervalSet(-3, 3), setOf([...a, x])) as SetValue),
  fc
    .constantFrom(NATURALS.ops.get('Nat')!, INTEGERS.ops.get('Int')!)
    .map((b) => b.fn([], undefined!, undefined!) as SetValue),
);

describe('set operators (property tests)', () => {
  it('\\cup, \\cap and \\ agree with membership, also on infinite sets', () => {
    fc.assert(
      fc.property(intSetArb, intSetArb, (a, b) => {
        const cup = setCup(a, b) as SetValue;
        const cap = setCap(a, b) as SetValue;
        const diff = setDiff(a, b) as SetValue;
        for (let x = -5; x <= 5; x++) {
          expect(cup.has(x)).toBe(a.has(x) || b.has(x));
          expect(cap.has(x)).toBe(a.has(x) && b.has(x));
          expect(diff.has(x)).toBe(a.has(x) && !b.has(x));
        }
        expect(cup.isFinite()).toBe(a.isFinite() && b.isFinite());
      }),
    );
  });

  it('satisfies the laws of union, intersection and difference on finite sets', () => {
    const finite = intSetArb.filter((s) => s.isFinite());
    fc.assert(
      fc.property(finite, finite, (a, b) => {
        const cup = setCup(a, b) as SetValue;
        const cap = setCap(a, b) as SetValue;
        const diff = setDiff(a, b) as SetValue;
        expect(equals(cup, setCup(b, a))).toBe(true);
        expect(equals(cap, setCap(b, a))).toBe(true);
        expect(isSubsetEq(cap, a) && isSubsetEq(a, cup) && isSubsetEq(diff, a)).toBe(true);
        expect((setCap(diff, b) as SetValue).size()).toBe(0);
        expect(equals(setCup(diff, b), cup)).toBe(true);
        expect(cup.size() + cap.size()).toBe(a.size() + b.size());
      }),
    );
  });

  it('SUBSET S has 2^n elements, each a subset of S, enumerated in sorted order', () => {
    fc.assert(
      fc.property(
        tyArb.chain((ty) => fc.array(valueArb(ty), { maxLength: 5 })),
        (elems) => {
          const s = setOf(elems);
          const p = powerSet(s);
          const n = s.size();
          expect(p.size()).toBe(2 ** n);
          const all = p.toArray();
          expect(all.length).toBe(2 ** n);
          for (let i = 0; i < all.length; i++) {
            expect(isSubsetEq(all[i]!, s)).toBe(true);
            expect(p.has(all[i]!)).toBe(true);
            if (i > 0) expect(compare(all[i - 1]!, all[i]!)).toBeLessThan(0);
          }
        },
      ),
    );
  });
});

describe('typed model values (TLC ModelValue: a name x_... has type x)', () => {
  it('compare with their own type and untyped ones, and refuse other types and non-model values', () => {
    const [a1, a2, b1, plain] = ['A_1', 'A_2', 'B_1', 'p1'].map(modelValue) as Value[];
    expect(equals(a1!, a2!)).toBe(false);
    expect(equals(a1!, plain!)).toBe(false);
    expect(setOf([a2!, plain!, a1!]).size()).toBe(3);
    expect(() => equals(a1!, b1!)).toThrow(
      'Attempted to check equality of the differently-typed model values A_1 and B_1',
    );
    expect(() => compare(a1!, b1!)).toThrow(
      'Attempted to compare the differently-typed model values A_1 and B_1',
    );
    expect(() => equals(a1!, 1)).toThrow(
      'Attempted to check equality of typed model value A_1 and non-model value\n1',
    );
    expect(() => equals(1, a1!)).toThrow(
      'Attempted to check equality of the typed model value A_1 and the non-model value\n1',
    );
    expect(() => setOf([a1!, 1]).size()).toThrow('Attempted to compare the typed model value A_1');
    // Untyped ones still compare with anything (unequal, ordered after).
    expect(equals(plain!, 1)).toBe(false);
    expect(setOf([plain!, 1]).size()).toBe(2);
  });
});
