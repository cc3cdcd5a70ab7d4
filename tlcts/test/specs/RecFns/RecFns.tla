------------------------------- MODULE RecFns -------------------------------
(***************************************************************************)
(* Recursive functions and RECURSIVE operators driving a small counter.    *)
(*                                                                         *)
(* Features: f[n \in 0..N] == ... (self-referential function definitions), *)
(* a recursive function over SUBSET, a recursive function defined in a LET *)
(* inside an action, RECURSIVE operators (single and mutual recursion,     *)
(* two arguments), a RECURSIVE operator over sequences.                    *)
(*                                                                         *)
(* Expected figures (test/language.test.ts) were computed by a throwaway   *)
(* Python breadth-first search of the same state machine, written from     *)
(* this text, not with tlcts.                                              *)
(***************************************************************************)
EXTENDS Naturals, Sequences

CONSTANT N

fact[n \in 0..N] == IF n = 0 THEN 1 ELSE n * fact[n - 1]
fib[n \in 0..N]  == IF n < 2 THEN n ELSE fib[n - 1] + fib[n - 2]

SetSum[S \in SUBSET (1..N)] ==
    IF S = {} THEN 0
    ELSE LET m == CHOOSE e \in S : \A o \in S : e <= o
         IN  m + SetSum[S \ {m}]

RECURSIVE IsEven(_), IsOdd(_)
IsEven(n) == IF n = 0 THEN TRUE ELSE IsOdd(n - 1)
IsOdd(n)  == IF n = 0 THEN FALSE ELSE IsEven(n - 1)

RECURSIVE SumTo(_)
SumTo(n) == IF n = 0 THEN 0 ELSE n + SumTo(n - 1)

RECURSIVE Gcd(_, _)
Gcd(a, b) == IF b = 0 THEN a ELSE Gcd(b, a % b)

RECURSIVE SeqSum(_)
SeqSum(s) == IF s = <<>> THEN 0 ELSE Head(s) + SeqSum(Tail(s))

VARIABLES n, acc, parity, hist

Init == /\ n = 0
        /\ acc = 0
        /\ parity = "even"
        /\ hist = <<>>

Step == /\ n < N
        /\ n' = n + 1
        /\ \/ acc' = (acc + fact[n']) % 7
           \/ acc' = (acc + fib[n'] + SumTo(n')) % 7
           \/ acc' = LET tri[k \in 0..n'] == IF k = 0 THEN 0 ELSE k + tri[k - 1]
                     IN  (acc + tri[n'] + SetSum[1..n']) % 7
        /\ parity' = IF IsEven(n') THEN "even" ELSE "odd"
        /\ hist' = Append(hist, acc')

Reset == /\ n = N
         /\ Gcd(acc + 6, 12) > 1
         /\ n' = 0
         /\ acc' = (SeqSum(hist) + acc) % 5
         /\ parity' = "even"
         /\ hist' = <<>>

Next == Step \/ Reset

Spec == Init /\ [][Next]_<<n, acc, parity, hist>>

TypeOK == /\ n \in 0..N
          /\ acc \in 0..6
          /\ parity = IF IsOdd(n) THEN "odd" ELSE "even"
          /\ Len(hist) = n

Facts == /\ fact[N] = SumTo(N) * 0 + fact[N]
         /\ Gcd(12, 18) = 6
         /\ SetSum[1..N] = SumTo(N)
=============================================================================
