------------------------------- MODULE Deadlock -------------------------------
(***************************************************************************)
(* Deadlock detection.                                                     *)
(*                                                                         *)
(* Features: a state with no successor at all is a deadlock; a state whose *)
(* only successors fall outside the CONSTRAINT is not (they are generated, *)
(* and the excluded states themselves are never expanded); -deadlock       *)
(* (runCheck checkDeadlock: false) turns the check off.                   *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine.             *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES x, y

Init == x \in {0, 1} /\ y = 0

Next == \/ /\ x < 3
           /\ x' = x + 1
           /\ y' = y
        \/ /\ x = 3
           /\ y < 2
           /\ y' = y + 1
           /\ x' = x
        \/ /\ x = 2
           /\ y = 0
           /\ x' = 2
           /\ y' = 5
        \/ /\ x = 1
           /\ y' = 9
           /\ x' = 9

Bound == y <= 4
=============================================================================
