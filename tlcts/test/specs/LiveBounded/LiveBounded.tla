----------------------------- MODULE LiveBounded -----------------------------
(***************************************************************************)
(* An unbounded counter cut by CONSTRAINT x <= 3: TLC checks liveness on  *)
(* the constrained graph, where x = 3 can only stutter. 4 states, 5       *)
(* generated (x = 4 is generated, not kept), depth 4.                     *)
(***************************************************************************)
EXTENDS Naturals

VARIABLE x

Init == x = 0
Next == x' = x + 1

Spec == Init /\ [][Next]_x /\ WF_x(Next)
NoFairSpec == Init /\ [][Next]_x

Reaches5 == <>(x = 5)
Bound == x <= 3
=============================================================================
