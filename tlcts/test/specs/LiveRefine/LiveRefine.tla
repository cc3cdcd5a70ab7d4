------------------------------ MODULE LiveRefine ------------------------------
(***************************************************************************)
(* A counter modulo 4 and its high bit b refine LiveAbstract with y <- b:  *)
(* its init, its step relation and its fairness WF_y(ANext). Without       *)
(* fairness the counter may stop, and the abstract fairness fails. 4       *)
(* states, 5 generated, depth 4.                                           *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES x, b

Init == x = 0 /\ b = 0
Next == x' = (x + 1) % 4 /\ b' = IF x' < 2 THEN 0 ELSE 1

Spec == Init /\ [][Next]_<<x, b>>
FairSpec == Spec /\ WF_<<x, b>>(Next)

Abs == INSTANCE LiveAbstract WITH y <- b

Refinement == Abs!ASpec
=============================================================================
