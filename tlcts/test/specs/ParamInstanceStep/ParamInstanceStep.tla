---- MODULE ParamInstanceStep ----
\* A property of a parameterized instance whose step is written inline ([][y' > y]_y), with the
\* instance's variable substituted, alone and under \A over a constant set (one conjunct per d).
\* By hand: x counts 0..2, y = x + d grows on every step: 3 distinct, 1 + 2 generated, depth 3
\* (x = 2 has no successor).
EXTENDS Naturals
VARIABLE x
I(d) == INSTANCE ParamInstanceStepInner WITH y <- x + d
Next == x < 2 /\ x' = x + 1
Spec == x = 0 /\ [][Next]_x
Grows == I(1)!Spec
AllGrow == \A d \in {0, 1} : I(d)!Spec
====
