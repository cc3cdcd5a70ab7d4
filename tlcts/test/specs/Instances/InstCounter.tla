------------------------------ MODULE InstCounter ------------------------------
(* Helper module for Instances.tla: a counter parameterized by an operator     *)
(* constant Step(_) and a constant Limit; it EXTENDS InstBase, whose LOCAL      *)
(* Helper it cannot see, so it may define its own Helper.                       *)
EXTENDS InstBase

CONSTANT Step(_), Limit

VARIABLE val

vars == <<val>>

Helper(a) == a + 100

LOCAL Bounded(v) == v % (Limit + 1)

Init == val = 0

Inc == val' = Bounded(Step(val))

Reset == /\ val >= Limit - 1
         /\ val' = 0

Next == Inc \/ Reset

Inv == val <= Limit
=============================================================================
