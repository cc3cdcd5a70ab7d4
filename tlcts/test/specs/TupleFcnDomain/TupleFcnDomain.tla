---------------------------- MODULE TupleFcnDomain ----------------------------
(***************************************************************************)
(* A function constructor with a tuple binder: [<<a, b>> \in A \X B |-> e] *)
(* is the function with domain A \X B (one argument per pair), the same as *)
(* [a \in A, b \in B |-> e].                                               *)
(*                                                                         *)
(* w starts as [<<a, b>> \in {1, 2} \X {3, 4} |-> a * b] = values 3, 4, 6, *)
(* 8; a step adds 4 to one entry below 10, so the entries take 3, 3, 2 and *)
(* 2 values: 36 states. Expected figures: throwaway Python BFS.            *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES w

Init == w = [<<a, b>> \in {1, 2} \X {3, 4} |-> a * b]

Next == \E <<a, b>> \in DOMAIN w :
          /\ w[a, b] < 10
          /\ w' = [w EXCEPT ![a, b] = @ + 4]

Inv == /\ DOMAIN w = {1, 2} \X {3, 4}
       /\ w = [w EXCEPT ![1, 3] = w[1, 3]]
       /\ [a \in {1, 2}, b \in {3, 4} |-> a * b] = [<<a, b>> \in {1, 2} \X {3, 4} |-> a * b]
=============================================================================
