--------------------------- MODULE ModuleOverride ---------------------------
(* `Limit <- [Inner] SmallLimit` (a Toolbox-style cfg) replaces Inner's    *)
(* Limit: x counts 0..2, 3 distinct, 1 + 2 generated, depth 3 (1001       *)
(* states without the override).                                          *)
EXTENDS Naturals
VARIABLE x
I == INSTANCE Inner
SmallLimit == 2
Init == x = 0
Next == I!Ok(x + 1) /\ x' = x + 1
=============================================================================
