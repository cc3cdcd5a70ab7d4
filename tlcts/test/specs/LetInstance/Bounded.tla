------------------------------- MODULE Bounded -------------------------------
(* Instantiated only inside a LET of LetInstance, with its own EXTENDS.     *)
EXTENDS Naturals, Sequences
CONSTANT Cap
Fits(s) == Len(s) < Cap
Odd(s) == SelectSeq(s, LAMBDA e : e % 2 = 1)
=============================================================================
