------------------------------- MODULE IntArith -------------------------------
(***************************************************************************)
(* Integers: negative numbers, \div and % (floor semantics), unary minus.  *)
(*                                                                         *)
(* Features: x \in -3..3, negative intervals -2 .. -1, % with a negative   *)
(* left operand (result in 0..n-1), \div rounding toward minus infinity,   *)
(* the precedence of prefix minus below \div (-x \div 2 = -(x \div 2)),    *)
(* a guard on a primed variable after its assignment, ^ with a negative    *)
(* base.                                                                   *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine (Python's // *)
(* and % floor like TLA+'s \div and % for positive divisors).              *)
(***************************************************************************)
EXTENDS Integers

VARIABLES x, y

Init == x \in -3..3 /\ y = 0

Mix == /\ x' = ((x * 5 + y) % 11) - 5
       /\ y' = x \div 3

Halve == /\ x < 0
         /\ x' = -x \div 2
         /\ y' = ((y - 1) % 4) - 2

Down == /\ \E d \in -2 .. -1 : /\ x' = x + d
                              /\ x' >= -5
        /\ y' = y

Next == Mix \/ Halve \/ Down

TypeOK == x \in -5..5 /\ y \in -2..1

Laws == /\ (-7) \div 2 = -4
        /\ (-7) % 2 = 1
        /\ 7 \div (-2) = -4
        /\ -7 \div 2 = -3
        /\ (-2) ^ 3 = -8
        /\ x % 3 \in 0..2
        /\ (x \div 3) * 3 + x % 3 = x
=============================================================================
