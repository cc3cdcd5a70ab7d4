---------------------------- MODULE TupleBinders ----------------------------
(***************************************************************************)
(* Tuple binders and multi-argument functions.                             *)
(*                                                                         *)
(* Features: \E <<i, j>> \in A \X B in an action, {<<a, b>> \in S \X S :   *)
(* a < b}, \E <<u, v>> \in {filtered set of pairs}, [i \in A, j \in B |->  *)
(* e] with grid[i, j] and EXCEPT ![i, j], \E p, q \in S (two variables, one *)
(* bound), \A <<a, b>> \in pairs, {a + b : <<a, b>> \in pairs}, f[<<i, j>>] *)
(* = f[i, j].                                                              *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine.             *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

S == 1..3
T == {"a", "b"}

VARIABLES grid, pairs, last

Init == /\ grid = [i \in 1..2, j \in T |-> 0]
        /\ pairs = {}
        /\ last = <<0, "a">>

Bump == \E <<i, j>> \in (1..2) \X T :
          /\ grid[i, j] < 2
          /\ grid' = [grid EXCEPT ![i, j] = @ + 1]
          /\ last' = <<i, j>>
          /\ UNCHANGED pairs

Pick == \E p, q \in S :
          /\ p < q
          /\ pairs' = pairs \cup {<<p, q>>}
          /\ UNCHANGED <<grid, last>>

Drop == \E <<u, v>> \in {<<a, b>> \in S \X S : a < b} :
          /\ <<u, v>> \in pairs
          /\ pairs' = pairs \ {<<u, v>>}
          /\ last' = <<u, "b">>
          /\ UNCHANGED grid

Next == Bump \/ Pick \/ Drop

TypeOK == /\ grid \in [(1..2) \X T -> 0..2]
          /\ pairs \subseteq {<<a, b>> \in S \X S : a < b}
          /\ last \in ({0} \X {"a"}) \cup ((1..2) \X T)

Laws == /\ \A <<a, b>> \in pairs : a < b
        /\ \A i \in 1..2, j \in T : grid[<<i, j>>] = grid[i, j]
        /\ {a + b : <<a, b>> \in pairs} \subseteq 3..5
        /\ Cardinality({<<a, b>> \in S \X S : a < b}) = 3
=============================================================================
