----------------------------- MODULE RefuseSubexpr -----------------------------
(* A subexpression reference Both!1 (the first conjunct of Both).             *)
EXTENDS Naturals

VARIABLE x

Init == x = 0

Next == x' = (x + 1) % 3

Both == x >= 0 /\ x < 10

Inv == Both!1
=============================================================================
