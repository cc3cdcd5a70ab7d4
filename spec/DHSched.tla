------------------------------- MODULE DHSched -------------------------------
(***************************************************************************)
(* DHSched and the three protocols the paper compares it with, at the      *)
(* granularity of their atomic store steps (docs/protocol.md).             *)
(*                                                                         *)
(* The store (Redis) holds the generation of each session, its input log,  *)
(* the release cursor, capacity tokens, leases and the assignment stream.  *)
(* Everything else is outside it: Dispatch operations in flight (a replica *)
(* is stateless: a crash is an operation that never continues), the        *)
(* runtimes alive on each Worker, the media sink, and the history of       *)
(* releases that the safety properties read.                               *)
(*                                                                         *)
(* Protocol selects the revalidation rule; Bug breaks DHSched on purpose   *)
(* (each bug is a vacuity check: some property must then fail); StoreMode  *)
(* adds a store failover that loses unreplicated writes ("async") or one   *)
(* behind WAIT, so that every acknowledged write survives ("wait").        *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    Sessions,      \* session ids
    Workers,       \* GPU workers
    Dispatchers,   \* stateless Dispatch replicas
    NoWorker,      \* a model value: no worker (and no session, in an idle operation)
    Cap,           \* GPU slots per worker
    MaxEpoch,      \* epochs 1..MaxEpoch (bounds the number of placements)
    MaxInputs,     \* client request ids 1..MaxInputs per session
    MaxFaults,     \* crashes, lease expiries, redeliveries, abandons, failovers
    Protocol,      \* "dhsched", "assignment_time", "claim_only", "workerid_only"
    Bug,           \* "none" or a deliberately broken DHSched (see Bugs)
    StoreMode,     \* "single", "async" (failover loses writes), "wait" (it cannot)
    WithDrain,     \* whether workers may be drained
    WithUndrain,   \* whether an operator may undo a drain
    WithBatch,     \* whether a worker releases a batch of inputs in one store step
    WithClose      \* whether clients close sessions

Protocols == {"dhsched", "assignment_time", "claim_only", "workerid_only"}
Bugs == {"none", "no_epoch_check", "no_source_guard", "session_tokens",
         "no_capacity_check", "non_idempotent_append", "no_sink_fence"}

ASSUME /\ Protocol \in Protocols
       /\ Bug \in Bugs
       /\ StoreMode \in {"single", "async", "wait"}
       /\ Cap \in Nat \ {0} /\ MaxEpoch \in Nat \ {0}
       /\ MaxInputs \in Nat /\ MaxFaults \in Nat
       /\ NoWorker \notin Workers
       /\ WithUndrain => WithDrain

(* Workers, sessions and Dispatch replicas are interchangeable: symmetry   *)
(* reduction over them is sound for every property here.                   *)
Symmetry == Permutations(Workers) \cup Permutations(Sessions) \cup Permutations(Dispatchers)

Epochs == 1..MaxEpoch
Phases == {"none", "assigned", "claimed", "closed"}
Gen == [w : Workers \cup {NoWorker}, e : 0..MaxEpoch, ph : Phases]
NoGen == [w |-> NoWorker, e |-> 0, ph |-> "none"]

(* A capacity token: one per generation; the bug keeps one per session.    *)
Tok(s, e) == IF Bug = "session_tokens" THEN <<s, 0>> ELSE <<s, e>>

VARIABLES
    \* --- the store ---
    gen,        \* gen[s]: the current generation (w, e, phase)
    log,        \* log[s]: request ids in append order; seq = position
    released,   \* released[s]: highest seq released and the generation that did it
    tokens,     \* tokens[w]: capacity tokens held on w
    lease,      \* lease[w]: "live" or "expired"
    inbox,      \* inbox[w]: assignment stream entries <<s, e>> not yet taken
    draining,   \* workers that take no new placements
    replica,    \* the store as its replica has it (StoreMode # "single")
    \* --- outside the store ---
    up,         \* up[w]: the worker process is running
    rt,         \* rt[w]: runtimes alive on w, [s, e, cur, ph]
    dop,        \* dop[d]: the operation Dispatch replica d is in the middle of
    sent,       \* sent[w]: assignments ever committed to w (for duplicate delivery)
    sink,       \* sink[s]: newest epoch the media sink has shown
    rels,       \* rels[s]: every release, in order: [seq, w, e, stale]
    staleFrame, \* staleFrame[s]: the viewer was shown a frame older than one it saw
    faults      \* faults injected so far

store == <<gen, log, released, tokens, lease, inbox, draining>>
vars == <<gen, log, released, tokens, lease, inbox, draining, replica,
          up, rt, dop, sent, sink, rels, staleFrame, faults>>

Runtime == [s : Sessions, e : Epochs, cur : 0..MaxInputs, ph : {"new", "ready", "stopping"}]
Idle == [kind |-> "idle", s |-> NoWorker, src |-> NoWorker, e |-> 0, to |-> NoWorker]
Release == [seq : 1..MaxInputs, w : Workers, e : Epochs, stale : BOOLEAN]

TypeOK ==
    /\ gen \in [Sessions -> Gen]
    /\ \A s \in Sessions : log[s] \in Seq(1..MaxInputs)
    /\ released \in [Sessions -> [seq : 0..MaxInputs, w : Workers \cup {NoWorker}, e : 0..MaxEpoch]]
    /\ tokens \in [Workers -> SUBSET (Sessions \X (0..MaxEpoch))]
    /\ lease \in [Workers -> {"live", "expired"}]
    /\ inbox \in [Workers -> SUBSET (Sessions \X Epochs)]
    /\ draining \subseteq Workers
    /\ up \in [Workers -> BOOLEAN]
    /\ \A w \in Workers : rt[w] \subseteq Runtime
    /\ \A d \in Dispatchers : dop[d].kind \in {"idle", "create", "move"}
    /\ sink \in [Sessions -> 0..MaxEpoch]
    /\ \A s \in Sessions : rels[s] \in Seq(Release)
    /\ faults \in 0..MaxFaults

Init ==
    /\ gen = [s \in Sessions |-> NoGen]
    /\ log = [s \in Sessions |-> <<>>]
    /\ released = [s \in Sessions |-> [seq |-> 0, w |-> NoWorker, e |-> 0]]
    /\ tokens = [w \in Workers |-> {}]
    /\ lease = [w \in Workers |-> "live"]
    /\ inbox = [w \in Workers |-> {}]
    /\ draining = {}
    /\ replica = <<gen, log, released, tokens, lease, inbox, draining>>
    /\ up = [w \in Workers |-> TRUE]
    /\ rt = [w \in Workers |-> {}]
    /\ dop = [d \in Dispatchers |-> Idle]
    /\ sent = [w \in Workers |-> {}]
    /\ sink = [s \in Sessions |-> 0]
    /\ rels = [s \in Sessions |-> <<>>]
    /\ staleFrame = [s \in Sessions |-> FALSE]
    /\ faults = 0

Fault == faults < MaxFaults /\ faults' = faults + 1

(* Under WAIT a store step is acknowledged only once its replica has it.   *)
Persist == IF StoreMode = "wait" THEN replica' = store' ELSE UNCHANGED replica
Live(s) == gen[s].ph \in {"assigned", "claimed"}
RuntimeOf(w, s, e) == {r \in rt[w] : r.s = s /\ r.e = e}
HasRuntime(w, s, e) == RuntimeOf(w, s, e) # {}
RT(w, s, e) == CHOOSE r \in rt[w] : r.s = s /\ r.e = e
Current(s, w, e) == gen[s].w = w /\ gen[s].e = e /\ gen[s].ph # "closed"

(***************************************************************************)
(* Dispatch. CreateLive and Migrate read the generation and rank a         *)
(* candidate on a load view that may be arbitrarily stale (any worker),    *)
(* then admit-and-commit in one store step, guarded by what they read.     *)
(* Recovery and Drain are moves too: the same generation path.             *)
(***************************************************************************)
BeginCreate(d, s, w) ==
    /\ dop[d].kind = "idle" /\ gen[s].ph = "none"
    /\ dop' = [dop EXCEPT ![d] = [kind |-> "create", s |-> s, src |-> NoWorker, e |-> 0, to |-> w]]
    /\ UNCHANGED <<store, replica, up, rt, sent, sink, rels, staleFrame, faults>>

BeginMove(d, s, w) ==
    /\ dop[d].kind = "idle" /\ Live(s) /\ gen[s].w # w
    /\ dop' = [dop EXCEPT ![d] = [kind |-> "move", s |-> s, src |-> gen[s].w, e |-> gen[s].e, to |-> w]]
    /\ UNCHANGED <<store, replica, up, rt, sent, sink, rels, staleFrame, faults>>

(* The guard on what was read: absent for CreateLive, the source epoch for *)
(* a move.                                                                 *)
GuardHolds(op) ==
    IF op.kind = "create" THEN gen[op.s].ph = "none"
    ELSE IF Bug = "no_source_guard" THEN Live(op.s)
    ELSE Live(op.s) /\ gen[op.s].w = op.src /\ gen[op.s].e = op.e

Admits(w) ==
    /\ lease[w] = "live" /\ w \notin draining
    /\ Bug = "no_capacity_check" \/ Cardinality(tokens[w]) < Cap

(* Admit-and-commit: one store step. FULL or CONFLICT ends the operation   *)
(* (the client or the recovery loop retries with a fresh read).            *)
Commit(d) ==
    LET op == dop[d]
        s == op.s
        ne == op.e + 1
    IN /\ op.kind # "idle"
       /\ dop' = [dop EXCEPT ![d] = Idle]
       /\ IF GuardHolds(op) /\ Admits(op.to) /\ ne \in Epochs
          THEN /\ gen' = [gen EXCEPT ![s] = [w |-> op.to, e |-> ne, ph |-> "assigned"]]
               /\ tokens' = [tokens EXCEPT ![op.to] = @ \cup {Tok(s, ne)}]
               /\ inbox' = [inbox EXCEPT ![op.to] = @ \cup {<<s, ne>>}]
               /\ sent' = [sent EXCEPT ![op.to] = @ \cup {<<s, ne>>}]
          ELSE UNCHANGED <<gen, tokens, inbox, sent>>
       /\ UNCHANGED <<log, released, lease, draining, up, rt, sink, rels, staleFrame, faults>>
       /\ Persist

(* A replica crashes between two steps: its operation never continues.     *)
Abandon(d) ==
    /\ dop[d].kind # "idle" /\ Fault
    /\ dop' = [dop EXCEPT ![d] = Idle]
    /\ UNCHANGED <<store, replica, up, rt, sent, sink, rels, staleFrame>>

Close(s) ==
    /\ WithClose /\ Live(s)
    /\ gen' = [gen EXCEPT ![s].ph = "closed"]
    /\ UNCHANGED <<log, released, tokens, lease, inbox, draining, up, rt, dop, sent, sink, rels, staleFrame, faults>>
    /\ Persist

Drain(w) ==
    /\ WithDrain /\ w \notin draining
    /\ draining' = draining \cup {w}
    /\ UNCHANGED <<gen, log, released, tokens, lease, inbox, up, rt, dop, sent, sink, rels, staleFrame, faults>>
    /\ Persist

(* An operator undoes a drain: w takes placements again. Like Drain it     *)
(* changes no generation and no token; a placement on w is still a Commit, *)
(* so admission (lease, capacity) decides it, as for any worker.           *)
Undrain(w) ==
    /\ WithUndrain /\ w \in draining
    /\ draining' = draining \ {w}
    /\ UNCHANGED <<gen, log, released, tokens, lease, inbox, up, rt, dop, sent, sink, rels, staleFrame, faults>>
    /\ Persist

(* PushText: append, idempotent on the client's request id. Clients send   *)
(* requests in order and may retry any request already sent.               *)
PushText(s, r) ==
    /\ Live(s) /\ r <= Len(log[s]) + 1
    /\ IF \E i \in DOMAIN log[s] : log[s][i] = r
       THEN IF Bug = "non_idempotent_append" /\ Len(log[s]) < MaxInputs
            THEN log' = [log EXCEPT ![s] = Append(@, r)]
            ELSE UNCHANGED log
       ELSE log' = [log EXCEPT ![s] = Append(@, r)]
    /\ UNCHANGED <<gen, released, tokens, lease, inbox, draining, up, rt, dop, sent, sink, rels, staleFrame, faults>>
    /\ Persist

(***************************************************************************)
(* The Worker's Infer-Controller.                                          *)
(***************************************************************************)
ClaimOK(w, s, e) ==
    CASE Protocol = "workerid_only" -> gen[s].w = w /\ gen[s].ph = "assigned"
      [] OTHER -> gen[s] = [w |-> w, e |-> e, ph |-> "assigned"]

(* Claim, on start: the generation must still be the one assigned here;    *)
(* otherwise it is stale: no runtime, its token is freed. assignment_time  *)
(* starts the runtime without asking the store.                            *)
Claim(w, s, e) ==
    /\ up[w] /\ <<s, e>> \in inbox[w] /\ ~HasRuntime(w, s, e)
    /\ inbox' = [inbox EXCEPT ![w] = @ \ {<<s, e>>}]
    /\ IF Protocol = "assignment_time"
       THEN /\ rt' = [rt EXCEPT ![w] = @ \cup {[s |-> s, e |-> e, cur |-> 0, ph |-> "new"]}]
            /\ UNCHANGED <<gen, tokens>>
       ELSE IF ClaimOK(w, s, e)
       THEN /\ gen' = [gen EXCEPT ![s].ph = "claimed"]
            /\ rt' = [rt EXCEPT ![w] = @ \cup {[s |-> s, e |-> e, cur |-> 0, ph |-> "new"]}]
            /\ UNCHANGED tokens
       ELSE /\ tokens' = [tokens EXCEPT ![w] = @ \ {Tok(s, e)}]
            /\ UNCHANGED <<gen, rt>>
    /\ UNCHANGED <<log, released, lease, draining, up, dop, sent, sink, rels, staleFrame, faults>>
    /\ Persist

(* Source-independent reconstruction: from the store's release cursor,     *)
(* never from the source worker.                                           *)
Reconstruct(w, s, e) ==
    /\ up[w] /\ HasRuntime(w, s, e)
    /\ LET r == RT(w, s, e) IN
         /\ r.ph = "new"
         /\ rt' = [rt EXCEPT ![w] = (@ \ {r}) \cup {[r EXCEPT !.cur = released[s].seq, !.ph = "ready"]}]
    /\ UNCHANGED <<store, replica, up, dop, sent, sink, rels, staleFrame, faults>>

(* What the runtime's worker checks in the store before releasing input    *)
(* seq: nothing (assignment_time, claim_only), the worker id only          *)
(* (workerid_only), or the whole generation and the cursor (dhsched).      *)
Revalidates(w, s, e, seq) ==
    CASE Protocol \in {"assignment_time", "claim_only"} -> TRUE
      [] Protocol = "workerid_only" ->
            gen[s].w = w /\ gen[s].ph = "claimed" /\ released[s].seq = seq - 1
      [] OTHER ->
            /\ gen[s].w = w /\ gen[s].ph = "claimed" /\ released[s].seq = seq - 1
            /\ Bug = "no_epoch_check" \/ gen[s].e = e

(* Revalidate-and-release: one store step per input. A runtime that fails  *)
(* it has lost execution authority and stops, alive or not.                *)
ReleaseInput(w, s, e) ==
    /\ up[w] /\ HasRuntime(w, s, e)
    /\ LET r == RT(w, s, e)
           seq == r.cur + 1
       IN /\ r.ph = "ready" /\ seq <= Len(log[s])
          /\ IF Revalidates(w, s, e, seq)
             THEN /\ released' = [released EXCEPT ![s] = [seq |-> seq, w |-> w, e |-> e]]
                  /\ rels' = [rels EXCEPT ![s] = Append(@, [seq |-> seq, w |-> w, e |-> e,
                                                          stale |-> ~Current(s, w, e)])]
                  /\ rt' = [rt EXCEPT ![w] = (@ \ {r}) \cup {[r EXCEPT !.cur = seq]}]
             ELSE /\ rt' = [rt EXCEPT ![w] = (@ \ {r}) \cup {[r EXCEPT !.ph = "stopping"]}]
                  /\ UNCHANGED <<released, rels>>
    /\ UNCHANGED <<gen, log, tokens, lease, inbox, draining, up, dop, sent, sink, staleFrame, faults>>
    /\ Persist

(* A batch: one store step in which each runtime (s, e) of B (ready,       *)
(* input waiting, at most one per session) releases every input appended   *)
(* to its session, each revalidated against its own generation as          *)
(* ReleaseInput does; a runtime whose generation fails it stops. The       *)
(* runtimes of a batch share no session, so it is ReleaseInput taken       *)
(* once per input, back to back.                                           *)
ReleaseBatch(w, B) ==
    /\ WithBatch /\ up[w] /\ B # {}
    /\ \A p \in B : HasRuntime(w, p[1], p[2])
    /\ \A p, q \in B : p[1] = q[1] => p = q
    /\ LET S == {RT(w, p[1], p[2]) : p \in B}
           ok(r) == Revalidates(w, r.s, r.e, r.cur + 1)
           passed == {r \in S : ok(r)}
           of(s) == CHOOSE r \in passed : r.s = s
           last(s) == Len(log[s])
           mine == {r.s : r \in passed}
       IN /\ \A r \in S : r.ph = "ready" /\ r.cur < last(r.s)
          /\ released' = [s \in Sessions |->
                             IF s \in mine THEN [seq |-> last(s), w |-> w, e |-> of(s).e] ELSE released[s]]
          /\ rels' = [s \in Sessions |->
                         IF s \notin mine THEN rels[s]
                         ELSE rels[s] \o [i \in 1..(last(s) - of(s).cur) |->
                                            [seq |-> of(s).cur + i, w |-> w, e |-> of(s).e,
                                             stale |-> ~Current(s, w, of(s).e)]]]
          /\ rt' = [rt EXCEPT ![w] = (@ \ S) \cup {IF ok(r) THEN [r EXCEPT !.cur = last(r.s)]
                                                           ELSE [r EXCEPT !.ph = "stopping"] : r \in S}]
    /\ UNCHANGED <<gen, log, tokens, lease, inbox, draining, up, dop, sent, sink, staleFrame, faults>>
    /\ Persist

