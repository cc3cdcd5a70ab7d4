------------------------------- MODULE LiveView -------------------------------
(***************************************************************************)
(* x counts modulo 3 and t takes any value at each step; VIEW x merges the *)
(* states that differ in t. Fair behaviours may keep t = 0, so []<>(t = 1) *)
(* fails, with or without the VIEW. Without it: 6 states, 13 generated,    *)
(* depth 4; with it: 3 states, 7 generated, depth 3.                       *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES x, t

Init == x = 0 /\ t = 0
Next == x' = (x + 1) % 3 /\ t' \in {0, 1}

Spec == Init /\ [][Next]_<<x, t>> /\ WF_<<x, t>>(Next)

XOften0 == []<>(x = 0)
TOften1 == []<>(t = 1)

XView == x
=============================================================================
