------------------------------- MODULE Wheels -------------------------------
(***************************************************************************)
(* A combination lock of N wheels with ten digits each; a step turns one   *)
(* wheel one notch forward (9 wraps round to 0).  Every combination is     *)
(* reachable, so there are 10^N distinct states, and the breadth-first     *)
(* search is 9 * N + 1 levels deep with a wide middle: a model to check    *)
(* how tlcts scales (Wheels.cfg: N = 7, ten million states).               *)
(***************************************************************************)
EXTENDS Naturals

CONSTANT N

Wheel == 1..N

VARIABLE wheel

Init == wheel = [w \in Wheel |-> 0]

Turn(w) == wheel' = [wheel EXCEPT ![w] = (@ + 1) % 10]

Next == \E w \in Wheel : Turn(w)

Spec == Init /\ [][Next]_wheel

TypeOK == wheel \in [Wheel -> 0..9]
=============================================================================