(* The runtime learns (stop notice, periodic check) that its generation is *)
(* no longer current and stops.                                            *)
Fence(w, s, e) ==
    /\ up[w] /\ HasRuntime(w, s, e)
    /\ LET r == RT(w, s, e) IN
         /\ r.ph # "stopping" /\ ~(Current(s, w, e) /\ gen[s].ph = "claimed")
         /\ rt' = [rt EXCEPT ![w] = (@ \ {r}) \cup {[r EXCEPT !.ph = "stopping"]}]
    /\ UNCHANGED <<store, replica, up, dop, sent, sink, rels, staleFrame, faults>>

(* A stopped runtime frees its GPU slot, then its token (one store step).  *)
Teardown(w, s, e) ==
    /\ up[w] /\ HasRuntime(w, s, e)
    /\ LET r == RT(w, s, e) IN
         /\ r.ph = "stopping"
         /\ rt' = [rt EXCEPT ![w] = @ \ {r}]
    /\ tokens' = [tokens EXCEPT ![w] = @ \ {Tok(s, e)}]
    /\ UNCHANGED <<gen, log, released, lease, inbox, draining, up, dop, sent, sink, rels, staleFrame, faults>>
    /\ Persist

(* Media carries its generation; the sink drops frames older than the      *)
(* newest it has shown.                                                    *)
Emit(w, s, e) ==
    /\ up[w] /\ HasRuntime(w, s, e) /\ RT(w, s, e).ph = "ready"
    /\ IF e >= sink[s] \/ Bug = "no_sink_fence"
       THEN /\ sink' = [sink EXCEPT ![s] = IF e > @ THEN e ELSE @]
            /\ staleFrame' = [staleFrame EXCEPT ![s] = @ \/ e < sink[s]]
       ELSE UNCHANGED <<sink, staleFrame>>
    /\ UNCHANGED <<store, replica, up, rt, dop, sent, rels, faults>>

