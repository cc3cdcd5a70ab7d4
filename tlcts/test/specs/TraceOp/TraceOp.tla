---- MODULE TraceOp ----
\* TLCExt's Trace: the behaviour to the current state, read in Next, in an invariant and in an
\* ALIAS. By hand: from x = 0 and x = 10, three steps each (Trace has 4 states at 3 and 13), so 8
\* distinct, 2 + 3 + 3 generated, depth 4; x = 13 violates NotThirteen after 10, 11, 12.
EXTENDS Naturals, Sequences, TLCExt
VARIABLE x
Init == x \in {0, 10}
Next == Len(Trace) < 4 /\ x' = x + 1
Inv == Len(Trace) = (x % 10) + 1 /\ Trace[1].x = x - (x % 10)
NotThirteen == x # 13
Alias == [x |-> x, steps |-> Len(Trace)]
====
