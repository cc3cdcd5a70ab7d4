------------------------- MODULE RefuseTemporalQuant -------------------------
(* Temporal quantifiers \EE / \AA in a property: not checkable by TLC; a     *)
(* checker must not report success.                                         *)
EXTENDS Naturals

VARIABLE x

Init == x = 0

Next == x' = (x + 1) % 3

Spec == Init /\ [][Next]_x

Hidden == \EE t : [](t = x)

Every == \AA t : [](t = t)
=============================================================================
