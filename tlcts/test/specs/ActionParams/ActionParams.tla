----------------------------- MODULE ActionParams -----------------------------
(***************************************************************************)
(* Variables reached through operator parameters and definitions.          *)
(*                                                                         *)
(* TLC finds the variable of x' = e / x' \in S / UNCHANGED e through       *)
(* operator arguments and 0-ary definitions (Tool#getPrimedVar / #getVar   *)
(* look through the LazyValue of an argument and the body of a definition; *)
(* Tool#processUnchanged does the same), so all of these are assignments:  *)
(*   Inc(v, n) == v' = (v + 1) % n     called as Inc(x, 3)                 *)
(*   Set(v, S) == v' \in S             called as Set(z, {0, 1})             *)
(*   Keep(vs) == UNCHANGED vs          called as Keep(<<y, z>>), Keep(x)    *)
(*   yy == y                           used as yy = 0 and yy' = ...         *)
(*                                                                         *)
(* ActionParams.cfg uses the operators (InitPlain, NextParams),           *)
(* ActionParams_Alias.cfg the definition yy (InitAlias, NextAlias).        *)
(*                                                                         *)
(* Expected figures (both .cfg): x cycles 0..2, y cycles 0, 2, z is 0 or   *)
(* 1: 12 states, all reachable; each has 1 + 1 + 2 = 4 successors:         *)
(* 1 + 12 * 4 = 49 generated; depth 5 (throwaway Python BFS).              *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES x, y, z

yy == y

Inc(v, n) == v' = (v + 1) % n
Set(v, S) == v' \in S
Keep(vs) == UNCHANGED vs

InitPlain == x = 0 /\ y = 0 /\ z = 0

NextParams == \/ Inc(x, 3) /\ Keep(<<y, z>>)
              \/ Keep(x) /\ y' = (y + 2) % 4 /\ Keep(z)
              \/ Set(z, {0, 1}) /\ UNCHANGED <<x, y>>

InitAlias == x = 0 /\ yy = 0 /\ z = 0

NextAlias == \/ x' = (x + 1) % 3 /\ UNCHANGED <<y, z>>
             \/ yy' = (y + 2) % 4 /\ UNCHANGED <<x, z>>
             \/ z' \in {0, 1} /\ UNCHANGED <<x, y>>

TypeOK == x \in 0..2 /\ y \in {0, 2} /\ z \in {0, 1}
=============================================================================
