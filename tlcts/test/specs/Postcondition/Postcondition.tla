---- MODULE Postcondition ----
\* POSTCONDITIONs: checked when the run ends, with the run's final counters and TLCExt's
\* CounterExample (empty on success). By hand: x counts 0..3, 4 distinct and 4 generated states;
\* Small (x < 2) is violated at x = 2, after 0 and 1.
EXTENDS Naturals, Sequences, TLC, TLCExt
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
Small == x < 2
Counters == TLCGet("distinct") = 4 /\ TLCGet("generated") = 4
NoViolation == CounterExample = [action |-> {}, state |-> {}]
Wrong == TLCGet("distinct") = 5
Failing == 1 + "one" = 2
ShowViolation == PrintT(<<"behaviour", [i \in 1..Len(ToTrace(CounterExample)) |-> ToTrace(CounterExample)[i].x]>>)
====
