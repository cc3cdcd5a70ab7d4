---- MODULE Alias ----
(* ALIAS shows each trace state as a record computed from the state and its successor. *)
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = x + 1
Inv == x < 3
Alias == [x |-> x, double |-> 2 * x, nextX |-> x']
====
