----------------------------- MODULE ExceptNest -----------------------------
(***************************************************************************)
(* Nested EXCEPT.                                                          *)
(*                                                                         *)
(* Features: ![n].cnt, ![n].tags[k], ![n]["tags"][k] (paths mixing .f and *)
(* [k] through a function of records of functions), !.mode / !.lim[1] on a *)
(* record holding a tuple, two updates in one EXCEPT where the second @    *)
(* sees the first update, @ together with the unprimed value of the        *)
(* variable, EXCEPT on a tuple.                                            *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine.             *)
(***************************************************************************)
EXTENDS Naturals

Keys == {"k1", "k2"}

VARIABLES db, cfg, log

Init == /\ db = [n \in 1..2 |-> [cnt |-> 0, tags |-> [k \in Keys |-> 0]]]
        /\ cfg = [mode |-> "r", lim |-> <<1, 2>>]
        /\ log = <<0, 0>>

IncCnt(n) == /\ db[n].cnt < 2
             /\ db' = [db EXCEPT ![n].cnt = @ + 1,
                                 ![n].tags["k1"] = @ + db[n].cnt]
             /\ UNCHANGED <<cfg, log>>

Tag(n, k) == /\ db[n].tags[k] < cfg.lim[n]
             /\ db' = [db EXCEPT ![n]["tags"][k] = @ + 1]
             /\ log' = [log EXCEPT ![n] = (@ + 1) % 3]
             /\ UNCHANGED cfg

Flip == /\ cfg' = [cfg EXCEPT !.mode = IF @ = "r" THEN "w" ELSE "r",
                              !.lim[1] = 3 - @]
        /\ UNCHANGED <<db, log>>

Reset == /\ cfg.mode = "w"
         /\ log[1] # log[2]
         /\ log' = [log EXCEPT ![1] = 0, ![1] = @ + log[2], ![2] = @ * 0]
         /\ UNCHANGED <<db, cfg>>

Next == \/ \E n \in 1..2 : IncCnt(n)
        \/ \E n \in 1..2, k \in Keys : Tag(n, k)
        \/ Flip
        \/ Reset

TypeOK == /\ \A n \in 1..2 : db[n].cnt \in 0..2 /\ DOMAIN db[n].tags = Keys
          /\ cfg.mode \in {"r", "w"}
          /\ log \in (0..2) \X (0..2)
=============================================================================
