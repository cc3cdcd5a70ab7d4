-------------------------------- MODULE Stutter --------------------------------
(***************************************************************************)
(* A next-state relation written [A]_vars, with stuttering.                *)
(*                                                                         *)
(* Features: NEXT [A]_vars (every state also has one stuttering successor, *)
(* so no state deadlocks); SPECIFICATION Init /\ [][A]_vars (TLC takes A   *)
(* alone: no stuttering successors, so the last state deadlocks);          *)
(* NEXT <<A \/ Noop>>_vars (Noop's successors are discarded because they   *)
(* do not change vars).                                                    *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS: A has one successor for each d  *)
(* in {1, 2} with x + d <= 4; [A]_vars adds one stuttering successor per   *)
(* state.                                                                  *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES x, y

vars == <<x, y>>

Init == x = 0 /\ y = 0

A == \E d \in {1, 2} :
       /\ x + d <= 4
       /\ x' = x + d
       /\ y' = (y + d) % 2

Noop == UNCHANGED vars

StutterNext == [A]_vars

AngleNext == <<A \/ Noop>>_vars

Spec == Init /\ [][A]_vars
=============================================================================
