---- MODULE Continue ----
\* Under -continue: x = 2 violates Small and NotTwo as an initial state, x = 3 and x = 4 violate
\* Small as successors, and the step from 3 to 4 violates the action property.
EXTENDS Naturals
VARIABLE x
Init == x \in {1, 2}
Next == x < 4 /\ x' = x + 1
Small == x < 2
NotTwo == x # 2
NeverFour == [][x' # 4]_x
====
