------------------------------ MODULE LetActions ------------------------------
(***************************************************************************)
(* LET inside actions.                                                     *)
(*                                                                         *)
(* Features: LET with 0-ary and parameterized definitions in Init and in   *)
(* actions, a LET definition calling another LET definition, nested LET,   *)
(* LET inside \E whose definition reads a primed variable assigned BEFORE  *)
(* the LET is entered, a LET-defined operator with a primed argument.      *)
(* (LET definitions that read a variable assigned AFTER the LET is         *)
(* entered, and 0-ary LET definitions used as actions, are in LetPrimed.)  *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine.             *)
(***************************************************************************)
EXTENDS Integers

VARIABLES x, y, z

Init == LET start == 0
            Pair(a, b) == <<a, b>>
        IN  /\ x = start
            /\ y \in {start, start + 1}
            /\ z = Pair(x, y)

Move == LET d == IF x < 3 THEN 1 ELSE -3
            Clamp(v) == IF v > 5 THEN 5 ELSE v
            Step(v) == LET w == v + d IN Clamp(w)
        IN  /\ x' = Step(x)
            /\ \E k \in 0..1 : LET t == k + x' IN y' = t % 3
            /\ z' = <<x', y'>>

Swap == LET Mirror(a) == <<a[2], a[1]>>
        IN  /\ y < 2
            /\ UNCHANGED x
            /\ y' = 1 - y
            /\ z' = Mirror(<<y', x'>>)

Next == Move \/ Swap

TypeOK == x \in 0..5 /\ y \in 0..2 /\ z \in (0..5) \X (0..2)
=============================================================================
