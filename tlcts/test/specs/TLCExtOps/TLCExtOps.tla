---------------------------- MODULE TLCExtOps ----------------------------
(* TLCExt operators with evaluation order: AssertError catches the error of its unevaluated   *)
(* second argument and, as TLC's Java override, is FALSE when that argument does not fail;    *)
(* TLCGetOrDefault / TLCGetAndSet use the registers (TLCGetAndSet with a                      *)
(* builtin operator argument). Expected: 3 distinct states, counter 0..2, checked by hand.    *)
EXTENDS Naturals, Sequences, TLC, TLCExt

ASSUME AssertError("Attempted to apply Tail to the empty sequence.", Tail(<<>>))
ASSUME ~AssertError("some other message", Tail(<<>>))
ASSUME ~AssertError("anything", 1 + 1)
ASSUME TLCGetOrDefault(7, "none") = "none"
ASSUME TLCGetAndSet(7, +, 5, 10) = 10
ASSUME TLCGet(7) = 15
ASSUME TLCGetOrDefault(7, 0) = 15
ASSUME AssertEq(TLCModelValue("m1"), TLCModelValue("m1"))

VARIABLE counter
Init == counter = 0
Next == counter < 2 /\ counter' = counter + 1
=============================================================================
