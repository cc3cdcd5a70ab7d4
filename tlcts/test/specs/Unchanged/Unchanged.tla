------------------------------ MODULE Unchanged ------------------------------
(***************************************************************************)
(* UNCHANGED in its various forms.                                         *)
(*                                                                         *)
(* Features: UNCHANGED of a definition (pair == <<b, c>>) inside a tuple,  *)
(* of nested tuples <<a, <<c, <<d>>>>>>, of a variable already assigned by *)
(* d' \in S (keeps only d' = d), of a variable already assigned to a       *)
(* different value (no successor), of a non-variable expression a + b      *)
(* (compared after the assignments), and the whole vars tuple in a         *)
(* stuttering action that is enabled only in one state.                    *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine.             *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES a, b, c, d

pair == <<b, c>>
vars == <<a, <<b, c>>, d>>

Init == a = 0 /\ b = 0 /\ c = 0 /\ d = 0

IncA == /\ a < 3
        /\ a' = a + 1
        /\ UNCHANGED <<pair, d>>

IncB == /\ b < 2
        /\ b' = b + 1
        /\ UNCHANGED <<a, <<c, <<d>>>>>>

SetD == /\ d' = a
        /\ UNCHANGED <<a, pair>>

Both == /\ c' = (c + 1) % 2
        /\ UNCHANGED <<a, b>>
        /\ d' \in {0, 1}
        /\ UNCHANGED d

Conflict == /\ a' = a + 1
            /\ UNCHANGED <<a, b, c, d>>

Shift == /\ a > 0
         /\ b < 2
         /\ a' = a - 1
         /\ b' = b + 1
         /\ UNCHANGED (a + b)
         /\ UNCHANGED <<c, d>>

Shift2 == /\ a' = a - 1
          /\ b' = b
          /\ UNCHANGED (a + b)
          /\ UNCHANGED <<c, d>>

Idle == /\ a = 3 /\ b = 2 /\ c = 1 /\ d = 3
        /\ UNCHANGED vars

Next == IncA \/ IncB \/ SetD \/ Both \/ Conflict \/ Shift \/ Shift2 \/ Idle
=============================================================================
