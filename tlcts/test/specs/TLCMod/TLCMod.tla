-------------------------------- MODULE TLCMod --------------------------------
(***************************************************************************)
(* Operators of the TLC module in actions.                                 *)
(*                                                                         *)
(* Features: k :> v, f @@ g (left operand wins on overlap), DOMAIN of the  *)
(* result, Permutations of a set of integers as a quantifier domain,       *)
(* SortSeq with a LAMBDA order, ToString of integers, tuples and functions *)
(* whose domain is or is not 1..n (so "<<0, 1>>" vs "(1 :> 0 @@ 3 :> 1)") *)
(* stored in a variable.                                                   *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine, with TLC's  *)
(* printing rules for ToString.                                            *)
(***************************************************************************)
EXTENDS Naturals, Sequences, TLC

Keys == {1, 2, 3}

VARIABLES f, s, str

Init == f = 1 :> 0 /\ s = <<3, 1, 2>> /\ str = ToString(0)

Add(k) == /\ k \notin DOMAIN f
          /\ f' = (k :> Len(s) - 2) @@ f
          /\ UNCHANGED <<s, str>>

Bump(k) == /\ k \in DOMAIN f
           /\ f[k] < 2
           /\ f' = (k :> f[k] + 1) @@ f
           /\ UNCHANGED <<s, str>>

Perm == \E p \in Permutations(Keys) :
          /\ p[2] = 2
          /\ s' = [i \in 1..3 |-> p[s[i]]]
          /\ UNCHANGED <<f, str>>

Sort == /\ s' = SortSeq(s, LAMBDA a, b : a > b)
        /\ str' = ToString(s')
        /\ UNCHANGED f

ShowF == /\ str' = ToString(f)
         /\ UNCHANGED <<f, s>>

Next == (\E k \in Keys : Add(k) \/ Bump(k)) \/ Perm \/ Sort \/ ShowF

ASSUME ToStrings ==
    /\ ToString(<<3, 2, 1>>) = "<<3, 2, 1>>"
    /\ ToString(1 :> 0 @@ 3 :> 1) = "(1 :> 0 @@ 3 :> 1)"
    /\ ToString((2 :> 5) @@ (1 :> 4)) = "<<4, 5>>"
    /\ ToString((1 :> 4) @@ (1 :> 5)) = "<<4>>"
    /\ ToString([p |-> 1]) = "[p |-> 1]"
    /\ ToString("hi") = "\"hi\""
    /\ ToString({3, 1}) = "{1, 3}"
    /\ ToString(<<>>) = "<<>>"
    /\ Permutations({1, 2}) = {<<1, 2>>, <<2, 1>>}
    /\ SortSeq(<<2, 3, 1>>, LAMBDA a, b : a < b) = <<1, 2, 3>>

TypeOK == /\ DOMAIN f \subseteq Keys
          /\ 1 \in DOMAIN f
          /\ \A k \in DOMAIN f : f[k] \in 0..2
          /\ Len(s) = 3
=============================================================================
