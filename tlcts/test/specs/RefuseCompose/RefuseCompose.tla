----------------------------- MODULE RefuseCompose -----------------------------
(* Action composition A \cdot B, which TLC does not evaluate.                 *)
EXTENDS Naturals

VARIABLE x

Init == x = 0

A == x' = x + 1

Next == (A \cdot A) /\ x < 5
=============================================================================
