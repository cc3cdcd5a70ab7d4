---------------------------- MODULE LazyFilter -----------------------------
(* Membership in {D \in SUBSET SUBSET (1..n) : P(D)} is decided by testing *)
(* D's subset condition and P, never by enumerating the 2^(2^n) candidates *)
(* (TLC's SetPredValue). n counts 1..6: 6 distinct, 1 + 5 generated.       *)
EXTENDS Naturals
VARIABLE n
Init == n = 1
Next == n < 6 /\ n' = n + 1
Disjoint(D) == \A a, b \in D : a = b \/ a \cap b = {}
Partitions == {D \in SUBSET SUBSET (1..n) : Disjoint(D)}
Inv == /\ {{1}} \in Partitions
       /\ {{1}, {1, n}} \notin Partitions \/ n = 1
=============================================================================
