---------------------------- MODULE EnabledForall ----------------------------
(***************************************************************************)
(* ENABLED in invariants, and \A inside actions.                           *)
(*                                                                         *)
(* Features: ENABLED of a parameterized action, of Next, of a disjunction  *)
(* with \E; \A p \in S : guard; \A i \in 1..2 : tok' \in {i, i + 1} (the   *)
(* first binding enumerates tok', the second filters it: one successor);   *)
(* \A over an empty set before the variable it mentions is assigned; a     *)
(* guard \E p \in S : P(p) inside an action, which TLC enumerates (one     *)
(* successor per witness).                                                 *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine.             *)
(***************************************************************************)
EXTENDS Naturals

CONSTANT N

Procs == 1..N

VARIABLES pos, tok

Init == pos = [p \in Procs |-> 0] /\ tok = 1

Adv(p) == /\ tok = p
          /\ pos[p] < 2
          /\ pos' = [pos EXCEPT ![p] = @ + 1]
          /\ tok' = (p % N) + 1

Skip == /\ \E p \in Procs : pos[p] < 2
        /\ tok' = (tok % N) + 1
        /\ UNCHANGED pos

Sync == /\ \A p \in Procs : pos[p] = 2
        /\ \A i \in 1..2 : tok' \in {i, i + 1}
        /\ \A q \in {p \in Procs : pos[p] > 5} : pos'[q] = 0
        /\ pos' = [p \in Procs |-> 0]

Next == (\E p \in Procs : Adv(p)) \/ Skip \/ Sync

EnabledOk  == (pos[tok] < 2) => ENABLED Adv(tok)
NoDeadlock == ENABLED Next
AdvOrSkip  == ENABLED (Skip \/ \E p \in Procs : Adv(p))
=============================================================================
