----------------------------- MODULE CfgOverride -----------------------------
(***************************************************************************)
(* Definitions replaced by the configuration, and an operator constant.    *)
(*                                                                         *)
(* Features: CONSTANT Combine(_, _) bound in the .cfg to an operator of    *)
(* this module (Combine <- Sum / Combine <- Max2); Width <- BigWidth       *)
(* (a definition overridden by another definition); Width = 2 (a           *)
(* definition overridden by a value).                                      *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS per .cfg: a counts 0..W and back *)
(* to 0, with b' = Combine(a, b + 1) % (Limit + 1) on each count.          *)
(***************************************************************************)
EXTENDS Naturals

CONSTANTS Limit, Combine(_, _)

VARIABLES a, b

Width == 3
BigWidth == 5

Sum(p, q) == p + q
Max2(p, q) == IF p > q THEN p ELSE q

Init == a = 0 /\ b = 0

Next == \/ /\ a < Width
           /\ a' = a + 1
           /\ b' = Combine(a, b + 1) % (Limit + 1)
        \/ /\ a = Width
           /\ a' = 0
           /\ b' = b

TypeOK == a \in 0..Width /\ b \in 0..Limit
=============================================================================
