------------------------------- MODULE InvReads -------------------------------
(***************************************************************************)
(* An invariant's conjunct is taken over from the predecessor when the     *)
(* step changed none of the variables it reads (tlcts; TLC evaluates it    *)
(* anew): each invariant here reads a variable through another construct,  *)
(* and is violated by a step that changes that variable alone.             *)
(*                                                                         *)
(* Four counters, each 0..2, one incremented per step: 81 states, all      *)
(* reachable. Each invariant fails when its variable reaches 2: the first  *)
(* such state is two steps from Init (a trace of 3 states).                *)
(*   InvLet       b through a LET                                          *)
(*   InvParam     c through an operator's parameter                        *)
(*   InvHigher    d through an operator passed as an argument (LAMBDA)    *)
(*   InvSubst     b through an INSTANCE substitution                       *)
(*   InvNamed     c through a named instance's operator                    *)
(*   InvRec       d through a recursive function                           *)
(*   InvChoose    b through CHOOSE over a set built from it                *)
(* InvPrint: never violated, and prints b for each of the 81 states (a     *)
(* conjunct with an effect is never taken over).                           *)
(***************************************************************************)
EXTENDS Naturals, TLC

VARIABLES a, b, c, d
vars == <<a, b, c, d>>

Init == a = 0 /\ b = 0 /\ c = 0 /\ d = 0

Step(v) == v < 2 /\ v' = v + 1

Next ==
    \/ Step(a) /\ UNCHANGED <<b, c, d>>
    \/ Step(b) /\ UNCHANGED <<a, c, d>>
    \/ Step(c) /\ UNCHANGED <<a, b, d>>
    \/ Step(d) /\ UNCHANGED <<a, b, c>>

Below(v, n) == v < n
Apply(F(_), v) == F(v)
INSTANCE InvReadsInner WITH w <- b
Named == INSTANCE InvReadsInner WITH w <- c
RECURSIVE Down(_)
Down(n) == IF n = 0 THEN 0 ELSE 1 + Down(n - 1)
Count[n \in 0..2] == IF n = 0 THEN 0 ELSE 1 + Count[n - 1]

InvLet == /\ a < 5 /\ LET v == b IN v < 2
InvParam == /\ a < 5 /\ Below(c, 2)
InvHigher == /\ a < 5 /\ Apply(LAMBDA v : v < 2, d)
InvSubst == /\ a < 5 /\ Small
InvNamed == /\ a < 5 /\ Named!Small
InvRec == /\ a < 5 /\ Count[d] + Down(d) < 4
InvChoose == /\ a < 5 /\ (CHOOSE v \in {b, 7} : v < 7) < 2
InvPrint == /\ a < 5 /\ PrintT(b)
=============================================================================
