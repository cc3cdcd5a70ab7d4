---------------------------- MODULE DeepRecursion ----------------------------
(***************************************************************************)
(* A recursive function and a RECURSIVE operator 3000 calls deep.          *)
(*                                                                         *)
(* A checker must either compute them (x = (3000 * 3001 / 2) % 7 = 3 and   *)
(* f[3000] % 7 = 3: one state, 1 + 1 = 2 generated, depth 1) or stop with  *)
(* a clear error (TLC reports a Java StackOverflowError in words when its  *)
(* stack is exhausted); it must not crash with an uncaught exception.      *)
(***************************************************************************)
EXTENDS Naturals

RECURSIVE SumTo(_)
SumTo(n) == IF n = 0 THEN 0 ELSE n + SumTo(n - 1)

f[n \in 0..3000] == IF n = 0 THEN 0 ELSE f[n - 1] + n

VARIABLES x, y

Init == x = SumTo(3000) % 7 /\ y = f[3000] % 7

Next == UNCHANGED <<x, y>>
=============================================================================
