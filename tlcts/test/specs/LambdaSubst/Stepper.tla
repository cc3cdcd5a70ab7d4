------------------------------- MODULE Stepper -------------------------------
(* An operator constant, given by each instance of LambdaSubst.            *)
CONSTANT Op(_)
VARIABLE v
Init == v = Op(0)
Step == v' = Op(v)
=============================================================================
