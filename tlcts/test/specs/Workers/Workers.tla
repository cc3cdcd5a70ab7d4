------------------------------- MODULE Workers -------------------------------
(***************************************************************************)
(* The parallel search (-workers 2) must print what the sequential one     *)
(* prints, in the same order: Print in the next-state action, in a         *)
(* constraint, and in an invariant (evaluated, so printed, only on new     *)
(* states), with TLCGet("level"). `names` holds strings made at run time   *)
(* (ToString), which each worker thread may intern in its own order: sets  *)
(* of them are compared and searched (more than 8 elements: a binary       *)
(* search in their order) after crossing threads.                          *)
(*                                                                         *)
(* Expected figures: a throwaway Python BFS of the same machine: 6404      *)
(* distinct, 13757 generated, depth 15; with Workers_Stop.cfg, Incomplete  *)
(* is violated at 6154 generated, 3511 distinct, 1370 left, depth 11.      *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets, TLC

VARIABLES x, names

Init == x = 0 /\ names = {}

Next == \E d \in 1..3 :
          /\ x + d <= 20
          /\ x' = x + d
          /\ names' = IF d = 1 THEN names \cup {ToString(x' % 10)} ELSE names
          /\ (x' = 20 /\ Cardinality(names') = 9) => PrintT(<<"next", TLCGet("level"), x'>>)
          /\ (x = 0 /\ d = 1) => PrintT(<<"first step", TLCGet("level")>>)

InModel == (x = 19 /\ Cardinality(names) = 10) => PrintT(<<"constraint", TLCGet("level")>>)

Known == /\ \A n \in names : n \in names /\ names = names \cup {n}
         /\ Cardinality(names) <= 10
         /\ (x = 18 /\ Cardinality(names) = 10) => PrintT(<<"invariant", TLCGet("level")>>)

\* Workers_Stop.cfg: violated once all ten names are known; the trace is rebuilt, printing again,
\* and shown without the names (their order is the main thread's own: see parallel.ts).
Incomplete == Cardinality(names) < 10
Shown == [x |-> x, known |-> Cardinality(names)]
=============================================================================
