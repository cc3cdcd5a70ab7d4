----------------------------- MODULE Constraints -----------------------------
(***************************************************************************)
(* CONSTRAINT and ACTION_CONSTRAINT.                                       *)
(*                                                                         *)
(* Features: successors outside a CONSTRAINT or failing an                 *)
(* ACTION_CONSTRAINT are counted as generated but neither stored nor       *)
(* expanded; invariants are still checked on them (Constraints_Inv.cfg:    *)
(* the invariant fails on a state outside the constraint); constraints on  *)
(* the initial states.                                                     *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS with TLC's rules (generated      *)
(* counts every successor; states failing a constraint are not stored but  *)
(* their invariants are checked).                                          *)
(***************************************************************************)
EXTENDS Integers

VARIABLES x, y

Init == x \in 0..1 /\ y \in {0, 5}

Next == \/ x' = x + 1 /\ y' = y
        \/ x' = x /\ y' = y + 2
        \/ x' = x + y /\ y' = 0

Bound == x <= 4 /\ y <= 4

NoBigJump == x' - x <= 2

Small == x + y <= 8
=============================================================================
