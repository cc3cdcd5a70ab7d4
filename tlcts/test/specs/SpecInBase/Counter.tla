------------------------------ MODULE Counter ------------------------------
(* A counter whose Next enumerates a subset of Nat: it can only be checked *)
(* when the model overrides Nat with a finite set. Its Spec is defined     *)
(* here and used by the models that instantiate or extend it.              *)
EXTENDS Naturals
CONSTANT N
VARIABLE x
Init == x = 0
Next == x' \in {y \in Nat : y = x + 1 /\ y <= N}
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Reaches == <>(x = N)
=============================================================================
