/**
 * UndirectedGraphs (CommunityModules), evaluated from TLA+ text as a specification uses it and
 * model-checked in a small specification. Every expected value is derived by hand from the module's
 * definitions (quoted at each case); the overridden SimplePath, AreConnectedIn and ConnectedComponents
 * by the same definitions, which TLC's Java methods replace.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from '../src/check/run.js';
import { UNDIRECTEDGRAPHS } from '../src/stdlib/undirectedgraphs.js';
import { figures } from './support/figures.js';
import { type Case, type Failure, mismatches as checkDefinitions } from './support/definitions.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tlcts-community-graphs-'));

/** Evaluates each case and failure after defs; returns the ones that came out otherwise. */
const mismatches = (name: string, mods: string, defs: string[], cases: Case[], failures: Failure[] = []) =>
  checkDefinitions(tmp, name, mods, cases, failures, defs);

// G: a path 1 - 2 - 3, and 4 alone with a loop {4}. Tri: a triangle. E0: no nodes.
const DEFS = [
  'G == [node |-> {1, 2, 3, 4}, edge |-> {{1, 2}, {2, 3}, {4}}]',
  'Tri == [node |-> {1, 2, 3}, edge |-> {{1, 2}, {2, 3}, {1, 3}}]',
  'E0 == [node |-> {}, edge |-> {}]',
  // The edges {1, 3} and {3, 2} go through 3, which is no node.
  'Out == [node |-> {1, 2}, edge |-> {{1, 3}, {3, 2}}]',
];

