----------------------------- MODULE TLCGetKeys -----------------------------
(* TLCGet's named keys (TLC's TLCGetSet): "config" is a record of the run's *)
(* settings, "stats" one of its counters, and the counters are live: while  *)
(* Next is evaluated from x (found at level x + 1), x + 1 states are known  *)
(* and generated (one initial state, one successor each). Were any wrong,  *)
(* Next would be disabled: 6 distinct states, 6 generated, depth 6 only if  *)
(* all hold.                                                                *)
EXTENDS Naturals, TLC
VARIABLE x
ASSUME TLCGet("config").mode = "bfs" /\ TLCGet("config").deadlock = FALSE
ASSUME TLCGet("config").worker = 1 /\ TLCGet("config").seed \in STRING
ASSUME DOMAIN TLCGet("stats") = {"queue", "distinct", "generated", "diameter", "duration"}
ASSUME TLCGet("duration") >= 0
Init == x = 0 /\ TLCGet("stats").generated = 0
Next == /\ x < 5
        /\ x' = x + 1
        /\ TLCGet("stats").distinct = x + 1
        /\ TLCGet("generated") = x + 1
        /\ TLCGet("diameter") = x + 1
=============================================================================
