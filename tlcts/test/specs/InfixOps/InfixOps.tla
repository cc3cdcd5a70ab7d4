------------------------------- MODULE InfixOps -------------------------------
(***************************************************************************)
(* User-defined infix and postfix operators, and duplicate initial states. *)
(*                                                                         *)
(* Features: definitions of ++, \prec, **, (+) (without Bags), //, ^+;      *)
(* an Init disjunction whose disjuncts are true together (TLC generates    *)
(* one initial state per true disjunct: x = 0 twice, x = 1 twice).         *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS: x in 0..4; successors (x+3)%5,  *)
(* (2x+1)%5 when x > 2, (x+2)%5, (x+1)%5 and x itself: 4 initial states    *)
(* generated (2 distinct), 5 distinct, 26 generated, depth 2.              *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES x

a ++ b == (a + b) % 5
a \prec b == a > b
a ** b == a * b + 1
a (+) b == a + 2 * b
n ^+ == n + 1
a // b == a

Init == x \in 0..1 /\ (x = 0 \/ x = 1 \/ x < 2)

Next == \/ x' = x ++ 3
        \/ x \prec 2 /\ x' = (x ** 2) % 5
        \/ x' = (x (+) 1) % 5
        \/ x' = (x^+) % 5
        \/ x' = x // 7
=============================================================================
