---- MODULE OperatorTable ----
\* Operators given by values in the cfg (F(0) = 1, ...), a declared constant and a definition.
\* By hand: x goes 0 -> 1 -> 2 -> 2 (F), y stays G(1, 2) = 5: 3 distinct, 1 + 3 generated, depth 3.
CONSTANT F(_)
VARIABLES x, y
G(a, b) == 0
Init == x = 0 /\ y = G(1, 2)
Next == x' = F(x) /\ y' = y
====
