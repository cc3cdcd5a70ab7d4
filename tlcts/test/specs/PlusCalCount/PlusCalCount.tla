----------------------------- MODULE PlusCalCount -----------------------------
(***************************************************************************)
(* A PlusCal algorithm and its translation, written by hand in the style   *)
(* of the PlusCal translator: processes each add 1 to a shared counter     *)
(* twice under a lock, with a read and a write step.                       *)
(*                                                                         *)
(* Features: pc with string labels, process-local variables as functions   *)
(* over Procs, IF inside a label's action, "Done", Terminating (stuttering *)
(* once every process is done, so no deadlock), ProcSet, Next ==           *)
(* (\E self \in Procs : P(self)) \/ Terminating.                           *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the translated machine (with  *)
(* a key under permutations of the processes for PlusCalCount_Sym.cfg).    *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets, TLC

CONSTANT Procs

(* --algorithm Count
variables counter = 0, lock = FALSE;

process P \in Procs
variables tmp = 0, i = 0;
begin
Loop: while i < 2 do
  Acq:  await ~lock;
        lock := TRUE;
  Rd:   tmp := counter;
  Wr:   counter := tmp + 1;
        i := i + 1;
  Rel:  lock := FALSE;
      end while;
end process;
end algorithm; *)
\* BEGIN TRANSLATION
VARIABLES counter, lock, pc, tmp, i

vars == << counter, lock, pc, tmp, i >>

ProcSet == (Procs)

Init == (* Global variables *)
        /\ counter = 0
        /\ lock = FALSE
        (* Process P *)
        /\ tmp = [self \in Procs |-> 0]
        /\ i = [self \in Procs |-> 0]
        /\ pc = [self \in ProcSet |-> "Loop"]

Loop(self) == /\ pc[self] = "Loop"
              /\ IF i[self] < 2
                    THEN /\ pc' = [pc EXCEPT ![self] = "Acq"]
                    ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
              /\ UNCHANGED << counter, lock, tmp, i >>

Acq(self) == /\ pc[self] = "Acq"
             /\ ~lock
             /\ lock' = TRUE
             /\ pc' = [pc EXCEPT ![self] = "Rd"]
             /\ UNCHANGED << counter, tmp, i >>

Rd(self) == /\ pc[self] = "Rd"
            /\ tmp' = [tmp EXCEPT ![self] = counter]
            /\ pc' = [pc EXCEPT ![self] = "Wr"]
            /\ UNCHANGED << counter, lock, i >>

Wr(self) == /\ pc[self] = "Wr"
            /\ counter' = tmp[self] + 1
            /\ i' = [i EXCEPT ![self] = i[self] + 1]
            /\ pc' = [pc EXCEPT ![self] = "Rel"]
            /\ UNCHANGED << lock, tmp >>

Rel(self) == /\ pc[self] = "Rel"
             /\ lock' = FALSE
             /\ pc' = [pc EXCEPT ![self] = "Loop"]
             /\ UNCHANGED << counter, tmp, i >>

P(self) == Loop(self) \/ Acq(self) \/ Rd(self) \/ Wr(self) \/ Rel(self)

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == (\E self \in Procs: P(self))
           \/ Terminating

Spec == Init /\ [][Next]_vars

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION

Mutex == Cardinality({p \in Procs : pc[p] \in {"Rd", "Wr", "Rel"}}) <= 1

Final == (\A p \in Procs : pc[p] = "Done") => counter = 2 * Cardinality(Procs)

Sym == Permutations(Procs)
=============================================================================
