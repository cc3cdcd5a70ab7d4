/**
 * Graphs (CommunityModules): directed graphs as records [node |-> N, edge |-> E], E a set of pairs
 * <<from, to>>. SimplePath, AreConnectedIn and IsStronglyConnected follow TLC's Java overrides
 * (argument checks and messages; elements of G.edge that are not pairs of nodes are no edges);
 * the other operators compute the module's definitions. Path(G), an infinite set, has membership
 * only, as in TLC.
 */
import {
  EMPTY_SET,
  EMPTY_TUPLE,
  FiniteSet,
  InfiniteSet,
  Record as Rcd,
  type SetValue,
  Tuple,
  equals,
  kindOf,
  recordOf,
  setOf,
  type Value,
} from '../values/value.js';
import { productOf, recordSetOf } from '../eval/sets.js';
import type { BuiltinModule } from './builtin.js';
import {
  argError,
  asFcn,
  asSetEnum,
  asTuple,
  bigUnion,
  defineModule,
  isSubsetEq,
  powerSet,
  setCap,
  setCup,
} from './core.js';
import { apply, asSet, closeTransitively, elementsOf, pairFcn, select } from './ops.js';
import { seqSet } from './sequences.js';

const nodesOf = (g: Value): Value => select(g, 'node');
const edgesOf = (g: Value): Value => select(g, 'edge');
const pair = (x: Value, y: Value): Tuple => new Tuple([x, y]);

/** [node |-> nodes, edge |-> edges]. */
function graphRecord(nodes: Value, edges: Value): Value {
  return recordOf([
    { name: 'node', value: nodes },
    { name: 'edge', value: edges },
  ]);
}

function isDirectedGraph(g: Value): boolean {
  const nodes = nodesOf(g);
  const edges = edgesOf(g);
  if (!equals(g, graphRecord(nodes, edges))) return false;
  return isSubsetEq(edges, productOf([asSet(nodes), asSet(nodes)]));
}

/** DirectedSubgraph(G): every [node |-> N, edge |-> E] with N \subseteq G.node, E \subseteq G.edge \cap (N \X N). */
function directedSubgraphs(g: Value): SetValue {
  const edges = edgesOf(g);
  const out: Value[] = [];
  powerSet(nodesOf(g)).forEach((n) => {
    powerSet(setCap(edges, productOf([n as SetValue, n as SetValue]))).forEach((e) => {
      out.push(graphRecord(n, e));
    });
  });
  return setOf(out);
}

function isUndirectedGraph(g: Value): boolean {
  const edges = asSet(edgesOf(g));
  return isDirectedGraph(g) && elementsOf(edges).every((e) => edges.has(pair(apply(e, 2), apply(e, 1))));
}

/** Path(G) == {p \in Seq(G.node) : p # <<>> /\ \A i \in 1..(Len(p)-1) : <<p[i], p[i+1]>> \in G.edge}. */
function paths(g: Value): SetValue {
  const edges = asSet(edgesOf(g));
  const seqs = seqSet(asSet(nodesOf(g)));
  return new InfiniteSet(
    () =>
      `{p \\in ${seqs.describe()} : p # <<>> /\\ \\A i \\in 1..(Len(p)-1) : <<p[i], p[i+1]>> \\in G.edge}`,
    (v) => {
      if (!seqs.has(v) || equals(v, EMPTY_TUPLE)) return false;
      const xs = asTuple(v)!.elems;
      return xs.slice(1).every((y, i) => edges.has(pair(xs[i]!, y)));
    },
  );
}

// ---------------------------------------------------------------------------------------------------
// The overrides: a checked graph and its adjacency

/** A graph's nodes and, for each, its successors as indexes (also UndirectedGraphs' neighbours). */
export interface Graph {
  nodes: readonly Value[];
  /** Successors of the node at each index, as indexes. */
  next: number[][];
}

/** TLC's toGraph check, then the arcs of the edges that are pairs of nodes. */
function graphArg(op: string, nth: string, v: Value): Graph {
  const g = asFcn(v);
  const bad = (detail: string) => argError(nth, op, `graph record ${detail}`, v);
  if (!(g instanceof Rcd)) throw bad('with a node and an edge field');
  const nodeSet = g.get('node');
  const edgeSet = g.get('edge');
  const nodes = nodeSet === undefined ? null : asSetEnum(nodeSet);
  if (nodes === null) throw bad('whose node field is a set');
  const edges = edgeSet === undefined ? null : asSetEnum(edgeSet);
  if (edges === null) throw bad('whose edge field is a set');
  const next: number[][] = nodes.elems.map(() => []);
  for (const e of edges.elems) {
    const t = asTuple(e);
    if (t === null || t.elems.length !== 2) continue;
    const from = nodeIndex(nodes.elems, t.elems[0]!);
    const to = nodeIndex(nodes.elems, t.elems[1]!);
    if (from >= 0 && to >= 0) next[from]!.push(to);
  }
  return { nodes: nodes.elems, next };
}

