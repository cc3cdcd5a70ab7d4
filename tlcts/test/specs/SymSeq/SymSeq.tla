-------------------------------- MODULE SymSeq --------------------------------
(***************************************************************************)
(* SYMMETRY over a sequence of model values and a record holding a set and *)
(* a tuple of model values (permutations must reach inside tuples, records *)
(* and sets, and equal permuted values must fingerprint alike).            *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS with the key min(state,          *)
(* swap(state)) for SymSeq.cfg and the identity key for SymSeq_None.cfg.    *)
(***************************************************************************)
EXTENDS Naturals, Sequences, TLC
CONSTANT P
VARIABLES q, r
Init == q = <<>> /\ r = [who |-> {}, last |-> <<>>]
Next == \/ \E p \in P : /\ Len(q) < 2
                         /\ q' = Append(q, p)
                         /\ r' = [r EXCEPT !.who = @ \cup {p}, !.last = <<p>>]
        \/ /\ q # <<>>
           /\ q' = Tail(q)
           /\ UNCHANGED r
Sym == Permutations(P)
=============================================================================
