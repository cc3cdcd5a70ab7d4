----------------------------- MODULE LiveAbstract -----------------------------
(* A bit that flips forever: the abstract specification of LiveRefine.     *)
EXTENDS Naturals

VARIABLE y

AInit == y = 0
ANext == y' = 1 - y
ASpec == AInit /\ [][ANext]_y /\ WF_y(ANext)
=============================================================================
