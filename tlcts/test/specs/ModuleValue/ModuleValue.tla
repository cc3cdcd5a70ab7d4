---------------------------- MODULE ModuleValue ----------------------------
(* `Limit = [Inner] 4` replaces Inner's Limit by a value, inside Inner     *)
(* only: x counts 0..4, 5 distinct, 1 + 4 generated, depth 5; the root's  *)
(* own Limit stays 7 and bounds nothing here (1001 states without it).     *)
EXTENDS Naturals
VARIABLE x
I == INSTANCE Inner
Limit == 7
Init == x = 0
Next == I!Ok(x + 1) /\ x' = x + 1
RootLimitKept == Limit = 7
=============================================================================