describe('UndirectedGraphs', () => {
  it('has the module operators', () => {
    expect([...UNDIRECTEDGRAPHS.ops.keys()].sort()).toEqual(
      [
        'AreConnectedIn',
        'ConnectedComponents',
        'IsLoopFreeUndirectedGraph',
        'IsStronglyConnected',
        'IsUndirectedGraph',
        'Path',
        'SimplePath',
        'UndirectedGraphs',
        'UndirectedSubgraph',
      ].sort(),
    );
    expect(UNDIRECTEDGRAPHS.extends).toEqual([]);
  });

  it('IsUndirectedGraph and IsLoopFreeUndirectedGraph', () => {
    const cases: Case[] = [
      // \A e \in G.edge : \E a, b \in G.node : e = {a, b}: the loop {4} is {4, 4}.
      ['<<IsUndirectedGraph(G), IsUndirectedGraph(Tri), IsUndirectedGraph(E0)>>', '<<TRUE, TRUE, TRUE>>'],
      // ... a # b /\ e = {a, b}: no a # b makes {4}.
      [
        '<<IsLoopFreeUndirectedGraph(G), IsLoopFreeUndirectedGraph(Tri), IsLoopFreeUndirectedGraph(E0)>>',
        '<<FALSE, TRUE, TRUE>>',
      ],
      // 3 is no node of Out.
      ['<<IsUndirectedGraph(Out), IsLoopFreeUndirectedGraph(Out)>>', '<<FALSE, FALSE>>'],
      // G = [node |-> G.node, edge |-> G.edge] is false for a record with a third field.
      ['IsUndirectedGraph([node |-> {1}, edge |-> {}, label |-> 1])', 'FALSE'],
      // The edge 1..2 equals {1, 2}.
      ['IsUndirectedGraph([node |-> {1, 2}, edge |-> {1..2}])', 'TRUE'],
      // \E a, b \in {} is FALSE before any comparison: an edge that is no set is no error here.
      ['IsUndirectedGraph([node |-> {}, edge |-> {<<1, 2>>}])', 'FALSE'],
    ];
    const failures: Failure[] = [
      // e = {a, b} with the tuple <<1, 2>> for e: TLC's equality error.
      ['IsUndirectedGraph([node |-> {1, 2}, edge |-> {<<1, 2>>}])', /^Attempted to check equality of/],
      ['IsUndirectedGraph([node |-> {1}])', /nonexistent field edge/],
    ];
    expect(mismatches('UGIs', 'UndirectedGraphs, Naturals', DEFS, cases, failures)).toEqual([]);
  });

  it('UndirectedSubgraph', () => {
    const cases: Case[] = [
      // N = {}: 1 graph; N = {1}: edges over N {{1}}, 2 graphs; N = {2}: 1; N = {1, 2}: 2^2 = 4. 8 in all.
      ['Cardinality(UndirectedSubgraph([node |-> {1, 2}, edge |-> {{1, 2}, {1}}]))', '8'],
      [
        '<<[node |-> {1}, edge |-> {{1}}] \\in UndirectedSubgraph([node |-> {1, 2}, edge |-> {{1, 2}, {1}}]),' +
          ' [node |-> {2}, edge |-> {{1}}] \\in UndirectedSubgraph([node |-> {1, 2}, edge |-> {{1, 2}, {1}}])>>',
        '<<TRUE, FALSE>>',
      ],
      // Tri: N of size 0, 1, 2, 3 allows 0, 0, 1, 3 edges: 1 + 3 + 3 * 2 + 8 = 18.
      ['Cardinality(UndirectedSubgraph(Tri))', '18'],
      // Without nodes, IsUndirectedGraph(H) is false for any edge at all, and no error.
      ['UndirectedSubgraph([node |-> {}, edge |-> {<<1, 2>>}])', '{[node |-> {}, edge |-> {}]}'],
      // Out: no subset of {1, 2} holds 3, so no edge is kept: 4 node sets, no edges.
      [
        'UndirectedSubgraph(Out)',
        '{[node |-> {}, edge |-> {}], [node |-> {1}, edge |-> {}], [node |-> {2}, edge |-> {}], [node |-> {1, 2}, edge |-> {}]}',
      ],
    ];
    expect(mismatches('UGSub', 'UndirectedGraphs, FiniteSets', DEFS, cases)).toEqual([]);
  });

  it('Path and SimplePath', () => {
    const cases: Case[] = [
      // {p[i], p[i+1]} \in G.edge: undirected, repeated nodes allowed; the loop {4} = {4, 4} makes <<4, 4, 4>>.
      [
        '<<<<1, 2, 3>> \\in Path(G), <<3, 2, 1, 2>> \\in Path(G), <<4, 4, 4>> \\in Path(G), <<1, 1>> \\in Path(G)>>',
        '<<TRUE, TRUE, TRUE, FALSE>>',
      ],
      // p # << >>; p \in Seq(G.node); {1, 4} is no edge; one node is a path.
      [
        '<<<<>> \\in Path(G), <<5>> \\in Path(G), <<1, 4>> \\in Path(G), <<4>> \\in Path(G)>>',
        '<<FALSE, FALSE, FALSE, TRUE>>',
      ],
      // G: 4 single nodes, <<1, 2>>, <<2, 1>>, <<2, 3>>, <<3, 2>>, <<1, 2, 3>>, <<3, 2, 1>>: the loop adds none.
      ['Cardinality(SimplePath(G))', '10'],
      [
        'SimplePath(G) = {<<1>>, <<2>>, <<3>>, <<4>>, <<1, 2>>, <<2, 1>>, <<2, 3>>, <<3, 2>>, <<1, 2, 3>>, <<3, 2, 1>>}',
        'TRUE',
      ],
      // Tri: 3 single nodes, 6 ordered pairs, 6 orders of the 3 nodes.
      ['Cardinality(SimplePath(Tri))', '15'],
      ['<<SimplePath(E0), SimplePath(Out)>>', '<<{}, {<<1>>, <<2>>}>>'],
    ];
    expect(mismatches('UGPath', 'UndirectedGraphs, FiniteSets', DEFS, cases)).toEqual([]);
  });

  it('AreConnectedIn, ConnectedComponents and IsStronglyConnected', () => {
    const cases: Case[] = [
      // Undirected: 3 reaches 1; <<4>> connects 4 with itself; 5 is no node, <<5>> no path.
      [
        '<<AreConnectedIn(1, 3, G), AreConnectedIn(3, 1, G), AreConnectedIn(1, 4, G), AreConnectedIn(4, 4, G), AreConnectedIn(5, 5, G)>>',
        '<<TRUE, TRUE, FALSE, TRUE, FALSE>>',
      ],
      // The path 1, 3, 2 is not in Seq(Out.node).
      ['AreConnectedIn(1, 2, Out)', 'FALSE'],
      // Maximal S # {} connected inside S: {1, 2, 3} and the isolated {4} (TLC prints smaller sets first).
      ['ConnectedComponents(G)', '{{4}, {1, 2, 3}}'],
      ['ConnectedComponents(Tri)', '{{1, 2, 3}}'],
      // No nodes: no non-empty S.
      ['ConnectedComponents(E0)', '{}'],
      ['ConnectedComponents([node |-> {1, 2, 3}, edge |-> {}])', '{{1}, {2}, {3}}'],
      ['ConnectedComponents(Out)', '{{1}, {2}}'],
      // ConnectedComponents(G) = {G.node}: {} # {{}} for E0.
      [
        '<<IsStronglyConnected(Tri), IsStronglyConnected(G), IsStronglyConnected(E0), IsStronglyConnected([node |-> {7}, edge |-> {}])>>',
        '<<TRUE, FALSE, FALSE, TRUE>>',
      ],
    ];
    expect(mismatches('UGConn', 'UndirectedGraphs', DEFS, cases)).toEqual([]);
  });

  it('UndirectedGraphs(S)', () => {
    const cases: Case[] = [
      // {{s, t} : <<s, t>> \in {1, 2} \X {1, 2}} = {{1}, {2}, {1, 2}}: SUBSET has 8 elements; the
      // module's comment lists 7 of them, leaving out the edges {{1}, {2}}.
      ['Cardinality(UndirectedGraphs({1, 2}))', '8'],
      ['[node |-> {1, 2}, edge |-> {{1}, {2}}] \\in UndirectedGraphs({1, 2})', 'TRUE'],
      // node is exactly S.
      ['[node |-> {1}, edge |-> {}] \\in UndirectedGraphs({1, 2})', 'FALSE'],
      // 3 loops and 3 pairs: 2^6.
      ['Cardinality(UndirectedGraphs({1, 2, 3}))', '64'],
      ['UndirectedGraphs({})', '{[node |-> {}, edge |-> {}]}'],
      ['\\A H \\in UndirectedGraphs({1, 2, 3}) : IsUndirectedGraph(H)', 'TRUE'],
    ];
    expect(mismatches('UGAll', 'UndirectedGraphs, FiniteSets', DEFS, cases)).toEqual([]);
  });

  it('model-checks a specification that EXTENDS UndirectedGraphs', () => {
    const dir = fs.mkdtempSync(path.join(tmp, 'spec-'));
    const tla = path.join(dir, 'UGSpec.tla');
    fs.writeFileSync(
      tla,
      [
        '---- MODULE UGSpec ----',
        'EXTENDS UndirectedGraphs, Naturals, FiniteSets',
        'VARIABLE g',
        'Nodes == {1, 2, 3}',
        'Init == g = [node |-> Nodes, edge |-> {}]',
        "Next == \\E a, b \\in Nodes : a # b /\\ {a, b} \\notin g.edge /\\ g' = [g EXCEPT !.edge = @ \\cup {{a, b}}]",
        'TypeOK == IsLoopFreeUndirectedGraph(g) /\\ g \\in UndirectedGraphs(Nodes)',
        // On 3 nodes any 2 of the 3 edges share a node: connected from 2 edges on.
        'Connected == IsStronglyConnected(g) <=> Cardinality(g.edge) >= 2',
        // A forest of k edges has 3 - k components; the triangle has 1.
        'Components == Cardinality(ConnectedComponents(g)) = IF Cardinality(g.edge) = 3 THEN 1 ELSE 3 - Cardinality(g.edge)',
        // k = 0: 3 single nodes; 1: + 2; 2 (a path a - b - c): + 4 pairs + 2; 3: + 6 + 6.
        'Paths == Cardinality(SimplePath(g)) = <<3, 5, 9, 15>>[Cardinality(g.edge) + 1]',
        'Apart == ~AreConnectedIn(1, 3, g)',
        '====',
      ].join('\n'),
    );
    const run = (invariants: string[]) => {
      const cfg = path.join(dir, `UGSpec_${invariants.join('_')}.cfg`);
      fs.writeFileSync(cfg, `INIT Init\nNEXT Next\n${invariants.map((i) => `INVARIANT ${i}\n`).join('')}`);
      return runCheck({ tlaFile: tla, cfgFile: cfg, checkDeadlock: false }).result;
    };
    // States: the 2^3 sets of edges. Generated: 1 initial state, and from a state with k edges each of
    // the 3 - k missing edges twice (<<a, b>> and <<b, a>>): 6 + 3 * 4 + 3 * 2 = 24. Depth: 0 to 3 edges.
    expect(figures(run(['TypeOK', 'Connected', 'Components', 'Paths']))).toEqual({
      verdict: 'success',
      exitCode: 0,
      distinct: 8,
      generated: 25,
      depth: 4,
    });
    // Violated once the edge {1, 3} is added or 1 - 2 - 3 is built: the shortest trace has two states.
    const apart = run(['Apart']);
    expect(apart.verdict).toBe('invariant violated');
    expect(apart.exitCode).toBe(12);
    expect(apart.trace?.length).toBe(2);
  });
});
