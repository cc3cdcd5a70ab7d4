----------------------------- MODULE ParamAssign -----------------------------
(* Variables assigned through operator parameters, as TLC's getVar follows  *)
(* an argument to the variable it names: in Init (Zero(x), Pair(x, y)) and  *)
(* in Next (Set(x, e), Keep(y)).                                            *)
(*   Init1/Next1: (0,0) -> (1,0) -> (2,0) -> (0,0): 3 distinct, 1 + 3 = 4    *)
(*                generated, depth 3.                                       *)
(*   Init2/Next2: (0,1) -> (1,0) -> (0,1): 2 distinct, 1 + 2 = 3, depth 2.   *)
(*   Init1/Next3: (0,0) -> x' \in {0, 1}, y' = x': (0,0), (1,1); from (1,1)  *)
(*                the same two: 2 distinct, 1 + 2 + 2 = 5, depth 2.         *)
(*   InitLet/NextLet: through LET v == x: as Init1/Next1, 3, 4, 3.          *)
EXTENDS Naturals
VARIABLES x, y
Set(var, val) == var' = val
Zero(var) == var = 0
Keep(var) == UNCHANGED var
Pair(a, b) == a = 0 /\ b = 1
Pick(var, S) == var' \in S
Init1 == Zero(x) /\ Zero(y)
Next1 == Set(x, (x + 1) % 3) /\ Keep(y)
Init2 == Pair(x, y)
Next2 == Set(x, y) /\ Set(y, x)
Next3 == Pick(x, {0, 1}) /\ Set(y, x')
InitLet == LET v == x IN v = 0 /\ y = 0
NextLet == LET v == x IN v' = (v + 1) % 3 /\ UNCHANGED y
=============================================================================
