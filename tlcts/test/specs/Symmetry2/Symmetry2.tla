------------------------------ MODULE Symmetry2 ------------------------------
(***************************************************************************)
(* SYMMETRY with two symmetry sets.                                        *)
(*                                                                         *)
(* Features: SYMMETRY Permutations(Procs) \cup Permutations(Res). TLC      *)
(* closes the set of permutations under composition (MVPerms              *)
(* #permutationSubgroup), so the reduction is by the product group         *)
(* Sym(Procs) x Sym(Res), not by the union alone; a model value Free that  *)
(* is in no symmetry set; functions from and to symmetric sets, sets of    *)
(* model values.                                                           *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS whose state key is the least    *)
(* image of the state under the 4 permutations of the product group (and   *)
(* the identity key for Symmetry2_None.cfg).                               *)
(***************************************************************************)
EXTENDS TLC

CONSTANTS Procs, Res, Free

VARIABLES owner, want

Init == /\ owner = [r \in Res |-> Free]
        /\ want = [p \in Procs |-> {}]

Want(p, r) == /\ r \notin want[p]
              /\ owner[r] # p
              /\ want' = [want EXCEPT ![p] = @ \cup {r}]
              /\ UNCHANGED owner

Grab(p, r) == /\ r \in want[p]
              /\ owner[r] = Free
              /\ owner' = [owner EXCEPT ![r] = p]
              /\ want' = [want EXCEPT ![p] = @ \ {r}]

Release(r) == /\ owner[r] # Free
              /\ owner' = [owner EXCEPT ![r] = Free]
              /\ UNCHANGED want

Next == \/ \E p \in Procs, r \in Res : Want(p, r) \/ Grab(p, r)
        \/ \E r \in Res : Release(r)

Sym == Permutations(Procs) \cup Permutations(Res)

TypeOK == /\ owner \in [Res -> Procs \cup {Free}]
          /\ want \in [Procs -> SUBSET Res]
=============================================================================
