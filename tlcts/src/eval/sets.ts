/** Set and function constructors of the language: [S -> T], [a: S], S \X T, EXCEPT. */
import {
  FcnValue,
  LazySet,
  Record,
  SetValue,
  Tuple,
  compareStrings,
  fcnOf,
  show,
  type ExplicitFcn,
  type Value,
} from '../values/value.js';
import { EvalError } from '../values/errors.js';

function requireFinite(s: SetValue, what: () => string): readonly Value[] {
  if (!s.isFinite())
    throw new EvalError(
      `Attempted to enumerate a set of the form ${what()}, but ${s.describe()} cannot be enumerated.`,
    );
  return s.normalized().elems;
}

/** Odometer over value lists, last position fastest; calls fn with the current choice. */
function odometer(lists: readonly (readonly Value[])[], fn: (choice: Value[]) => void | boolean): void {
  if (lists.some((l) => l.length === 0)) return;
  const idx = lists.map(() => 0);
  const choice = lists.map((l) => l[0]!);
  for (;;) {
    if (fn(choice.slice()) === false) return;
    let i = lists.length - 1;
    while (i >= 0) {
      idx[i]!++;
      if (idx[i]! < lists[i]!.length) {
        choice[i] = lists[i]![idx[i]!]!;
        break;
      }
      idx[i] = 0;
      choice[i] = lists[i]![0]!;
      i--;
    }
    if (i < 0) return;
  }
}

/** [S -> T]. */
export function fcnSetOf(dom: SetValue, rng: SetValue): SetValue {
  const name = () => `[${dom.describe()} -> ${rng.describe()}]`;
  return new LazySet(
    'SetOfFcnsValue',
    name,
    (v) => {
      if (!(v instanceof FcnValue)) return false;
      const f = v.materialize();
      if (f.size() !== dom.size()) return false;
      for (let i = 0; i < f.size(); i++) if (!dom.has(f.keyAt(i)) || !rng.has(f.valAt(i))) return false;
      return true;
    },
    (fn) => {
      const keys = requireFinite(dom, name);
      const vals = requireFinite(rng, name);
      if (keys.length === 0) {
        fn(fcnOf([], []));
        return;
      }
      odometer(
        keys.map(() => vals),
        (choice) => fn(fcnOf(keys, choice)),
      );
    },
    () => Math.pow(rng.size(), dom.size()),
    dom.isFinite() && rng.isFinite(),
  );
}

/** [a: S, b: T]. */
export function recordSetOf(fields: { name: string; set: SetValue }[]): SetValue {
  const sorted = [...fields].sort((x, y) => compareStrings(x.name, y.name));
  const names = sorted.map((f) => f.name);
  const name = () => `[${fields.map((f) => `${f.name}: ${f.set.describe()}`).join(', ')}]`;
  return new LazySet(
    'SetOfRcdsValue',
    name,
    (v) => {
      if (!(v instanceof Record) || v.names.length !== names.length) return false;
      for (let i = 0; i < names.length; i++) {
        if (v.names[i] !== names[i] || !sorted[i]!.set.has(v.vals[i]!)) return false;
      }
      return true;
    },
    (fn) =>
      odometer(
        sorted.map((f) => requireFinite(f.set, name)),
        (choice) => fn(new Record(names, choice)),
      ),
    () => sorted.reduce((n, f) => n * f.set.size(), 1),
    sorted.every((f) => f.set.isFinite()),
  );
}

/** S1 \X S2 \X ... */
export function productOf(sets: SetValue[]): SetValue {
  const name = () => sets.map((s) => s.describe()).join(' \\X ');
  return new LazySet(
    'SetOfTuplesValue',
    name,
    (v) => {
      if (!(v instanceof Tuple) || v.elems.length !== sets.length) return false;
      return sets.every((s, i) => s.has(v.elems[i]!));
    },
    (fn) =>
      odometer(
        sets.map((s) => requireFinite(s, name)),
        (choice) => fn(new Tuple(choice)),
      ),
    () => sets.reduce((n, s) => n * s.size(), 1),
    sets.every((s) => s.isFinite()),
  );
}

/** [f EXCEPT ![k1][k2]... = update(@)]; a key outside the domain leaves f unchanged, as in TLC. */
export function exceptAt(f: Value, keys: Value[], i: number, update: (old: Value) => Value): Value {
  if (i === keys.length) return update(f);
  if (!(f instanceof FcnValue)) {
    throw new EvalError(`Attempted to apply EXCEPT to ${show(f)}, which is not a function.`);
  }
  const explicit: ExplicitFcn = f.materialize();
  const idx = explicit.indexOf(keys[i]!);
  if (idx < 0) return explicit;
  return explicit.withIndex(idx, exceptAt(explicit.valAt(idx), keys, i + 1, update));
}
