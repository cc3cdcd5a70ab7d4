-------------------------------- MODULE CaseIf --------------------------------
(***************************************************************************)
(* CASE and IF inside actions.                                             *)
(*                                                                         *)
(* Features: CASE with OTHER whose guards overlap (TLC takes the FIRST     *)
(* true arm only, not every true arm), an arm that is a disjunction (two   *)
(* successors), CASE without OTHER whose arm value is FALSE, IF/THEN/ELSE  *)
(* with assignments in both branches, y' \in S inside an ELSE, IF as the   *)
(* right-hand side of x' = ..., and (NextBad, CaseIf_NoArm.cfg) a CASE     *)
(* with no true arm, which is an evaluation error in TLC.                  *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine.             *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES x, y, mode

Init == x = 0 /\ y = 0 /\ mode = "a"

StepX == CASE x < 2 -> x' = x + 1 /\ y' = y
           [] x < 4 -> \/ x' = x + 2 /\ y' = y
                       \/ x' = 0 /\ y' = (y + 1) % 3
           [] OTHER -> x' = 0 /\ y' = y

Step == StepX /\ UNCHANGED mode

Mode == /\ IF mode = "a"
             THEN mode' = "b" /\ y' = y
             ELSE /\ mode' = "a"
                  /\ y' \in {y, (y + 2) % 3}
        /\ x' = IF x > 2 THEN x - 1 ELSE x

Strict == /\ mode # "b"
          /\ CASE mode = "a" /\ y = 2 -> x' = 5 /\ y' = 0 /\ mode' = "c"
               [] mode = "c"          -> x' = x /\ y' = y /\ mode' = "a"
               [] mode = "a" /\ y # 2 -> FALSE

Next == Step \/ Mode \/ Strict

Bad == CASE x > 10 -> x' = 0 /\ y' = y /\ mode' = mode
         [] y > 10 -> UNCHANGED <<x, y, mode>>

NextBad == Step \/ Bad

TypeOK == x \in 0..5 /\ y \in 0..2 /\ mode \in {"a", "b", "c"}
=============================================================================
