---- MODULE CyclicOverride ----
\* Replacements that use the names they replace (TLC's cyclic redefinitions), see the cfg.
EXTENDS Naturals
VARIABLE n
Init == n = 0
Limit == 6
Next == n < Limit /\ n' \in {n + 1, n + 2}
\* Reaches Next through Helper: there Next keeps its own definition.
OnlyEven == Helper /\ n' % 2 = 0
Helper == Next
\* Limit here is Limit's own definition, 6; everywhere else Limit is SmallLimit.
SmallLimit == Limit - 2
Inv == n <= Limit
====
