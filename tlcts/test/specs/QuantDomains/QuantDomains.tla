----------------------------- MODULE QuantDomains -----------------------------
(***************************************************************************)
(* Quantifier domains that enumerate an element more than once.            *)
(*                                                                         *)
(* UNION S whose elements are not explicit sets (intervals, SUBSET ...) is *)
(* a lazy UnionValue in TLC; its plain enumeration repeats elements that   *)
(* lie in several members. x' \in S uses that plain enumeration (one       *)
(* successor per occurrence), but \E v \in S enumerates the domain in      *)
(* normalized order (EnumerableValue#elements(NORMALIZED) converts it to a *)
(* normalized, duplicate-free set), one successor per distinct element.    *)
(*                                                                         *)
(*   PickInt:   \E v \in UNION {0..2, 1..3}              4 successors       *)
(*   PickSet:   \E t \in UNION {SUBSET {1}, SUBSET {1, 2}}  4 successors    *)
(*   AssignInt: x' \in UNION {0..1, 1..2}                4 successors       *)
(*              (0, 1, 1, 2: the repeated 1 counts twice)                  *)
(*                                                                         *)
(* Expected: x in 0..3 and s in SUBSET {1, 2} are all reachable (16        *)
(* states) within two steps (depth 3); every state has 12 successors:      *)
(* 1 + 16 * 12 = 193 generated.                                            *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

VARIABLES x, s

Init == x = 0 /\ s = {}

PickInt == /\ \E v \in UNION {0..2, 1..3} : x' = v
           /\ UNCHANGED s

PickSet == /\ \E t \in UNION {SUBSET {1}, SUBSET {1, 2}} : s' = t
           /\ UNCHANGED x

AssignInt == /\ x' \in UNION {0..1, 1..2}
             /\ UNCHANGED s

Next == PickInt \/ PickSet \/ AssignInt

TypeOK == x \in 0..3 /\ s \subseteq {1, 2}
=============================================================================
