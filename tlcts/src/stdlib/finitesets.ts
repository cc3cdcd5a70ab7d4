/** FiniteSets, as TLC's class tlc2.module.FiniteSets overrides it. */
import { show, type Value } from '../values/value.js';
import { unary, type BuiltinModule } from './builtin.js';
import { defineModule, isEnumerable, isFiniteValue, moduleError } from './core.js';

export function cardinality(v: Value): number {
  if (!isEnumerable(v)) throw moduleError(`Attempted to compute cardinality of the value\n${show(v)}`);
  return v.size();
}

export const FINITESETS: BuiltinModule = defineModule('FiniteSets', [], {
  IsFiniteSet: { arity: 1, fn: (a) => isFiniteValue(a[0] as Value) },
  Cardinality: unary(cardinality),
});
