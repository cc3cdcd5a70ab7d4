------------------------------ MODULE Instances ------------------------------
(***************************************************************************)
(* Named instances with substitutions.                                     *)
(*                                                                         *)
(* Features: INSTANCE ... WITH Step <- MyStep (an operator constant        *)
(* replaced by an operator of this module), Limit <- 7 (a constant by an   *)
(* expression), val <- x (a variable by a variable); two instances of the  *)
(* same module; an instantiated module that EXTENDS another one (C1!Double *)
(* comes from InstBase); LOCAL definitions (InstBase's Helper is hidden    *)
(* from InstCounter, which defines its own Helper); instance actions       *)
(* combined with UNCHANGED in this module, and (Instances_Unchanged.cfg)   *)
(* with UNCHANGED of an instance's definition, UNCHANGED C2!vars.          *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS: x steps by +2 mod 8 and resets  *)
(* from 6 or 7; y steps by +3 mod 6 and resets from 4 or 5 (the same      *)
(* figures for both .cfg).                                                 *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES x, y

MyStep(v) == v + 2
Triple(v) == v + 3

C1 == INSTANCE InstCounter WITH Step <- MyStep, Limit <- 7, val <- x
C2 == INSTANCE InstCounter WITH Step <- Triple, Limit <- 5, val <- y

Init == C1!Init /\ C2!Init

Next == \/ C1!Next /\ UNCHANGED y
        \/ C2!Next /\ UNCHANGED x

NextU == \/ C1!Next /\ UNCHANGED C2!vars
         \/ UNCHANGED C1!vars /\ C2!Next

Inv == /\ C1!Inv
        /\ C2!Inv
        /\ C1!Double(3) = 6
        /\ C1!Helper(3) = 103
        /\ C2!Cap = 6
=============================================================================
