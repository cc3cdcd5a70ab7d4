----------------------------- MODULE StringsSeqs -----------------------------
(***************************************************************************)
(* Strings and the Sequences module.                                       *)
(*                                                                         *)
(* Features: string literals and sets of strings, string equality, \o and  *)
(* SubSeq and Len on strings, Append, Head, Tail, SubSeq, \o, SelectSeq    *)
(* with a LAMBDA, Len, Seq(S) membership in an invariant, a guard          *)
(* \E i \in 1..Len(q) : q[i] = "bye" in an action (one successor per       *)
(* matching index).                                                        *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine.             *)
(***************************************************************************)
EXTENDS Naturals, Sequences

Msgs == {"ping", "pong", "bye"}

VARIABLES q, out, word

Init == q = <<>> /\ out = <<>> /\ word = ""

Send(m) == /\ Len(q) < 3
           /\ q' = Append(q, m)
           /\ UNCHANGED <<out, word>>

Recv == /\ q # <<>>
        /\ q' = Tail(q)
        /\ out' = IF Len(out) < 2 THEN Append(out, Head(q))
                                  ELSE <<Head(q)>> \o SubSeq(out, 1, 1)
        /\ word' = LET w == word \o Head(q)
                   IN  IF Len(w) > 4 THEN SubSeq(w, 1, 4) ELSE w

Drop == /\ \E i \in 1..Len(q) : q[i] = "bye"
        /\ q' = SelectSeq(q, LAMBDA m : m # "bye")
        /\ UNCHANGED <<out, word>>

Requeue == /\ out # <<>>
           /\ Len(q) + Len(out) <= 3
           /\ q' = q \o out
           /\ out' = <<>>
           /\ UNCHANGED word

Clear == /\ word = "ping"
         /\ word' = ""
         /\ UNCHANGED <<q, out>>

Next == (\E m \in Msgs : Send(m)) \/ Recv \/ Drop \/ Requeue \/ Clear

TypeOK == /\ q \in Seq(Msgs)
          /\ Len(q) <= 3
          /\ out \in Seq(Msgs)
          /\ Len(word) <= 4
          /\ word \o "" = word
=============================================================================
