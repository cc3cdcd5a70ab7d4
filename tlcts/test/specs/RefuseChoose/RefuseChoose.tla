----------------------------- MODULE RefuseChoose -----------------------------
(* Unbounded CHOOSE: TLC stops with "TLC attempted to evaluate an unbounded   *)
(* CHOOSE"; a checker must refuse clearly, naming the location.              *)
EXTENDS Naturals

VARIABLE x

Init == x = CHOOSE n : n = 1

Next == x' = x
=============================================================================
