------------------------------ MODULE RefuseLive ------------------------------
(***************************************************************************)
(* Temporal formulas TLC refuses, each named in one .cfg; tlcts refuses   *)
(* them too, naming the formula's location (exit code 255).               *)
(***************************************************************************)
EXTENDS Naturals

VARIABLE x

Init == x = 0
Next == x' = (x + 1) % 3

Spec == Init /\ [][Next]_x
InRange == x \in 0..2
SpecBox == Spec /\ []InRange
SpecAction == Spec /\ x' >= x

EventuallySteps == <><<Next>>_x
BoxAction == [](x' /= x)
OverNat == \E n \in Nat : <>(x = n)
Unbounded == \E n : <>(x = n)
Always(F) == []F
Passed == Always(<>(x = 1))
Cases == CASE x = 0 -> <>(x = 1) [] OTHER -> <>(x = 2)
VarBound == \A i \in 0..x : <>(x = i)
=============================================================================
