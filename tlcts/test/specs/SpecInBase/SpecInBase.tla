----------------------------- MODULE SpecInBase -----------------------------
(* The model's SPECIFICATION is Counter's Spec, reached through an unnamed  *)
(* INSTANCE; the cfg overrides the standard Nat (as MC modules of public   *)
(* specs do); the PROPERTY is a liveness formula two instances deep: it is *)
(* reported as not checked, while the state space is explored exactly:     *)
(* x = 0..3, 4 distinct, 1 + 3 generated, depth 4.                         *)
EXTENDS Naturals
CONSTANT N
VARIABLE x
INSTANCE Counter
NatOverride == 0..10
Inner == INSTANCE Mid
Prop == Inner!MidReaches
=============================================================================
