---- MODULE LiveEvalError ----
\* An evaluation error in a temporal property's predicates (WF_vars(Inc), where Inc leaves b
\* unassigned) ends the run with exit 255 once the state's successors are queued (TLC's
\* LiveCheck#addNextState). By hand: the initial state's successor is queued first: 2 generated,
\* 2 distinct, 1 left on the queue, depth 2.
EXTENDS Naturals
VARIABLES a, b
vars == <<a, b>>
Inc == a' = a + 1
Next == Inc /\ UNCHANGED b
Spec == a = 0 /\ b = 0 /\ [][Next]_vars /\ WF_vars(Inc)
Prop == <>FALSE
====
