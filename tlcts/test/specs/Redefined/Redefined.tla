---------------------------- MODULE Redefined ----------------------------
(* Defining a name that EXTENDS already imports (here Sequences' Append)  *)
(* is an error in SANY, not a silent override.                            *)
EXTENDS Naturals, Sequences
VARIABLE q
Init == q = <<>>
Append(s, x) == q' = s
Next == Append(q, 1)
=============================================================================
