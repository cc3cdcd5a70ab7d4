----------------------------- MODULE LetInstance -----------------------------
(* A module instantiated only in a LET (`LET B == INSTANCE Bounded ...`),   *)
(* found and loaded, its EXTENDS in scope through B!: s grows <<>>, <<1>>,   *)
(* <<1, 2>>, <<1, 2, 3>> while B!Fits(s) (Cap 3) holds, then stops (no    *)
(* deadlock check): 4 distinct states, 1 + 3 generated, depth 4. Inv uses   *)
(* B!Odd and B!< (Naturals' <, through the instance) on the caller's s; the *)
(* odd elements number at most 2, so Inv holds and Tight (< 2) fails first  *)
(* at <<1, 2, 3>>: the 4th state, 4 generated.                              *)
VARIABLE s
Init == s = <<>>
Next == LET B == INSTANCE Bounded WITH Cap <- 3 IN
          /\ B!Fits(s)
          /\ s' = B!Append(s, B!+(B!Len(s), 1))
Inv == LET B == INSTANCE Bounded WITH Cap <- 3 IN
         B!<(B!Len(B!Odd(s)), 3)
Tight == LET B == INSTANCE Bounded WITH Cap <- 3 IN
           B!<(B!Len(B!Odd(s)), 2)
=============================================================================
