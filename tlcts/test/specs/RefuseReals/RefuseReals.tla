----------------------------- MODULE RefuseReals -----------------------------
(* Real numbers: TLC cannot evaluate them; a checker must refuse clearly.   *)
EXTENDS Reals

VARIABLE x

Init == x = 1.5

Next == x' = x + 1.0
=============================================================================
