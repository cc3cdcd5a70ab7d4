---- MODULE ParamInstanceStepInner ----
EXTENDS Naturals
VARIABLE y
Spec == [][y' > y /\ y' < 4]_y
====
