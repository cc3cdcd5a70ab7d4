/**
 * UndirectedGraphs (CommunityModules): undirected graphs as records [node |-> N, edge |-> E], E a set
 * of unordered pairs {a, b} of nodes ({a} a loop). Every operator gives the value of the module's
 * definition; SimplePath, AreConnectedIn and ConnectedComponents by a search over the edges {a, b}
 * of two nodes (loops join no two nodes, other elements of G.edge are no edges), with the errors of
 * selecting G.node and G.edge and enumerating them. Path(G), an infinite set, has membership only.
 * IsStronglyConnected(G) == ConnectedComponents(G) = {G.node} is FALSE for a graph without nodes.
 */
import {
  EMPTY_TUPLE,
  FiniteSet,
  InfiniteSet,
  type SetValue,
  equals,
  recordOf,
  setOf,
  type Value,
} from '../values/value.js';
import { recordSetOf } from '../eval/sets.js';
import type { BuiltinModule } from './builtin.js';
import { asTuple, defineModule, isEnumerable, nonEnumerableSubset, powerSet } from './core.js';
import { asSet, elementsOf, select } from './ops.js';
import { seqSet } from './sequences.js';
import { connectedIn, nodeIndex, reachable, simplePathsOf, type Graph } from './graphs.js';

const nodesOf = (g: Value): Value => select(g, 'node');
const edgesOf = (g: Value): Value => select(g, 'edge');

/** [node |-> nodes, edge |-> edges]. */
function graphRecord(nodes: Value, edges: Value): Value {
  return recordOf([
    { name: 'node', value: nodes },
    { name: 'edge', value: edges },
  ]);
}

/**
 * \E a, b \in nodes : (loopFree => a # b) /\ e = {a, b}. An explicit set is compared by its
 * elements; any other value is compared with each {a, b} as TLC does (an interval may equal one, a
 * value of another kind is an equality error).
 */
function isEdgeOver(e: Value, nodes: readonly Value[], loopFree: boolean): boolean {
  if (nodes.length === 0) return false;
  if (e instanceof FiniteSet) {
    const n = e.elems.length;
    return (n === 2 || (n === 1 && !loopFree)) && e.elems.every((x) => nodeIndex(nodes, x) >= 0);
  }
  for (const a of nodes) {
    for (const b of nodes) {
      if (loopFree && equals(a, b)) continue;
      if (equals(e, setOf([a, b]))) return true;
    }
  }
  return false;
}

/**
 * IsUndirectedGraph(G) (loopFree: IsLoopFreeUndirectedGraph(G)) ==
 *   /\ G = [node |-> G.node, edge |-> G.edge]
 *   /\ \A e \in G.edge : \E a, b \in G.node : (a # b /\) e = {a, b}
 */
function isUndirectedGraph(g: Value, loopFree: boolean): boolean {
  const nodeSet = nodesOf(g);
  const edgeSet = edgesOf(g);
  if (!equals(g, graphRecord(nodeSet, edgeSet))) return false;
  const edges = elementsOf(edgeSet);
  if (edges.length === 0) return true;
  const nodes = elementsOf(nodeSet);
  return edges.every((e) => isEdgeOver(e, nodes, loopFree));
}

/**
 * UndirectedSubgraph(G) == {H \in [node : SUBSET G.node, edge : SUBSET G.edge] : IsUndirectedGraph(H)}:
 * for each N \subseteq G.node, every set of the edges of G.edge over N.
 */
function undirectedSubgraphs(g: Value): SetValue {
  const nodeSet = nodesOf(g);
  const edgeSet = edgesOf(g);
  const nodeSubsets = powerSet(nodeSet);
  if (!isEnumerable(edgeSet)) throw nonEnumerableSubset(edgeSet);
  const edges = elementsOf(edgeSet);
  const out: Value[] = [];
  nodeSubsets.forEach((n) => {
    const nodes = elementsOf(n);
    powerSet(setOf(edges.filter((e) => isEdgeOver(e, nodes, false)))).forEach((es) => {
      out.push(graphRecord(n, es));
    });
  });
  return setOf(out);
}

