-------------------------------- MODULE Mid --------------------------------
(* An instance nested in an instance: Mid's property is Counter's.         *)
CONSTANT N
VARIABLE x
L == INSTANCE Counter
MidReaches == L!Reaches
=============================================================================
