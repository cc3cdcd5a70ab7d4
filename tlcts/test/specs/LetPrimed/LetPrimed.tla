------------------------------ MODULE LetPrimed ------------------------------
(***************************************************************************)
(* LET definitions whose value depends on variables that are assigned     *)
(* only after the LET has been entered, and 0-ary LET definitions that are *)
(* actions.                                                                *)
(*                                                                         *)
(* TLC evaluates such a definition afresh for every assignment (it caches  *)
(* a LET value only when its level is constant in Init, or at most state   *)
(* level in Next: the fix of tlaplus issue 113), and it takes a 0-ary LET  *)
(* definition used as a conjunct as an action (x' = e assigns, UNCHANGED   *)
(* binds).                                                                 *)
(*                                                                         *)
(* LetPrimed.cfg (InitLet/NextLet): initial states (a, b, a + b) for a in  *)
(* 0..2, b in 0..1 (6, all distinct); every state has the 6 successors     *)
(* (a', b', 2a' + b' + 1), which never coincide with an initial state. So  *)
(* 12 distinct, 6 + 12 * 6 = 78 generated, depth 2.                        *)
(* LetPrimed_Init.cfg (InitLet/NextKeep): the 6 initial states, each with *)
(* one stuttering successor: 6 distinct, 12 generated, depth 1.            *)
(* LetPrimed_Next.cfg (InitPlain/NextLet): (0, 0, 0) and the 6 states      *)
(* (a', b', 2a' + b' + 1): 7 distinct, 1 + 7 * 6 = 43 generated, depth 2.   *)
(* LetPrimed_Shared.cfg (InitPlain/NextShared): one LET shared by two     *)
(* disjuncts; (a, b) ranges over 0..2 \X 0..1 with total = a + b: 6       *)
(* distinct, 1 + 6 * 2 = 13 generated, depth 4.                            *)
(* LetPrimed_Action.cfg (InitPlain/NextAct): a cycles 0 -> 1 -> 2 -> 0     *)
(* with b = 0 and total = a: 3 distinct, 1 + 3 = 4 generated, depth 3.     *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES a, b, total

InitLet == LET s == a + b
           IN  /\ a \in 0..2
               /\ b \in 0..1
               /\ total = s

NextLet == LET na == a' * 2
               nb[k \in {1}] == b' + k
           IN  /\ a' \in 0..2
               /\ b' \in 0..1
               /\ total' = na + nb[1]

InitPlain == a = 0 /\ b = 0 /\ total = 0

NextAct == LET keep == UNCHANGED b
               bump == a' = (a + 1) % 3
           IN  /\ bump
               /\ keep
               /\ total' = a' + b

NextShared == LET newTotal == a' + b'
              IN  \/ a' = (a + 1) % 3 /\ b' = b /\ total' = newTotal
                  \/ b' = (b + 1) % 2 /\ a' = a /\ total' = newTotal

NextKeep == UNCHANGED <<a, b, total>>

Inv == total \in {a + b, 2 * a + b + 1}

Sum == total = a + b
=============================================================================
