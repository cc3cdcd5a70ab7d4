------------------------------- MODULE Hungry -------------------------------
(* Three levels of 2001 states (enough for the queue to spill to files     *)
(* with -queueMem 0), then a next-state action that builds 3000 tuples of  *)
(* 3000 integers (70 MB): a worker thread with a smaller heap (-workerHeap *)
(* 32) runs out of memory, and the run must end with an error, not hang.   *)
EXTENDS Naturals, Sequences

VARIABLES a, b

Init == a = 0 /\ b = 0
Next == \/ a = 0 /\ a' = 1 /\ b' \in 0..2000
        \/ a \in 1..2 /\ a' = a + 1 /\ b' = b
        \/ a = 3 /\ a' = Len([i \in 1..3000 |-> [j \in 1..3000 |-> i + j + b]][3000]) /\ b' = b
=============================================================================
