------------------------------ MODULE ValueCanon ------------------------------
(***************************************************************************)
(* Equal values built in different ways are one state.                     *)
(*                                                                         *)
(* Rep[k + 1] lists several constructions of one value V(k): tuples from  *)
(* Append, [i \in 1..n |-> ..], :> and @@, EXCEPT; empty sequences from   *)
(* Tail, SubSeq, an empty function and EmptyBag; records from record       *)
(* literals, :> @@ on strings, [f \in {..} |-> ..] and EXCEPT; sets from   *)
(* enumeration with repeats, intervals, filters, maps, UNION and DOMAIN;   *)
(* functions on sets of sets.                                              *)
(*                                                                         *)
(* Next sets k' = (k + 1) % 5 and picks v' from Rep[k' + 1] by index       *)
(* (\E i \in DOMAIN ..: one successor per construction) and once more     *)
(* from the set of all constructions (v' \in {..}: one successor, as the   *)
(* set has one element). So 5 distinct states (k, V(k)), depth 5, and      *)
(* generated = 1 + sum over k of (Len(Rep[k + 1]) + 1)                     *)
(*           = 1 + (4 + 1) + (5 + 1) + (6 + 1) + (3 + 1) + (5 + 1) = 29.   *)
(* RepOK checks the constructions pairwise equal.                          *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC, Bags

Rep == <<
  \* k = 0: the empty sequence
  << <<>>, Tail(<<1>>), SubSeq(<<1, 2>>, 2, 1), [i \in {} |-> 1], EmptyBag >>,
  \* k = 1: <<1, 2>>
  << [i \in 1..2 |-> i], (2 :> 2) @@ (1 :> 1), Append(<<1>>, 2), [<<0, 2>> EXCEPT ![1] = 1] >>,
  \* k = 2: a record
  << [a |-> 1, b |-> 2], ("b" :> 2) @@ ("a" :> 1), [f \in {"a", "b"} |-> IF f = "a" THEN 1 ELSE 2],
     [[a |-> 0, b |-> 2] EXCEPT !.a = 1], [b |-> 2, a |-> 1] >>,
  \* k = 3: the set {1, 2}
  << {2, 1, 1}, 1..2, {n \in 0..5 : n \in 1..2}, {n - 1 : n \in 2..3}, UNION {{1}, {2}, {1, 2}},
     DOMAIN <<7, 8>> >>,
  \* k = 4: a function whose domain is a set of sets
  << [t \in SUBSET {1} |-> Cardinality(t)], ({1} :> 1) @@ ({} :> 0),
     [t \in {{}, {1}} |-> IF t = {} THEN 0 ELSE 1] >>
>>

VARIABLES k, v

Init == k = 0 /\ v = <<>>

Next == /\ k' = (k + 1) % 5
        /\ \/ \E i \in DOMAIN Rep[k' + 1] : v' = Rep[k' + 1][i]
           \/ v' \in {Rep[k' + 1][i] : i \in DOMAIN Rep[k' + 1]}

RepOK == \A j \in DOMAIN Rep : \A i \in DOMAIN Rep[j] : Rep[j][i] = Rep[j][1]
=============================================================================
