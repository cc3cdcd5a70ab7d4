------------------------------- MODULE InstBase -------------------------------
(* Helper module for Instances.tla: a LOCAL definition and a public one using it. *)
EXTENDS Naturals

LOCAL Helper(a) == a * 2

Double(a) == Helper(a)

Cap == 6
=============================================================================
