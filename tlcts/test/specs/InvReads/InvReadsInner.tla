---------------------------- MODULE InvReadsInner ----------------------------
(* The instanced module of InvReads: its variable w is an expression there. *)
EXTENDS Naturals
VARIABLE w
Small == w < 2
=============================================================================