/** The index of x among nodes, found as a Java HashMap key is: values of another kind are unequal. */
/** The index of x among nodes, comparing only values of the same kind (never an error). */
export function nodeIndex(nodes: readonly Value[], x: Value): number {
  return nodes.findIndex((n) => kindOf(n) === kindOf(x) && equals(n, x));
}

/** The indexes of the nodes reachable from `from` (itself included), breadth first. */
/** The indexes of the nodes reached from `from` (itself included), breadth first. */
export function reachable(g: Graph, from: number, arcs: number[][] = g.next): Set<number> {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length > 0) {
    for (const n of arcs[queue.shift()!]!) {
      if (!seen.has(n)) {
        seen.add(n);
        queue.push(n);
      }
    }
  }
  return seen;
}

function simplePaths(v: Value): SetValue {
  return simplePathsOf(graphArg('SimplePath', 'first', v));
}

/** The paths of g that visit no node twice, as tuples of nodes. */
export function simplePathsOf(g: Graph): SetValue {
  const out: Value[] = [];
  const path: number[] = [];
  const extend = (n: number): void => {
    path.push(n);
    out.push(new Tuple(path.map((i) => g.nodes[i]!)));
    for (const m of g.next[n]!) if (!path.includes(m)) extend(m);
    path.pop();
  };
  g.nodes.forEach((_, i) => extend(i));
  return setOf(out);
}

function areConnectedIn(m: Value, n: Value, v: Value): boolean {
  return connectedIn(graphArg('AreConnectedIn', 'third', v), m, n);
}

/** Whether m and n are nodes of g with a path from m to n. */
export function connectedIn(g: Graph, m: Value, n: Value): boolean {
  const from = nodeIndex(g.nodes, m);
  const to = nodeIndex(g.nodes, n);
  return from >= 0 && to >= 0 && reachable(g, from).has(to);
}

function isStronglyConnected(v: Value): boolean {
  const g = graphArg('IsStronglyConnected', 'first', v);
  if (g.nodes.length === 0) return true;
  const back: number[][] = g.nodes.map(() => []);
  g.next.forEach((succ, i) => succ.forEach((j) => back[j]!.push(i)));
  return reachable(g, 0).size === g.nodes.length && reachable(g, 0, back).size === g.nodes.length;
}

// ---------------------------------------------------------------------------------------------------
// Definitions over G.node and G.edge

/**
 * ConnectionsIn(G): [m, n \in G.node |-> m = n or a path from m to n], by Warshall's algorithm
 * from m = n \/ <<m, n>> \in G.edge.
 */
function connections(g: Value): boolean[][] {
  const nodes = elementsOf(nodesOf(g));
  const edges = asSet(edgesOf(g));
  return closeTransitively(nodes.map((m) => nodes.map((n) => equals(m, n) || edges.has(pair(m, n)))));
}

/** HasCycle(G) == \E m, n \in G.node : ConnectionsIn(G)[m, n] /\ <<n, m>> \in G.edge. */
function hasCycle(g: Value): boolean {
  const nodes = elementsOf(nodesOf(g));
  const edges = asSet(edgesOf(g));
  const c = connections(g);
  return nodes.some((m, i) => nodes.some((n, j) => c[i]![j]! && edges.has(pair(n, m))));
}

function isTreeWithRoot(g: Value, r: Value): boolean {
  if (!isDirectedGraph(g)) return false;
  const edges = elementsOf(edgesOf(g));
  const ok = edges.every(
    (e) => !equals(apply(e, 1), r) && edges.every((f) => !equals(apply(e, 1), apply(f, 1)) || equals(e, f)),
  );
  return ok && elementsOf(nodesOf(g)).every((n) => areConnectedIn(n, r, g));
}

/** {m \in G.node : <<n, m>> \in G.edge} (successors) or {m \in G.node : <<m, n>> \in G.edge}. */
function neighbours(g: Value, n: Value, forward: boolean): SetValue {
  const edges = asSet(edgesOf(g));
  return setOf(elementsOf(nodesOf(g)).filter((m) => edges.has(forward ? pair(n, m) : pair(m, n))));
}

function neighboursOfAll(g: Value, s: Value, forward: boolean): Value {
  return bigUnion(setOf(elementsOf(s).map((n) => neighbours(g, n, forward))));
}

