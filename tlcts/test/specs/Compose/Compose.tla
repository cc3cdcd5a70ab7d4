----------------------------- MODULE Compose -----------------------------
(* Action composition A \cdot B as TLC takes it (with its property tlc2.tool.impl.Tool.cdot):  *)
(* the states A reaches, then B's steps from them; the intermediate states count as generated. *)
(* By hand: x goes 0, 2, 4, 6 (A \cdot A adds 2 while x < 5); each step generates its          *)
(* intermediate state and its successor: 1 + 3 * 2 = 7 generated, 4 distinct, depth 4.         *)
EXTENDS Naturals

VARIABLE x

Init == x = 0

A == x' = x + 1
Odd == x % 2 = 1 /\ x' = x + 1

Next == x < 5 /\ (A \cdot A)

Even == x % 2 = 0 /\ (x < 5 => ENABLED (A \cdot A))
TwoAtATime == [][A \cdot A]_x
NeverOddTwice == [][~(Odd \cdot Odd)]_x
=============================================================================
