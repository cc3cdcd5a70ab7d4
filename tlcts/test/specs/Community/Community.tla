----------------------------- MODULE Community -----------------------------
(* A queue of at most three 1s and 2s, checked with invariants written with  *)
(* the CommunityModules, and a TLAPS proof that model checking skips.        *)
(* Figures derived by hand: the reachable states are the sequences over      *)
(* {1, 2} of length at most 3, 1 + 2 + 4 + 8 = 15 distinct; a state shorter  *)
(* than 3 has two Grow successors and, unless empty, one Shrink successor,   *)
(* so 1 + 1*2 + 2*3 + 4*3 + 8*1 = 29 states are generated; depth 4.          *)
(* NoSortedTriple is first violated by <<1, 1, 1>>, the first state of       *)
(* length 3 that the breadth-first search reaches.                           *)
EXTENDS SequencesExt, FiniteSetsExt, Functions, Relation, Graphs, Json, IOUtils, TLAPS

VARIABLE q

Init == q = <<>>
Grow == Len(q) < 3 /\ \E e \in 1..2 : q' = Append(q, e)
Shrink == q # <<>> /\ q' = Tail(q)
Next == Grow \/ Shrink

\* The graph of the steps q[i] -> q[i + 1], and the relation it defines.
Steps == [node |-> ToSet(q), edge |-> {<<q[i], q[i + 1]>> : i \in 1..Len(q) - 1}]
Follows == [a, b \in 1..2 |-> <<a, b>> \in Steps.edge]

TypeOK == q \in BoundedSeq(1..2, 3)

Inv ==
  /\ Reverse(Reverse(q)) = q
  /\ FoldLeft(LAMBDA a, b : a + b, 0, q) = FoldRight(LAMBDA a, b : a + b, q, 0)
  /\ IsInjective(q) <=> Cardinality(ToSet(q)) = Len(q)
  /\ Len(q) > 1 => AreConnectedIn(Head(q), Last(q), Steps)
  /\ IsTransitive(TransitiveClosure(Follows, 1..2), 1..2)
  /\ Len(ToJson(q)) = IF q = <<>> THEN 2 ELSE 2 * Len(q) + 1
  /\ atoi(ToString(SumSet(ToSet(q)))) <= 3

NoSortedTriple == ~(Len(q) = 3 /\ IsSorted(q, LAMBDA a, b : a <= b))

THEOREM TypeCorrect == Init /\ [][Next]_q => []TypeOK
  BY ZenonT(30), IsaT(60), CVC4T(10), PTL DEF Init, Next, Grow, Shrink, TypeOK
=============================================================================
