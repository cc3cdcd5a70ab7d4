---------------------------- MODULE LiveCounter ----------------------------
(***************************************************************************)
(* A counter 0 -> 1 -> 2 -> 3 -> 0, and the temporal operators one by one. *)
(* Four states, one successor each: 5 states generated, depth 4. Each .cfg *)
(* says what TLC's liveness algorithm (docs/tlc-semantics.md §7) gives.    *)
(***************************************************************************)
EXTENDS Naturals

VARIABLE x

Init == x = 0
Inc == x < 3 /\ x' = x + 1
Reset == x = 3 /\ x' = 0
Next == Inc \/ Reset

Spec == Init /\ [][Next]_x
FairSpec == Spec /\ WF_x(Next)

Reaches3 == <>(x = 3)
Often0 == []<>(x = 0)
Settles3 == <>[](x = 3)
ZeroLeadsTo2 == (x = 0) ~> (x = 2)
ResetsForever == []<><<Reset>>_x
Nested == [](x = 1 => <>(x = 3))
Either == <>[](x = 3) \/ []<>(x = 0)
ResetPossible == []<>ENABLED Reset
Below3 == [](x < 3)
EventuallyResets == <><<Reset>>_x
=============================================================================
