------------------------------- MODULE Inner -------------------------------
(* A definition that the model overrides only inside this module.         *)
EXTENDS Naturals
Limit == 1000
Ok(v) == v <= Limit
=============================================================================
