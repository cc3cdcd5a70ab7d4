------------------------------ MODULE ChooseDet ------------------------------
(***************************************************************************)
(* CHOOSE is deterministic: TLC returns the least element (in its value    *)
(* order) that satisfies the predicate.                                    *)
(*                                                                         *)
(* Features: CHOOSE over A \X B (tuples: element-wise), over a record set  *)
(* (fields ordered by first appearance of the field name in the module,    *)
(* here zz before aa), over SUBSET (sets: cardinality first, then          *)
(* element-wise), over strings (order of first appearance: "zeta" first),  *)
(* over model values (order of the .cfg: q2 before q1).                    *)
(*                                                                         *)
(* The invariant Expected holds a table of the values TLC must choose,     *)
(* derived by hand from those rules (see the .cfg). The state machine is a *)
(* 7-cycle of x with a toggle of who: 14 distinct states, 15 generated     *)
(* (1 initial + 14 successors), depth 14.                                  *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS Procs, First

Cells == [zz : 0..3, aa : 0..3]
Words == {"zeta", "alpha", "mid"}

VARIABLES x, pick, rec, set, who

PickFor(k) == CHOOSE p \in (0..3) \X (0..3) : p[1] + p[2] = k
RecFor(k)  == CHOOSE r \in Cells : r.zz + r.aa = k
SetFor(k)  == CHOOSE s \in SUBSET (1..4) :
                /\ Cardinality(s) = (k % 3) + 1
                /\ (k \in s \/ k > 4 \/ k = 0)

Init == /\ x = 0
        /\ pick = PickFor(0)
        /\ rec = RecFor(0)
        /\ set = SetFor(0)
        /\ who = CHOOSE p \in Procs : TRUE

Next == /\ x' = (x + 1) % 7
        /\ pick' = PickFor(x')
        /\ rec' = RecFor(x')
        /\ set' = SetFor(x')
        /\ who' = CHOOSE p \in Procs : p # who

PickTable == <<<<0, 0>>, <<0, 1>>, <<0, 2>>, <<0, 3>>, <<1, 3>>, <<2, 3>>, <<3, 3>>>>
ZzTable   == <<0, 0, 0, 0, 1, 2, 3>>
SetTable  == <<{1}, {1, 2}, {1, 2, 3}, {3}, {1, 4}, {1, 2, 3}, {1}>>

Expected == /\ pick = PickTable[x + 1]
            /\ rec = [zz |-> ZzTable[x + 1], aa |-> x - ZzTable[x + 1]]
            /\ set = SetTable[x + 1]
            /\ (CHOOSE w \in Words : TRUE) = "zeta"
            /\ (CHOOSE w \in Words : w # "zeta") = "alpha"
            /\ (CHOOSE p \in Procs : TRUE) = First
            /\ (CHOOSE s \in SUBSET Words : Cardinality(s) = 2) = {"zeta", "alpha"}
=============================================================================
