---- MODULE PlusCalComment ----
\* A PlusCal algorithm in a comment, in shapes tree-sitter's grammar refuses (either with ";",
\* a declaration without ";", a tab); SANY skips the comment. By hand: x goes 0 -> 1 or 2, then
\* stops: 3 distinct, 1 + 2 generated, depth 2.
EXTENDS Naturals
(* --algorithm Choice {
     variable x = 0
     {	a: either { x := 1; } ;
           or { x := 2; } ;
     } }
*)
\* BEGIN TRANSLATION
VARIABLE x
Init == x = 0
Next == x = 0 /\ x' \in {1, 2}
\* END TRANSLATION
Comment == "(* not a comment --algorithm"
====
