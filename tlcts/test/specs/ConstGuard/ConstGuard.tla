------------------------------ MODULE ConstGuard ------------------------------
(***************************************************************************)
(* An action quantified over many bindings whose first conjunct is a       *)
(* constant: TLC evaluates the bounds, then tests the guard for every      *)
(* binding. tlcts tests it once; the figures and errors must not change.   *)
(*                                                                         *)
(*   Batch(n): Flag /\ x' = n, for n a cardinality of a subset of 1..3:    *)
(*             8 successors (0, 1, 1, 1, 2, 2, 2, 3) when Flag is TRUE.    *)
(*   Step:     x < 3 /\ x' = x + 1.                                         *)
(*                                                                         *)
(* Flag FALSE (ConstGuard.cfg): x = 0..3 in turn, 4 states, 1 + 3 = 4      *)
(* generated, depth 4.                                                     *)
(* Flag TRUE (ConstGuard_On.cfg): x in 0..3 all within one step, 4 states, *)
(* 1 + 4 * 8 + 3 = 36 generated, depth 2.                                  *)
(* Bad = 1, a non-boolean guard (ConstGuard_NonBool.cfg): the error of     *)
(* the first binding, at the initial state (1 state, 1 generated).          *)
(* Over an empty set (ConstGuard_Empty.cfg, Bad = 1): no binding, so the   *)
(* guard is never tested: as Flag FALSE.                                   *)
(* Over Nat (ConstGuard_Nat.cfg, Flag FALSE): the bound cannot be          *)
(* enumerated, an error at the initial state.                              *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS Flag, Bad, Domain

VARIABLE x

Init == x = 0

Batch(n) == Flag /\ x' = n

Odd(n) == Bad /\ x' = n

NatDomain == Nat

Step == x < 3 /\ x' = x + 1

Next ==
    \/ \E S \in SUBSET (1..3) : Batch(Cardinality(S))
    \/ \E n \in Domain : Odd(n)
    \/ Step
=============================================================================
