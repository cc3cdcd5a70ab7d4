--------------------------- MODULE RecordsFcnSets ---------------------------
(***************************************************************************)
(* Records, sets of records, sets of functions and SUBSET as the domains   *)
(* of quantifiers and of x' \in S.                                         *)
(*                                                                         *)
(* Features: r \in [kind : K, val : V] in Init, r' \in [..] \ {r},         *)
(* \E g \in [Procs -> {0, 1}] : ..., f' \in [D -> R] filtered by a later   *)
(* guard, sub' \in SUBSET S filtered by a later guard, \E T \in SUBSET sub, *)
(* \A over SUBSET, record sets whose field ranges are SUBSET, record       *)
(* literals, .field access, DOMAIN of a record.                            *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine.             *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

Procs == {"p", "q"}
Kinds == {"req", "ack"}

VARIABLES r, f, sub

Init == /\ r \in [kind : Kinds, val : 0..1]
        /\ f \in [Procs -> {0, 1}]
        /\ sub = {}

ChangeR == /\ r' \in [kind : Kinds, val : {r.val, 1 - r.val}] \ {r}
           /\ r'.kind = "ack" \/ r'.val = 1
           /\ UNCHANGED <<f, sub>>

Raise == \E g \in [Procs -> {0, 1}] :
           /\ \E p \in Procs : g[p] # f[p]
           /\ \A p \in Procs : g[p] >= f[p]
           /\ f' = g
           /\ UNCHANGED <<r, sub>>

Grow == /\ sub' \in SUBSET (1..3)
        /\ sub \subseteq sub'
        /\ Cardinality(sub') = Cardinality(sub) + 1
        /\ UNCHANGED <<r, f>>

Shrink == \E T \in SUBSET sub :
            /\ Cardinality(T) = Cardinality(sub) - 1
            /\ sub' = T
            /\ f' \in [Procs -> {0}]
            /\ UNCHANGED r

Mix == /\ r.kind = "ack"
       /\ \E m \in [who : SUBSET Procs, n : {Cardinality(sub)}] :
            /\ Cardinality(m.who) = 1
            /\ r' = [kind |-> "req", val |-> m.n % 2]
            /\ f' = [p \in Procs |-> IF p \in m.who THEN 1 ELSE f[p]]
       /\ UNCHANGED sub

Next == ChangeR \/ Raise \/ Grow \/ Shrink \/ Mix

TypeOK == /\ r \in [kind : Kinds, val : 0..1]
          /\ DOMAIN r = {"kind", "val"}
          /\ f \in [Procs -> {0, 1}]
          /\ sub \in SUBSET (1..3)
          /\ \A T \in SUBSET sub : Cardinality(T) <= Cardinality(sub)
=============================================================================
