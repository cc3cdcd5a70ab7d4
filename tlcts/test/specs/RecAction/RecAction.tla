------------------------------- MODULE RecAction -------------------------------
(***************************************************************************)
(* A RECURSIVE operator used as an action: Act(n) unfolds into a           *)
(* disjunction of n + 1 actions (IF in action mode, \/ of a recursive call *)
(* and an assignment).                                                     *)
(*                                                                         *)
(* Expected figures: Act(2) = x' = (x + 1) % 3 \/ y' = (y + 1) % 4 \/      *)
(* y' = (y + 2) % 4 (with the other variable unchanged): 12 states, 3      *)
(* successors each: 1 + 12 * 3 = 37 generated, depth 5 (throwaway Python   *)
(* BFS).                                                                   *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES x, y

RECURSIVE Act(_)
Act(n) == IF n = 0 THEN x' = (x + 1) % 3 /\ y' = y
          ELSE \/ Act(n - 1)
               \/ y' = (y + n) % 4 /\ x' = x

Init == x = 0 /\ y = 0

Next == Act(2)
=============================================================================
