------------------------------ MODULE LiveFair ------------------------------
(***************************************************************************)
(* Weak and strong fairness: Go is enabled only while x = 1, and Flip      *)
(* keeps changing x. Under WF_vars(Go), flipping forever is fair and y     *)
(* stays 0; under SF_vars(Go), Go is enabled infinitely often, so it       *)
(* happens. States (x, y): 00, 10, 11, 01; 6 generated, depth 4.           *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES x, y

vars == <<x, y>>

Init == x = 0 /\ y = 0
Flip == x' = 1 - x /\ y' = y
Go == x = 1 /\ y = 0 /\ y' = 1 /\ x' = x
Next == Flip \/ Go

WFSpec == Init /\ [][Next]_vars /\ WF_vars(Flip) /\ WF_vars(Go)
SFSpec == Init /\ [][Next]_vars /\ WF_vars(Flip) /\ SF_vars(Go)

GoesOn == <>(y = 1)
=============================================================================