(***************************************************************************)
(* Faults and worker lifecycle.                                            *)
(***************************************************************************)
Crash(w) ==
    /\ up[w] /\ Fault
    /\ up' = [up EXCEPT ![w] = FALSE]
    /\ rt' = [rt EXCEPT ![w] = {}]
    /\ UNCHANGED <<store, replica, dop, sent, sink, rels, staleFrame>>

(* The lease expires: the worker is dead, or falsely suspected while its   *)
(* runtimes stay alive and keep trying to act.                             *)
LeaseExpire(w) ==
    /\ lease[w] = "live" /\ Fault
    /\ lease' = [lease EXCEPT ![w] = "expired"]
    /\ UNCHANGED <<gen, log, released, tokens, inbox, draining, up, rt, dop, sent, sink, rels, staleFrame>>
    /\ Persist

(* A worker whose lease expired comes back as a new incarnation: it stops  *)
(* every runtime it still has and takes back, as new generations, the      *)
(* sessions still placed on it (a move to itself, in the same step), so a  *)
(* cell whose every lease lapsed at once recovers. Its tokens and stream   *)
(* hold those generations alone.                                           *)
Register(w) ==
    /\ lease[w] = "expired"
    /\ LET mine == {s \in Sessions : gen[s].w = w /\ Live(s)}
       IN /\ \A s \in mine : gen[s].e + 1 \in Epochs
          /\ gen' = [s \in Sessions |->
                       IF s \in mine THEN [w |-> w, e |-> gen[s].e + 1, ph |-> "assigned"]
                       ELSE gen[s]]
          /\ tokens' = [tokens EXCEPT ![w] = {Tok(s, gen[s].e + 1) : s \in mine}]
          /\ inbox' = [inbox EXCEPT ![w] = {<<s, gen[s].e + 1>> : s \in mine}]
          /\ sent' = [sent EXCEPT ![w] = @ \cup {<<s, gen[s].e + 1>> : s \in mine}]
    /\ up' = [up EXCEPT ![w] = TRUE]
    /\ rt' = [rt EXCEPT ![w] = {}]
    /\ lease' = [lease EXCEPT ![w] = "live"]
    /\ draining' = draining \ {w}
    /\ UNCHANGED <<log, released, dop, sink, rels, staleFrame, faults>>
    /\ Persist

