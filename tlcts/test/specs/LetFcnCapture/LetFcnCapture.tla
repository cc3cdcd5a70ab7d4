---------------------------- MODULE LetFcnCapture ----------------------------
(***************************************************************************)
(* Functions defined in a LET (g[n \in S] == e) that are returned as       *)
(* values, not applied, inside a quantifier: each value must keep the      *)
(* binding of the bound variable at the time it was built.                 *)
(*                                                                         *)
(*   y' = { (LET g[n \in 0..1] == n * k + v IN g) : v \in 1..3 }            *)
(*        has 3 different elements (v = 1, 2, 3 give different functions); *)
(*   z' = [p \in 1..2 |-> LET f[i \in 1..2] == i * k + p IN f]              *)
(*        has z'[1] = <<k + 1, 2k + 1>> # z'[2] = <<k + 2, 2k + 2>>.         *)
(*                                                                         *)
(* Expected: the initial state and one state for each k \in 1..2: 3        *)
(* distinct, 1 + 3 * 2 = 7 generated, depth 2; invariant Inv holds.        *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

VARIABLES y, z

Init == y = {} /\ z = <<>>

Next == \E k \in 1..2 :
          /\ y' = { (LET g[n \in 0..1] == n * k + v IN g) : v \in 1..3 }
          /\ z' = [p \in 1..2 |-> LET f[i \in 1..2] == i * k + p IN f]

Inv == /\ y = {} \/ Cardinality(y) = 3
       /\ z = <<>> \/ z[1] # z[2]
=============================================================================
