---- MODULE PrimedNames ----
\* Assignments through names that stand for a primed variable (TLC's Tool#getPrimedVar): a
\* definition whose body is x', a parameter passed y', a LET definition whose body is z'.
\* By hand: x counts 0..2, y' is free in {0, 1}, z = x % 2; states (0,0,0), (1,y,1), (2,y,0):
\* 5 distinct, 1 + 2 + 2 + 2 generated (x = 2 has no successor), depth 3.
EXTENDS Naturals
VARIABLES x, y, z
NextX == x'
Pick(v, S) == v \in S
Init == x = 0 /\ y = 0 /\ z = 0
Next == /\ x < 2
        /\ NextX = x + 1
        /\ Pick(y', {0, 1})
        /\ LET nz == z' IN nz = 1 - z
====
