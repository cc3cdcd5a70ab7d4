----------------------------- MODULE LambdaSubst -----------------------------
(* Operator constants substituted by a name and by a LAMBDA (closing over *)
(* the constant Mod). Init: x = Inc(0) = 1. Next steps x to (x + 1) % 4 or  *)
(* (x + 2) % 4: from 1 to 2, 3; from 2 to 3, 0; from 3 to 0, 1; from 0 to   *)
(* 1, 2. 4 distinct states, 1 + 4 * 2 = 9 generated, depth 3 (1; 2, 3; 0). *)
EXTENDS Naturals
CONSTANT Mod
VARIABLE x
Inc(n) == (n + 1) % Mod
I == INSTANCE Stepper WITH Op <- Inc, v <- x
J == INSTANCE Stepper WITH Op <- LAMBDA n : (n + 2) % Mod, v <- x
Init == I!Init
Next == I!Step \/ J!Step
=============================================================================
