------------------------- MODULE RefuseStepOperatorArg -------------------------
(* The prime passed as an operator argument, which SANY accepts.               *)
EXTENDS Naturals

VARIABLE x

Init == x = 0

Next == x' = 1 - x

Spec == Init /\ [][Next]_x

Apply(Op(_)) == Op(x) = x

Property == [][Apply(')]_x
=============================================================================
