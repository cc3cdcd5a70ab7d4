---------------------------- MODULE WithProofs -----------------------------
(* A spec with a TLAPS proof: model checking loads TLAPS and ignores the  *)
(* proof, as TLC does. x counts 0..3: 4 distinct, 1 + 3 generated.        *)
EXTENDS Naturals, TLAPS
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
TypeOK == x \in 0..3
THEOREM Inductive == Init => TypeOK
  BY SMT, Zenon, SMTT(10) DEF Init, TypeOK
=============================================================================