(* The assignment reaches the worker again (RPC and stream both deliver;   *)
(* the network duplicates and reorders).                                   *)
Redeliver(w, s, e) ==
    /\ <<s, e>> \in sent[w] \ inbox[w] /\ Fault
    /\ inbox' = [inbox EXCEPT ![w] = @ \cup {<<s, e>>}]
    /\ UNCHANGED <<gen, log, released, tokens, lease, draining, up, rt, dop, sent, sink, rels, staleFrame>>
    /\ Persist

(* Redis replication is asynchronous: the replica catches up at any time;  *)
(* a failover promotes it and the writes it missed are lost. Under WAIT    *)
(* every step is acknowledged only once replicated: the replica is always  *)
(* current and a failover loses nothing that was acknowledged.             *)
Replicate ==
    /\ StoreMode = "async" /\ replica # store
    /\ replica' = store
    /\ UNCHANGED <<store, up, rt, dop, sent, sink, rels, staleFrame, faults>>

Failover ==
    /\ StoreMode # "single" /\ replica # store /\ Fault
    /\ gen' = replica[1] /\ log' = replica[2] /\ released' = replica[3]
    /\ tokens' = replica[4] /\ lease' = replica[5] /\ inbox' = replica[6]
    /\ draining' = replica[7]
    /\ UNCHANGED <<replica, up, rt, dop, sent, sink, rels, staleFrame>>

