---- MODULE ConstOnce ----
\* Constant definitions are computed once for the run, as TLC pre-evaluates them: S is drawn once,
\* so every use agrees (1 distinct state, Same holds), and Shown prints once however often used.
EXTENDS Naturals, TLC
VARIABLE x
S == RandomElement(1..1000)
Shown == Print("computed once", 3)
Init == x = S
Next == x' = S /\ Shown = 3
Same == x = S /\ Shown = 3
====
