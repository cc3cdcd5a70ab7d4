------------------------------ MODULE LiveProcs ------------------------------
(***************************************************************************)
(* Processes that start and stop work; only stopping is fair, per process *)
(* (\A p \in Procs : WF_pc(Stop(p))). Temporal operators with parameters, *)
(* LET, \A and \E over temporal formulas, SYMMETRY. Procs = {a, b}: 4     *)
(* states, 9 generated, depth 3; under SYMMETRY 3 states, 7 generated.    *)
(***************************************************************************)
EXTENDS TLC

CONSTANT Procs

VARIABLE pc

Init == pc = [p \in Procs |-> "idle"]
Start(p) == pc[p] = "idle" /\ pc' = [pc EXCEPT ![p] = "busy"]
Stop(p) == pc[p] = "busy" /\ pc' = [pc EXCEPT ![p] = "idle"]
Next == \E p \in Procs : Start(p) \/ Stop(p)

Spec == Init /\ [][Next]_pc /\ \A p \in Procs : WF_pc(Stop(p))

Busy(p) == pc[p] = "busy"

\* Holds: every busy process stops (WF_pc(Stop(p))).
BusyEnds == \A p \in Procs : Busy(p) ~> ~Busy(p)
Relaxes(p) == []<>~Busy(p)
AllRelax == \A p \in Procs : Relaxes(p)
LetLeads == LET B(p) == pc[p] = "busy" IN \A p \in Procs : B(p) ~> ~B(p)

\* Violated: starting is not fair, nothing need ever start.
SomeoneWorks == \E p \in Procs : <>Busy(p)

\* Violated: a and b can take turns so that someone is always busy.
AllIdleOften == []<>(\A p \in Procs : pc[p] = "idle")

Sym == Permutations(Procs)
=============================================================================