DispatchNext ==
    \/ \E d \in Dispatchers, s \in Sessions, w \in Workers :
          BeginCreate(d, s, w) \/ BeginMove(d, s, w)
    \/ \E d \in Dispatchers : Commit(d) \/ Abandon(d)
    \/ \E s \in Sessions : Close(s)
    \/ \E w \in Workers : Drain(w) \/ Undrain(w)
    \/ \E s \in Sessions, r \in 1..MaxInputs : PushText(s, r)

WorkerNext ==
    \E w \in Workers, s \in Sessions, e \in Epochs :
        \/ Claim(w, s, e) \/ Reconstruct(w, s, e) \/ ReleaseInput(w, s, e)
        \/ Fence(w, s, e) \/ Teardown(w, s, e) \/ Emit(w, s, e)
    \/ \E w \in Workers, B \in SUBSET (Sessions \X Epochs) : ReleaseBatch(w, B)

FaultNext ==
    \E w \in Workers :
        \/ Crash(w) \/ LeaseExpire(w) \/ Register(w)
        \/ \E s \in Sessions, e \in Epochs : Redeliver(w, s, e)

Next == DispatchNext \/ WorkerNext \/ FaultNext \/ Replicate \/ Failover

(***************************************************************************)
(* Fairness: workers keep working, and some Dispatch replica keeps running *)
(* recovery for sessions whose worker's lease expired.                     *)
(***************************************************************************)
RecoveryMove(s) ==
    \E d \in Dispatchers, w \in Workers :
        Live(s) /\ lease[gen[s].w] = "expired" /\ BeginMove(d, s, w)

Fairness ==
    /\ \A w \in Workers : WF_vars(\E s \in Sessions, e \in Epochs : Claim(w, s, e))
    /\ \A w \in Workers : WF_vars(\E s \in Sessions, e \in Epochs :
                                    Reconstruct(w, s, e) \/ ReleaseInput(w, s, e)
                                    \/ Fence(w, s, e) \/ Teardown(w, s, e))
    /\ \A w \in Workers : WF_vars(Register(w))
    /\ \A s \in Sessions : WF_vars(RecoveryMove(s))
    /\ \A d \in Dispatchers : WF_vars(Commit(d))

Spec == Init /\ [][Next]_vars /\ Fairness

(* Scopes of the batch models (CONSTRAINT): two sessions, one of which     *)
(* moves; the conformance model shows no frame either.                     *)
OneMoves == Cardinality({s \in Sessions : gen[s].e > 1}) <= 1
OneMovesNoMedia == OneMoves /\ \A s \in Sessions : sink[s] = 0

(***************************************************************************)
(* Safety.                                                                 *)
(***************************************************************************)
(* Each (s, seq) is released at most once, by exactly one generation.      *)
NoDualRelease ==
    \A s \in Sessions : \A i, j \in DOMAIN rels[s] :
        i # j => rels[s][i].seq # rels[s][j].seq

(* Every release was made by the generation current at that moment.       *)
NoStaleRelease ==
    \A s \in Sessions : \A i \in DOMAIN rels[s] : ~rels[s][i].stale

(* Releases follow seq order with no gap: the i-th release is seq i.       *)
InOrder ==
    \A s \in Sessions : \A i \in DOMAIN rels[s] : rels[s][i].seq = i

(* A retried request is never appended twice.                              *)
NoDuplicateInput ==
    \A s \in Sessions : \A i, j \in DOMAIN log[s] : i # j => log[s][i] # log[s][j]

(* Tokens, and runtimes alive on a worker, stale ones included, never      *)
(* exceed its capacity.                                                    *)
NoCapacityOvershoot ==
    \A w \in Workers : Cardinality(tokens[w]) <= Cap /\ Cardinality(rt[w]) <= Cap

(* Once the viewer has seen a generation's frame, no older one reaches it. *)
MediaFenced == \A s \in Sessions : ~staleFrame[s]

(* When every lease has lapsed at once, some worker can register again     *)
(* (within the model's epoch bound): the cell is never stuck.              *)
CellRecovers ==
    (\A w \in Workers : lease[w] = "expired") /\ (\A s \in Sessions : gen[s].e < MaxEpoch)
        => \E w \in Workers : ENABLED Register(w)

(* Epochs only grow, and an epoch of a session names one worker.           *)
EpochMonotone ==
    [][\A s \in Sessions :
          /\ gen'[s].e >= gen[s].e
          /\ (gen'[s].e = gen[s].e /\ gen[s].ph # "none") => gen'[s].w = gen[s].w]_vars

(***************************************************************************)
(* Liveness, under Fairness (checked by TLC; see spec/README.md).          *)
(***************************************************************************)
(* Every appended input is eventually released, or its session closed.     *)
InputsReleased ==
    \A s \in Sessions : \A k \in 1..MaxInputs :
        (Len(log[s]) >= k) ~> (released[s].seq >= k \/ gen[s].ph = "closed")

(* Every committed generation is eventually claimed or superseded.         *)
GenerationsSettle ==
    \A s \in Sessions : \A e \in Epochs :
        (gen[s].e = e /\ gen[s].ph = "assigned") ~> (gen[s].e # e \/ gen[s].ph # "assigned")
=============================================================================