/** Path(G) == {p \in Seq(G.node) : p # << >> /\ \A i \in 1..(Len(p)-1) : {p[i], p[i+1]} \in G.edge}. */
function paths(g: Value): SetValue {
  const edges = asSet(edgesOf(g));
  const seqs = seqSet(asSet(nodesOf(g)));
  return new InfiniteSet(
    () => `{p \\in ${seqs.describe()} : p # << >> /\\ \\A i \\in 1..(Len(p)-1) : {p[i], p[i+1]} \\in G.edge}`,
    (v) => {
      if (!seqs.has(v) || equals(v, EMPTY_TUPLE)) return false;
      const xs = asTuple(v)!.elems;
      return xs.slice(1).every((y, i) => edges.has(setOf([xs[i]!, y])));
    },
  );
}

// ---------------------------------------------------------------------------------------------------
// The overridden operators: a search over the adjacency of the nodes

/** The nodes of G and, for each, the other nodes it shares an edge {a, b} of G.edge with. */
function adjacency(g: Value): Graph {
  const nodes = elementsOf(nodesOf(g));
  const edges = elementsOf(edgesOf(g));
  const next: Set<number>[] = nodes.map(() => new Set());
  for (const e of edges) {
    if (!isEnumerable(e) || !e.isFinite()) continue;
    const ends = e.normalized().elems;
    if (ends.length !== 2) continue;
    const i = nodeIndex(nodes, ends[0]!);
    const j = nodeIndex(nodes, ends[1]!);
    if (i < 0 || j < 0) continue;
    next[i]!.add(j);
    next[j]!.add(i);
  }
  return { nodes, next: next.map((s) => [...s].sort((x, y) => x - y)) };
}

/** ConnectedComponents(G): the maximal non-empty sets of nodes connected within themselves. */
function connectedComponents(g: Value): SetValue {
  const adj = adjacency(g);
  const done = new Set<number>();
  const out: Value[] = [];
  adj.nodes.forEach((_, i) => {
    if (done.has(i)) return;
    const component = [...reachable(adj, i)];
    component.forEach((j) => done.add(j));
    out.push(setOf(component.map((j) => adj.nodes[j]!)));
  });
  return setOf(out);
}

export const UNDIRECTEDGRAPHS: BuiltinModule = defineModule('UndirectedGraphs', [], {
  IsUndirectedGraph: { arity: 1, fn: (a) => isUndirectedGraph(a[0] as Value, false) },
  IsLoopFreeUndirectedGraph: { arity: 1, fn: (a) => isUndirectedGraph(a[0] as Value, true) },
  UndirectedSubgraph: { arity: 1, fn: (a) => undirectedSubgraphs(a[0] as Value) },
  Path: { arity: 1, fn: (a) => paths(a[0] as Value) },
  // SimplePath(G) == {p \in Path(G) : \A i, j \in 1..Len(p) : p[i] = p[j] => i = j}
  SimplePath: { arity: 1, fn: (a) => simplePathsOf(adjacency(a[0] as Value)) },
  // AreConnectedIn(m, n, G) == \E p \in Path(G) : p[1] = m /\ p[Len(p)] = n
  AreConnectedIn: {
    arity: 3,
    fn: (a) => connectedIn(adjacency(a[2] as Value), a[0] as Value, a[1] as Value),
  },
  ConnectedComponents: { arity: 1, fn: (a) => connectedComponents(a[0] as Value) },
  IsStronglyConnected: {
    arity: 1,
    fn: (a) => {
      const g = a[0] as Value;
      return equals(connectedComponents(g), setOf([nodesOf(g)]));
    },
  },
  UndirectedGraphs: {
    arity: 1,
    fn: (a) => {
      // [node : {S}, edge : SUBSET {{s, t} : <<s, t>> \in S \X S}]
      const s = elementsOf(a[0] as Value);
      const pairs = s.flatMap((x) => s.map((y) => setOf([x, y])));
      return recordSetOf([
        { name: 'node', set: new FiniteSet([a[0] as Value]) },
        { name: 'edge', set: powerSet(setOf(pairs)) },
      ]);
    },
  },
});
