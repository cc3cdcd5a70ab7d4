------------------------------- MODULE ViewSym -------------------------------
(***************************************************************************)
(* VIEW, alone and together with SYMMETRY.                                 *)
(*                                                                         *)
(* Features: VIEW <<pos, last>> hides the step counter, so states that     *)
(* differ only in steps are one state; CONSTRAINT on the hidden variable;  *)
(* ViewSym_Sym.cfg adds SYMMETRY Permutations(Procs): TLC reduces the      *)
(* view value by the symmetry (TLCStateMut#fingerPrint evaluates the view  *)
(* and then takes the least permutation of it; older TLCs permute the     *)
(* state first, which gives the same partition here), so last no longer   *)
(* distinguishes states and only pos does.                                 *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS keyed by the view (ViewSym.cfg:  *)
(* key (pos, last); ViewSym_Sym.cfg: key pos).                             *)
(***************************************************************************)
EXTENDS Naturals, TLC

CONSTANT Procs

VARIABLES pos, steps, last

Init == pos = 0 /\ steps = 0 /\ last \in Procs

Next == \E p \in Procs :
          /\ pos' = (pos + 1) % 3
          /\ steps' = steps + 1
          /\ last' = p

View == <<pos, last>>

Sym == Permutations(Procs)

Bounded == steps <= 4
=============================================================================
