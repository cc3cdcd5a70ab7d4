---------------------------- MODULE HigherOrder ----------------------------
(***************************************************************************)
(* Higher-order operators and LAMBDA.                                      *)
(*                                                                         *)
(* Features: operator parameters Op(_, _) / F(_), a RECURSIVE higher-order *)
(* fold, LAMBDA arguments (one and two parameters) that capture a bound    *)
(* variable of an enclosing \E or a state variable, an operator argument   *)
(* that is a LET-defined operator, an action operator taking an operator   *)
(* argument used as a guard, nested LAMBDA.                                *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine.             *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANT Max

VARIABLES x, s

RECURSIVE Fold(_, _, _)
Fold(Op(_, _), base, seq) ==
    IF seq = <<>> THEN base ELSE Op(Head(seq), Fold(Op, base, Tail(seq)))

Map(F(_), seq) == [i \in 1..Len(seq) |-> F(seq[i])]
Twice(F(_), v) == F(F(v))
Compose(F(_), G(_), v) == F(G(v))
Filter(P(_), S) == {e \in S : P(e)}
Add(a, b) == a + b
Inc(v) == v + 1

Window(seq, d) == IF Len(seq) < 3 THEN Append(seq, d) ELSE Tail(Append(seq, d))

Guarded(Cond(_), d) == /\ Cond(x)
                       /\ x' = x + d
                       /\ s' = Window(s, d)

Reduce == /\ x >= Max - 1
          /\ x' = Fold(Add, 0, Map(LAMBDA v : v * 2, s)) % (Max + 1)
          /\ s' = Map(LAMBDA v : Compose(Inc, LAMBDA w : w % 2, v), s)

Next == \/ \E d \in {1, 2} : Guarded(LAMBDA v : v + d <= Max, d)
        \/ Reduce

Init == x = 0 /\ s = <<>>

TypeOK == /\ x \in 0..Max
          /\ s \in Seq({1, 2})
          /\ Len(s) <= 3

Laws == LET Sq(v) == v * v
        IN  /\ Cardinality(Filter(LAMBDA e : e < x, 0..Max)) = x
            /\ Fold(LAMBDA a, b : a + b, 0, s) = Fold(Add, 0, s)
            /\ Fold(LAMBDA a, b : Sq(a) + b, 0, s) = Fold(Add, 0, Map(Sq, s))
            /\ Twice(LAMBDA v : Twice(Inc, v), x) = x + 4
=============================================================================