function isBipartite(g: Value, u: Value, v: Value): boolean {
  if (!equals(setCap(u, v), EMPTY_SET) || !isSubsetEq(nodesOf(g), setCup(u, v))) return false;
  const us = asSet(u);
  const vs = asSet(v);
  return elementsOf(edgesOf(g)).every((e) => {
    const [x, y] = [apply(e, 1), apply(e, 2)];
    return (us.has(x) && vs.has(y)) || (us.has(y) && vs.has(x));
  });
}

export const GRAPHS: BuiltinModule = defineModule('Graphs', [], {
  IsDirectedGraph: { arity: 1, fn: (a) => isDirectedGraph(a[0] as Value) },
  DirectedSubgraph: { arity: 1, fn: (a) => directedSubgraphs(a[0] as Value) },
  Transpose: {
    arity: 1,
    fn: (a) => {
      const g = a[0] as Value;
      const edges = elementsOf(edgesOf(g)).map((e) => pair(apply(e, 2), apply(e, 1)));
      return graphRecord(nodesOf(g), setOf(edges));
    },
  },
  IsUndirectedGraph: { arity: 1, fn: (a) => isUndirectedGraph(a[0] as Value) },
  UndirectedSubgraph: {
    arity: 1,
    fn: (a) =>
      setOf(
        directedSubgraphs(a[0] as Value)
          .toArray()
          .filter(isUndirectedGraph),
      ),
  },
  Path: { arity: 1, fn: (a) => paths(a[0] as Value) },
  SimplePath: { arity: 1, fn: (a) => simplePaths(a[0] as Value) },
  AreConnectedIn: { arity: 3, fn: (a) => areConnectedIn(a[0] as Value, a[1] as Value, a[2] as Value) },
  ConnectionsIn: {
    arity: 1,
    fn: (a) => {
      const g = a[0] as Value;
      return pairFcn(elementsOf(nodesOf(g)), connections(g));
    },
  },
  IsStronglyConnected: { arity: 1, fn: (a) => isStronglyConnected(a[0] as Value) },
  IsTreeWithRoot: { arity: 2, fn: (a) => isTreeWithRoot(a[0] as Value, a[1] as Value) },
  GraphUnion: {
    arity: 2,
    fn: (a) => {
      const [g, h] = a as Value[];
      return graphRecord(setCup(nodesOf(g), nodesOf(h)), setCup(edgesOf(g), edgesOf(h)));
    },
  },
  IsBipartiteWithPartitions: {
    arity: 3,
    fn: (a) => isBipartite(a[0] as Value, a[1] as Value, a[2] as Value),
  },
  HasCycle: { arity: 1, fn: (a) => hasCycle(a[0] as Value) },
  IsDag: {
    arity: 1,
    fn: (a) => {
      const g = a[0] as Value;
      if (!isDirectedGraph(g)) return false;
      const edges = asSet(edgesOf(g));
      return elementsOf(nodesOf(g)).every((n) => !edges.has(pair(n, n))) && !hasCycle(g);
    },
  },
  Successors: { arity: 2, fn: (a) => neighbours(a[0] as Value, a[1] as Value, true) },
  AllSuccessors: { arity: 2, fn: (a) => neighboursOfAll(a[0] as Value, a[1] as Value, true) },
  Predecessors: { arity: 2, fn: (a) => neighbours(a[0] as Value, a[1] as Value, false) },
  AllPredecessors: { arity: 2, fn: (a) => neighboursOfAll(a[0] as Value, a[1] as Value, false) },
  InDegree: { arity: 2, fn: (a) => neighbours(a[0] as Value, a[1] as Value, false).size() },
  OutDegree: { arity: 2, fn: (a) => neighbours(a[0] as Value, a[1] as Value, true).size() },
  Roots: {
    arity: 1,
    fn: (a) => {
      const g = a[0] as Value;
      return setOf(elementsOf(nodesOf(g)).filter((n) => neighbours(g, n, false).size() === 0));
    },
  },
  Leaves: {
    arity: 1,
    fn: (a) => {
      const g = a[0] as Value;
      return setOf(elementsOf(nodesOf(g)).filter((n) => neighbours(g, n, true).size() === 0));
    },
  },
  EmptyGraph: { arity: 0, fn: () => graphRecord(EMPTY_SET, EMPTY_SET) },
  Graphs: {
    arity: 1,
    fn: (a) => {
      const s = asSet(a[0] as Value);
      return recordSetOf([
        { name: 'node', set: new FiniteSet([s]) },
        { name: 'edge', set: powerSet(productOf([s, s])) },
      ]);
    },
  },
});
