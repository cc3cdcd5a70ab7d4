------------------------------ MODULE Counters ------------------------------
(* TLCGet of the run's counters: the parallel search would read its own    *)
(* figures, so -workers 2 explores with one thread and says why.           *)
(* Expected figures: x = 0..3 (4 distinct, 4 generated, depth 4).          *)
EXTENDS Naturals, TLC

VARIABLE x

Init == x = 0
Next == x < 3 /\ x' = x + 1
InModel == TLCGet("distinct") < 100
=============================================================================
