--------------------------- MODULE SlotAdmission ---------------------------
(***************************************************************************)
(* Demo model for tlcts: admitting sessions to one Worker that has Cap GPU *)
(* slots.  A session's dispatcher first ranks the Worker from its load     *)
(* view (the number of taken slots it saw), then commits the placement.    *)
(*                                                                         *)
(*  - CheckAtCommit = TRUE: the commit checks capacity again, in the same  *)
(*    atomic step that takes the slot.  The Worker is never overfilled.    *)
(*  - CheckAtCommit = FALSE: the commit trusts the view it ranked on.  Two *)
(*    dispatchers that both saw a free slot both take it: NoOvershoot      *)
(*    fails.                                                               *)
(*                                                                         *)
(* DHSched's rule in miniature: rank from a possibly stale view, admit     *)
(* authoritatively.  Features used: Naturals, FiniteSets, CONSTANTS set    *)
(* from the .cfg (model values, an integer, a Boolean), ASSUME, functions  *)
(* with EXCEPT, LET, IF, \E, INVARIANTS.                                   *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS Sessions,      \* the sessions asking for a slot (model values)
          Cap,           \* the number of slots on the Worker
          CheckAtCommit  \* TRUE: capacity is checked again when committing

ASSUME Cap \in Nat /\ CheckAtCommit \in BOOLEAN

VARIABLES pc,   \* pc[s]: "idle", "ranked", "placed" or "rejected"
          seen  \* seen[s]: the number of taken slots s saw when it ranked

vars == <<pc, seen>>

Placed == {s \in Sessions : pc[s] = "placed"}

TypeOK == /\ pc \in [Sessions -> {"idle", "ranked", "placed", "rejected"}]
          /\ seen \in [Sessions -> 0..Cardinality(Sessions)]

Init == /\ pc = [s \in Sessions |-> "idle"]
        /\ seen = [s \in Sessions |-> 0]

\* Read the load view: how many slots are taken now.
Rank(s) == /\ pc[s] = "idle"
           /\ pc' = [pc EXCEPT ![s] = "ranked"]
           /\ seen' = [seen EXCEPT ![s] = Cardinality(Placed)]

\* Take a slot, or give up when the Worker looks full.
Commit(s) == /\ pc[s] = "ranked"
             /\ LET hasRoom == IF CheckAtCommit THEN Cardinality(Placed) < Cap
                                                ELSE seen[s] < Cap
                IN  pc' = [pc EXCEPT ![s] = IF hasRoom THEN "placed" ELSE "rejected"]
             /\ UNCHANGED seen

\* The session ends (freeing its slot) or stops waiting; it may ask again later.
Leave(s) == /\ pc[s] \in {"placed", "rejected"}
            /\ pc' = [pc EXCEPT ![s] = "idle"]
            /\ seen' = [seen EXCEPT ![s] = 0]

Next == \E s \in Sessions : Rank(s) \/ Commit(s) \/ Leave(s)

Spec == Init /\ [][Next]_vars

\* The safety property the demo checks: the Worker never holds more than Cap sessions.
NoOvershoot == Cardinality(Placed) <= Cap
=============================================================================
