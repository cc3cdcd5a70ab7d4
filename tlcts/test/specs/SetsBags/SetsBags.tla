------------------------------- MODULE SetsBags -------------------------------
(***************************************************************************)
(* FiniteSets and Bags.                                                    *)
(*                                                                         *)
(* Features: Cardinality, EmptyBag, SetToBag, BagToSet, BagIn, CopiesIn,   *)
(* (+), (-), BagCardinality, SubBag as a quantifier domain, \sqsubseteq,   *)
(* IsABag; bags are functions, so equal bags built in different ways are  *)
(* the same state.                                                         *)
(*                                                                         *)
(* Expected figures: throwaway Python BFS of the same machine (a bag is a  *)
(* pair of counts).                                                        *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets, Bags

Items == {"a", "b"}

VARIABLES bag, seen

Init == bag = EmptyBag /\ seen = {}

Put(i) == /\ BagCardinality(bag) < 3
          /\ bag' = bag (+) SetToBag({i})
          /\ seen' = seen \cup {i}

Take(i) == /\ BagIn(i, bag)
           /\ bag' = bag (-) SetToBag({i})
           /\ UNCHANGED seen

Double == /\ CopiesIn("a", bag) = 1
          /\ BagCardinality(bag) <= 2
          /\ bag' = bag (+) bag
          /\ UNCHANGED seen

Shrink == \E sb \in SubBag(bag) :
            /\ BagCardinality(sb) = BagCardinality(bag) - 1
            /\ CopiesIn("b", sb) = 0
            /\ bag' = sb
            /\ UNCHANGED seen

Forget == /\ Cardinality(seen) = 2
          /\ BagToSet(bag) # Items
          /\ seen' = BagToSet(bag)
          /\ UNCHANGED bag

Next == (\E i \in Items : Put(i) \/ Take(i)) \/ Double \/ Shrink \/ Forget

TypeOK == /\ IsABag(bag)
          /\ BagToSet(bag) \subseteq seen
          /\ seen \subseteq Items
          /\ bag \sqsubseteq (bag (+) SetToBag(Items))
          /\ BagCardinality(bag) <= 4
=============================================================================
