---- MODULE StandardModuleOverride ----
\* Nat <- [Naturals] Small in the cfg: Nat replaced where Naturals gives it, here through
\* Integers. By hand: x counts 0, 1, 2 within Small; 3 distinct, 3 generated, depth 3.
EXTENDS Integers
VARIABLE x
Small == 0..2
Init == x = 0
Next == x' = x + 1 /\ x' \in Nat
====
