/**
 * The CommunityModules implemented as builtins (SequencesExt, FiniteSetsExt, Functions, Folds,
 * Relation, Graphs, IOUtils, Json) and TLAPS, evaluated from TLA+ text as a specification uses them.
 *
 * Each group loads one module that EXTENDS the modules under test and defines one operator per
 * case; each definition is evaluated on its own and its value printed as TLC prints it. Expected
 * values come from the modules' documented meaning (their comments' examples where they give one)
 * and, where TLC runs a Java override, from what that override computes (noted at the case).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SanyError, TlaError } from '../src/errors.js';
import { show, type Value } from '../src/values/value.js';
import {
  type Case,
  type Failure,
  loadDefinitions,
  mismatches as checkDefinitions,
} from './support/definitions.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tlcts-community-'));

/** Loads `---- MODULE name ---- EXTENDS mods` with the given definitions; evaluates any of them. */
const load = (name: string, mods: string, defs: string[]): ((def: string) => Value) =>
  loadDefinitions(tmp, name, mods, defs);

/** Evaluates every case and failure of a group; returns the ones that came out otherwise. */
const mismatches = (
  name: string,
  mods: string,
  cases: Case[],
  failures: Failure[] = [],
  defs: string[] = [],
) => checkDefinitions(tmp, name, mods, cases, failures, defs);

const CHOOSE_FAILED =
  'Attempted to compute the value of an expression of form\nCHOOSE x \\in S: P, but no element of S satisfied P.';

describe('SequencesExt', () => {
  it('computes each operator as documented, and the overrides as TLC does', () => {
    const cases: Case[] = [
      // The module EXTENDS Sequences, FiniteSets, FiniteSetsExt, Functions, Bags and TLC.
      [
        '<<Len(<<1>>), Cardinality({1}), Max({1, 3}), Range(<<4>>), EmptyBag, 1 :> 2>>',
        '<<1, 1, 3, {4}, <<>>, <<2>>>>',
      ],
      ['ToSet(<<3, 1, 3>>)', '{1, 3}'],
      ['ToSet(<<>>)', '{}'],
      ['ToBag(<<3, 1, 3>>)', '(1 :> 1 @@ 3 :> 2)'],
      ['SetToSeq({3, 1, 2})', '<<1, 2, 3>>'],
      ['SetToSeq({})', '<<>>'],
      ['SetToSeqs({1, 2})', '{<<1, 2>>, <<2, 1>>}'],
      ['SetToSeqs({})', '{<<>>}'],
      ['SetToSortSeq({3, 1, 2}, LAMBDA a, b : a > b)', '<<3, 2, 1>>'],
      [
        '<<SetToSortSeq({2, 3, 1}, <), IsSorted(<<1, 2>>, <), FoldSeq(+, 0, <<1, 2>>)>>',
        '<<<<1, 2, 3>>, TRUE, 3>>',
      ],
      ['SetToAllKPermutations({1, 2})', '{<<>>, <<1>>, <<2>>, <<1, 2>>, <<2, 1>>}'],
      ['TupleOf({0, 1}, 2)', '{<<0, 0>>, <<0, 1>>, <<1, 0>>, <<1, 1>>}'],
      ['SeqOf({7}, 2)', '{<<>>, <<7>>, <<7, 7>>}'],
      ['Cardinality(SeqOf({1, 2}, 3))', '15'],
      ['<<<<1, 2>> \\in BoundedSeq(Nat, 3), <<1, 2, 3, 4>> \\in BoundedSeq(Nat, 3)>>', '<<TRUE, FALSE>>'],
      ['<<Contains(<<1, 2>>, 2), Contains(<<>>, 2)>>', '<<TRUE, FALSE>>'],
      ['IsSorted(<<1, 2, 2>>, LAMBDA a, b : a < b)', 'FALSE'],
      ['IsSorted(<<1, 2, 2>>, LAMBDA a, b : a <= b)', 'TRUE'],
      ['IsSorted(<<3, 2, 1>>, LAMBDA a, b : a > b)', 'TRUE'],
      ['<<IsSorted(<<>>, LAMBDA a, b : FALSE), IsSorted(<<5>>, LAMBDA a, b : FALSE)>>', '<<TRUE, TRUE>>'],
      ['Reverse(<<1, 2, 3>>)', '<<3, 2, 1>>'],
      ['Reverse(<<>>)', '<<>>'],
      ['Remove(<<1, 2, 1, 3>>, 1)', '<<2, 3>>'],
      ['ReplaceAll(<<1, 2, 1>>, 1, 9)', '<<9, 2, 9>>'],
      ['SelectInSeq(<<4, 5, 6, 5>>, LAMBDA e : e = 5)', '2'],
      ['SelectInSeq(<<4, 5>>, LAMBDA e : e = 7)', '0'],
      ['SelectInSubSeq(<<4, 5, 6, 5>>, 3, 4, LAMBDA e : e = 5)', '4'],
      ['SelectInSubSeq(<<4, 5>>, 2, 1, LAMBDA e : TRUE)', '0'],
      ['SelectLastInSeq(<<4, 5, 6, 5>>, LAMBDA e : e = 5)', '4'],
      ['SelectLastInSubSeq(<<4, 5, 6, 5>>, 1, 3, LAMBDA e : e = 5)', '2'],
      ['InsertAt(<<1, 3>>, 2, 2)', '<<1, 2, 3>>'],
      ['InsertAt(<<1>>, 2, 2)', '<<1, 2>>'],
      ['InsertAt(<<>>, 1, 5)', '<<5>>'],
      ['ReplaceAt(<<1, 2>>, 2, 5)', '<<1, 5>>'],
      ['RemoveAt(<<1, 2, 3>>, 2)', '<<1, 3>>'],
      ['RemoveFirst(<<1, 2, 1>>, 1)', '<<2, 1>>'],
      ['RemoveFirst(<<2>>, 1)', '<<2>>'],
      ['RemoveFirstMatch(<<1, 2, 3>>, LAMBDA e : e > 1)', '<<1, 3>>'],
      ['<<Cons(0, <<1>>), Snoc(2, <<1>>)>>', '<<<<0, 1>>, <<1, 2>>>>'],
      ['<<Front(<<1, 2, 3>>), Front(<<>>), Front("abc"), Last(<<1, 2>>)>>', '<<<<1, 2>>, <<>>, "ab", 2>>'],
      [
        '<<IsPrefix(<<1>>, <<1, 2>>), IsPrefix(<<2>>, <<1, 2>>), IsPrefix(<<1, 2, 3>>, <<1, 2>>)>>',
        '<<TRUE, FALSE, FALSE>>',
      ],
      ['<<IsPrefix("ab", "abc"), IsPrefix(<<>>, <<>>)>>', '<<TRUE, TRUE>>'],
      ['<<IsStrictPrefix(<<1>>, <<1, 2>>), IsStrictPrefix(<<1, 2>>, <<1, 2>>)>>', '<<TRUE, FALSE>>'],
      [
        '<<IsSuffix(<<2>>, <<1, 2>>), IsSuffix(<<1>>, <<1, 2>>), IsStrictSuffix(<<1, 2>>, <<1, 2>>)>>',
        '<<TRUE, FALSE, FALSE>>',
      ],
      ['Prefixes(<<1, 2>>)', '{<<>>, <<1>>, <<1, 2>>}'],
      ['CommonPrefixes({<<1, 2>>, <<1, 3>>})', '{<<>>, <<1>>}'],
      ['CommonPrefixes({})', '{}'],
      ['LongestCommonPrefix({<<1, 2, 3>>, <<1, 2>>, <<1, 2, 4>>})', '<<1, 2>>'],
      ['LongestCommonPrefix({<<1>>, <<2>>})', '<<>>'],
      ['LongestCommonPrefix({"abc", "abd", "ab"})', '"ab"'],
      ['Suffixes(<<1, 2>>)', '{<<>>, <<2>>, <<1, 2>>}'],
      ['<<SeqMod(4, 2), SeqMod(5, 2), SeqMod(0, 3)>>', '<<2, 1, 3>>'],
      // TLC's override folds in domain order, op(s[i], acc): the first element goes in first.
      ['FoldSeq(LAMBDA e, acc : acc \\o <<e>>, <<>>, <<1, 2, 3>>)', '<<1, 2, 3>>'],
      ['FoldSeq(LAMBDA e, acc : {e} \\cup acc, {}, <<1, 2, 1>>)', '{1, 2}'],
      ['FoldLeft(LAMBDA a, b : <<a, b>>, 0, <<3, 1, 2>>)', '<<<<<<0, 3>>, 1>>, 2>>'],
      ['FoldRight(LAMBDA a, b : <<a, b>>, <<3, 1, 2>>, 0)', '<<3, <<1, <<2, 0>>>>>>'],
      ['FoldLeftDomain(LAMBDA a, i : a \\o <<i>>, <<>>, <<"x", "y">>)', '<<1, 2>>'],
      ['FoldRightDomain(LAMBDA i, a : a \\o <<i>>, <<"x", "y">>, <<>>)', '<<2, 1>>'],
      ['FlattenSeq(<<<<1, 2>>, <<1>>>>)', '<<1, 2, 1>>'],
      ['FlattenSeq(<<"a", "b">>)', '"ab"'],
      ['FlattenSeq(<<>>)', '<<>>'],
      ['Zip(<<1, 3>>, <<2, 4, 6>>)', '<<<<1, 2>>, <<3, 4>>>>'],
      ['FlattenSeq(Zip(<<1, 3>>, <<2, 4>>))', '<<1, 2, 3, 4>>'],
      ['Zip(<<>>, <<1>>)', '<<>>'],
      ['Interleave(<<1, 3>>, <<2, 4>>)', '<<<<1>>, <<2>>, <<3>>, <<4>>>>'],
      ['Interleave(<<>>, <<>>)', '<<>>'],
      ['SubSeqs(<<1, 2>>)', '{<<>>, <<1>>, <<2>>, <<1, 2>>}'],
      ['AllSubSeqs(<<1, 2, 3>>)', '{<<>>, <<1>>, <<2>>, <<3>>, <<1, 2>>, <<1, 3>>, <<2, 3>>, <<1, 2, 3>>}'],
      ['AllSubSeqs(<<>>)', '{<<>>}'],
      ['<<IndexFirstSubSeq(<<1>>, <<1, 1, 1>>), IndexFirstSubSeq(<<2, 3>>, <<1, 2, 3, 2, 3>>)>>', '<<1, 2>>'],
      ['IndexFirstSubSeq(<<>>, <<1>>)', '1'],
      ['ReplaceSubSeqAt(2, <<9>>, <<2, 3>>, <<1, 2, 3, 4>>)', '<<1, 9, 4>>'],
      ['ReplaceFirstSubSeq(<<9>>, <<2>>, <<1, 2, 2>>)', '<<1, 9, 2>>'],
      ['ReplaceFirstSubSeq(<<9>>, <<5>>, <<1, 2>>)', '<<1, 2>>'],
      ['<<ReplaceFirstSubSeq("x", "b", "abcb"), ReplaceFirstSubSeq("x", "", "ab")>>', '<<"axcb", "xab">>'],
      ['ReplaceAllSubSeqs(<<>>, <<>>, <<>>)', '<<>>'],
      ['ReplaceAllSubSeqs(<<4>>, <<>>, <<>>)', '<<4>>'],
      ['ReplaceAllSubSeqs(<<2>>, <<3>>, <<1, 3>>)', '<<1, 2>>'],
      ['ReplaceAllSubSeqs(<<2, 2>>, <<1, 1>>, <<1, 1, 1>>)', '<<2, 2, 1>>'],
      ['ReplaceAllSubSeqs(<<0>>, <<1>>, <<1, 2, 1, 1>>)', '<<0, 2, 0, 0>>'],
      ['ReplaceAllSubSeqs(<<0>>, <<>>, <<1, 2>>)', '<<0, 1, 0, 2>>'],
      ['ReplaceAllSubSeqs(<<0>>, <<7>>, <<1, 2>>)', '<<1, 2>>'],
      ['<<ReplaceAllSubSeqs("x", "ab", "abcab"), ReplaceAllSubSeqs("-", "", "ab")>>', '<<"xcx", "-a-b">>'],
    ];
    const failures: Failure[] = [
      ['Contains(5, 1)', 'The argument of Contains should be a sequence, but instead it is:\n5'],
      ['Reverse({1})', 'The argument of Len should be a sequence, but instead it is:\n{1}'],
      ['Last(<<>>)', 'Attempted to access index 0 of tuple\n<<>>\nwhich is out of bounds.'],
      ['IsSuffix("a", "ba")', 'A non-function (a string) was applied as a function.'],
      ['Suffixes("ab")', 'The argument of Suffixes should be a sequence, but instead it is:\n"ab"'],
      ['SetToSeq(Nat)', 'Applying SetToSeq to the following value,\nwhich is not a finite set:\nNat'],
      [
        'SelectInSeq(<<1>>, LAMBDA e : 1)',
        /^The third argument of SelectInSeq should be a boolean-valued operator, but instead it is:\n/,
      ],
      [
        'SelectInSubSeq(<<1, 2>>, 0, 1, LAMBDA e : TRUE)',
        'The second argument of SelectInSubSeq must be in the domain of its first argument:\n<<1, 2>>\n, but instead it is\n0',
      ],
      [
        'InsertAt(<<1>>, 0, 5)',
        'The second argument of SubSeq must be in the domain of its first argument:\n<<1>>\n, but instead it is\n0',
      ],
      [
        'FoldLeft(LAMBDA a, b : a, 0, {1})',
        'The third argument of FoldLeft should be a sequence, but instead it is:\n{1}',
      ],
      ['Interleave(<<1>>, <<>>)', 'Attempted to evaluate a CASE with no arm true.'],
      ['IndexFirstSubSeq(<<9>>, <<1, 2>>)', CHOOSE_FAILED],
      [
        'LongestCommonPrefix({})',
        'The argument of LongestCommonPrefix should be a non-empty set, but instead it is:\n{}',
      ],
    ];
    expect(mismatches('SeqExt', 'SequencesExt', cases, failures)).toEqual([]);
  });
});

describe('FiniteSetsExt and Folds', () => {
  it('computes each operator as documented, and the overrides as TLC does', () => {
    const cases: Case[] = [
      // TLC's FoldSet override: op(x, acc) over the set in TLC's order.
      ['FoldSet(LAMBDA e, acc : acc \\o <<e>>, <<>>, {3, 1, 2})', '<<1, 2, 3>>'],
      ['FoldSet(LAMBDA e, acc : e + acc, 0, 0..10)', '55'],
      ['<<SumSet(1..4), SumSet({}), ProductSet({2, 3}), ProductSet({})>>', '<<10, 0, 6, 1>>'],
      ['ReduceSet(LAMBDA e, acc : e + acc, {1, 2}, 10)', '13'],
      ['MapThenSumSet(LAMBDA e : e.n, {[n |-> 0], [n |-> 1], [n |-> 2]})', '3'],
      ['FlattenSet({{1, 2}, {2, 3}, {4}})', '{1, 2, 3, 4}'],
      ['<<FlattenSet({}), FlattenSet({{}})>>', '<<{}, {}>>'],
      ['<<SymDiff({1, 2, 3}, {2, 3, 4}), SymDiff({1, 2}, {1, 2})>>', '<<{1, 4}, {}>>'],
      ['Quantify(1..9, LAMBDA n : n % 2 = 0)', '4'],
      ['kSubset(2, 1..3)', '{{1, 2}, {1, 3}, {2, 3}}'],
      ['<<kSubset(0, {1}), kSubset(4, 1..3), kSubset(-1, 1..3)>>', '<<{{}}, {}, {}>>'],
      ['<<Max({3, 1, 2}), Min({3, 1, 2}), Max({-4}), -1 \\in Int>>', '<<3, 1, -4, TRUE>>'],
      ['Choices({{1, 2}, {2, 3}, {5}})', '{{2, 5}, {1, 2, 5}, {1, 3, 5}, {2, 3, 5}}'],
      ['<<Choices({}), Choices({{1}, {}})>>', '<<{{}}, {}>>'],
      ['ChooseUnique({2, 3, 4, 5}, LAMBDA e : e % 3 = 1)', '4'],
      // Folds: the element chosen first is combined last, op(f(x1), op(f(x2), ... base)).
      [
        'MapThenFoldSet(LAMBDA a, b : a \\o b, <<>>, LAMBDA e : <<e>>, LAMBDA s : CHOOSE e \\in s : \\A y \\in s : e >= y, {1, 2, 3})',
        '<<3, 2, 1>>',
      ],
      [
        'MapThenFoldSet(LAMBDA a, b : a \\cup b, {}, LAMBDA e : {{e}}, LAMBDA s : CHOOSE e \\in s : TRUE, {1, 2})',
        '{{1}, {2}}',
      ],
      ['MapThenFoldSet(LAMBDA a, b : a, 7, LAMBDA e : e, LAMBDA s : 0, {})', '7'],
    ];
    const failures: Failure[] = [
      ['Max({})', CHOOSE_FAILED],
      ['ChooseUnique({1, 4}, LAMBDA e : e % 3 = 1)', CHOOSE_FAILED],
      ['Max({"a", "b"})', 'The first argument of >= should be an integer, but instead it is:\n"a"'],
      [
        'FoldSet(LAMBDA a, b : a, 0, Nat)',
        'Attempted to apply the operator overridden by the Java method\npublic static tlc2.value.impl.Value ' +
          'tlc2.overrides.FiniteSetsExt.foldSet(tlc2.value.impl.OpValue,tlc2.value.impl.Value,tlc2.value.impl.Enumerable),\n' +
          'but it produced the following error:\nCannot cast tlc2.value.impl.UserValue to tlc2.value.impl.Enumerable',
      ],
      ['SumSet({"a"})', /tlc2\.module\.Integers\.Plus.*\n.*\nCannot cast tlc2\.value\.impl\.StringValue/s],
      [
        'Quantify(1..3, LAMBDA e : 0)',
        /^The second argument of Quantify should be a boolean-valued operator, but instead it is:\n/,
      ],
      [
        'kSubset("a", {1})',
        'The first argument of kSubset should be a natural number, but instead it is:\n"a"',
      ],
      [
        'MapThenFoldSet(LAMBDA a, b : a, 0, LAMBDA e : e, LAMBDA s : 99, {1})',
        'The choose argument of MapThenFoldSet gave 99, which is not an element of\n{1}',
      ],
    ];
    expect(mismatches('SetsExt', 'FiniteSetsExt, Sequences', cases, failures)).toEqual([]);
  });
});

describe('Functions', () => {
  it('computes each operator as documented, and the overrides as TLC does', () => {
    const cases: Case[] = [
      ['Restrict([e \\in 1..3 |-> e * e], {1, 2})', '<<1, 4>>'],
      ['Restrict(<<1>>, {})', '<<>>'],
      [
        'RestrictDomain((0 :> "a" @@ 1 :> "b" @@ 2 :> "c"), LAMBDA e : e \\in {0, 2})',
        '(0 :> "a" @@ 2 :> "c")',
      ],
      ['RestrictValues(<<0, 1, 2>>, LAMBDA y : y \\in {0, 2})', '(1 :> 0 @@ 3 :> 2)'],
      ['IsRestriction([one |-> 1], [one |-> 1, two |-> 2])', 'TRUE'],
      ['IsRestriction([one |-> 1], [one |-> 1])', 'TRUE'],
      ['IsRestriction([one |-> 1, two |-> 2], [one |-> 1, two |-> 3])', 'FALSE'],
      ['IsRestriction([one |-> 1, two |-> 2], [two |-> 2])', 'FALSE'],
      ['<<Range(<<1, 1, 2>>), Range(<<>>)>>', '<<{1, 2}, {}>>'],
      ['Pointwise(<<1, 2>>, <<10, 20, 30>>, LAMBDA a, b : a + b)', '<<11, 22>>'],
      ['Inverse(F, DOMAIN F, Range(F))', '(0 :> "a" @@ 1 :> "b" @@ 2 :> "c")'],
      // 3 is not in Range(F): CHOOSE takes the first element of DOMAIN F.
      ['Inverse(F, DOMAIN F, {1, 3})', '(1 :> "b" @@ 3 :> "a")'],
      ['AntiFunction(<<"x", "y">>)', '[x |-> 1, y |-> 2]'],
      [
        '<<IsInjective(<<1, 2>>), IsInjective(<<1, 1>>), IsInjective(<<>>), IsInjective(F)>>',
        '<<TRUE, FALSE, TRUE, TRUE>>',
      ],
      ['Injection({1, 2}, {"x", "y"})', '{<<"x", "y">>, <<"y", "x">>}'],
      ['<<Cardinality(Injection(1..2, 1..3)), Cardinality(Injection(1..3, 1..2))>>', '<<6, 0>>'],
      ['<<<<1, 2>> \\in Injection(1..2, Nat), <<1, 1>> \\in Injection(1..2, Nat)>>', '<<TRUE, FALSE>>'],
      ['<<Cardinality(Surjection(1..3, 1..2)), Surjection({}, {})>>', '<<6, {<<>>}>>'],
      ['Bijection(1..2, 1..2)', '{<<1, 2>>, <<2, 1>>}'],
      [
        '<<ExistsInjection(1..2, 1..3), ExistsInjection(1..3, 1..2), ExistsInjection({}, {})>>',
        '<<TRUE, FALSE, TRUE>>',
      ],
      [
        '<<ExistsSurjection(1..3, 1..2), ExistsSurjection(1..2, 1..3), ExistsSurjection({1}, {}), ExistsSurjection({}, {})>>',
        '<<TRUE, FALSE, FALSE, TRUE>>',
      ],
      ['<<ExistsBijection(1..2, {"x", "y"}), ExistsBijection(1..2, 1..3)>>', '<<TRUE, FALSE>>'],
      // TLC's FoldFunction override: op(fun[i], acc) in domain order.
      ['FoldFunction(LAMBDA e, acc : acc \\o <<e>>, <<>>, <<1, 2, 3>>)', '<<1, 2, 3>>'],
      ['FoldFunction(LAMBDA e, acc : {e} \\cup acc, {}, <<1, 2, 1>>)', '{1, 2}'],
      ['FoldFunctionOnSet(LAMBDA e, acc : e + acc, 0, <<1, 2, 3>>, {1, 3})', '4'],
      ['FoldFunctionOnSet(LAMBDA e, acc : {e} \\cup acc, {}, <<1, 2>>, {})', '{}'],
    ];
    const failures: Failure[] = [
      ['IsInjective(5)', 'The argument of IsInjective should be a function, but instead it is:\n5'],
      ['Inverse(<<1>>, {}, {1})', CHOOSE_FAILED],
      ['Restrict(<<1>>, {2})', 'Attempted to access index 2 of tuple\n<<1>>\nwhich is out of bounds.'],
      ['Range(3)', 'Attempted to apply the operator DOMAIN to a non-function\n(an integer)\n'],
      ['Restrict(<<1>>, 3)', 'Attempted to use 3, which is not a set, as a set.'],
      [
        'FoldFunction(LAMBDA a, b : a, 0, "ab")',
        /tlc2\.overrides\.Functions\.foldFunction\(.*\n.*\nCannot cast tlc2\.value\.impl\.StringValue to tlc2\.value\.impl\.Applicable$/s,
      ],
    ];
    const defs = ['F == ("a" :> 0 @@ "b" :> 1 @@ "c" :> 2)'];
    expect(
      mismatches('Fcns', 'Functions, TLC, Sequences, FiniteSets, Naturals', cases, failures, defs),
    ).toEqual([]);
  });
});

describe('Relation', () => {
  it('decides each property of a relation and of an operator, and computes closures', () => {
    const defs = [
      'S == 1..3',
      'Lt == [a, b \\in S |-> a < b]',
      'Le == [a, b \\in S |-> a <= b]',
      'Eq == [a, b \\in S |-> a = b]',
      'Ne == [a, b \\in S |-> a # b]',
      'Succ == [a, b \\in S |-> b = a + 1]',
      'Adj == [a, b \\in S |-> b = a + 1 \\/ a = b + 1]',
    ];
    const cases: Case[] = [
      [
        '<<IsReflexive(Le, S), IsReflexive(Lt, S), IsReflexiveUnder(LAMBDA a, b : a = b, S)>>',
        '<<TRUE, FALSE, TRUE>>',
      ],
      ['<<IsIrreflexive(Lt, S), IsIrreflexiveUnder(LAMBDA a, b : a <= b, S)>>', '<<TRUE, FALSE>>'],
      [
        '<<IsSymmetric(Eq, S), IsSymmetric(Lt, S), IsSymmetricUnder(LAMBDA a, b : a # b, S)>>',
        '<<TRUE, FALSE, TRUE>>',
      ],
      [
        '<<IsAntiSymmetric(Le, S), IsAntiSymmetric(Ne, S), IsAntiSymmetricUnder(LAMBDA a, b : a = b, S)>>',
        '<<TRUE, FALSE, TRUE>>',
      ],
      [
        '<<IsAsymmetric(Lt, S), IsAsymmetric(Le, S), IsAsymmetricUnder(LAMBDA a, b : a < b, S)>>',
        '<<TRUE, FALSE, TRUE>>',
      ],
      [
        '<<IsTransitive(Lt, S), IsTransitive(Ne, S), IsTransitiveUnder(LAMBDA a, b : a = b, S)>>',
        '<<TRUE, FALSE, TRUE>>',
      ],
      [
        '<<IsStrictlyPartiallyOrdered(Lt, S), IsStrictlyPartiallyOrderedUnder(LAMBDA a, b : a <= b, S)>>',
        '<<TRUE, FALSE>>',
      ],
      ['<<IsPartiallyOrdered(Le, S), IsPartiallyOrderedUnder(LAMBDA a, b : a < b, S)>>', '<<TRUE, FALSE>>'],
      [
        '<<IsStrictlyTotallyOrdered(Lt, S), IsStrictlyTotallyOrderedUnder(LAMBDA a, b : a < b, S)>>',
        '<<TRUE, TRUE>>',
      ],
      ['IsStrictlyTotallyOrderedUnder(LAMBDA a, b : a \\subseteq b /\\ a # b, SUBSET {1, 2})', 'FALSE'],
      [
        '<<IsTotallyOrdered(Le, S), IsPartiallyOrderedUnder(LAMBDA a, b : a \\subseteq b, SUBSET {1, 2})>>',
        '<<TRUE, TRUE>>',
      ],
      ['IsTotallyOrderedUnder(LAMBDA a, b : a \\subseteq b, SUBSET {1, 2})', 'FALSE'],
      ['<<TransitiveClosure(Succ, S) = Lt, ReflexiveTransitiveClosure(Succ, S) = Le>>', '<<TRUE, TRUE>>'],
      [
        'TransitiveClosure([a, b \\in {1, 2} |-> a < b], {1, 2})',
        '(<<1, 1>> :> FALSE @@ <<1, 2>> :> TRUE @@ <<2, 1>> :> FALSE @@ <<2, 2>> :> FALSE)',
      ],
      ['TransitiveClosure(Succ, {})', '<<>>'],
      ['<<IsConnected(Succ, S), IsConnected(Adj, S), IsConnected(Succ, {})>>', '<<FALSE, TRUE, TRUE>>'],
    ];
    const failures: Failure[] = [
      [
        'IsReflexive(Le, 1..4)',
        /^Attempted to apply function:\n.*\nto argument <<4, 4>>, which is not in the domain/s,
      ],
      ['IsReflexive([a, b \\in S |-> 1], S)', 'A non-boolean expression (1) was used as a condition.'],
    ];
    expect(mismatches('Rel', 'Relation, Naturals', cases, failures, defs)).toEqual([]);
  });
});

describe('Graphs', () => {
  it('computes each operator as documented, and the overrides as TLC does', () => {
    const defs = [
      'G == [node |-> {1, 2, 3}, edge |-> {<<1, 2>>, <<2, 3>>}]',
      'C == [node |-> {1, 2, 3}, edge |-> {<<1, 2>>, <<2, 3>>, <<3, 1>>}]',
      'U == [node |-> {1, 2}, edge |-> {<<1, 2>>, <<2, 1>>}]',
      'T == [node |-> {1, 2, 3}, edge |-> {<<2, 1>>, <<3, 1>>}]',
      'L == [node |-> {1, 2, 3, 4}, edge |-> {<<1, 2>>, <<2, 3>>, <<3, 4>>}]',
    ];
    const cases: Case[] = [
      ['<<IsDirectedGraph(G), IsDirectedGraph([node |-> {1}, edge |-> {<<1, 2>>}])>>', '<<TRUE, FALSE>>'],
      ['IsDirectedGraph([node |-> {1}, edge |-> {}, label |-> 1])', 'FALSE'],
      ['Cardinality(DirectedSubgraph([node |-> {1, 2}, edge |-> {<<1, 2>>}]))', '5'],
      ['Transpose(G)', '[node |-> {1, 2, 3}, edge |-> {<<2, 1>>, <<3, 2>>}]'],
      ['<<IsUndirectedGraph(U), IsUndirectedGraph(G)>>', '<<TRUE, FALSE>>'],
      ['Cardinality(UndirectedSubgraph(U))', '5'],
      [
        '<<<<1, 2, 3>> \\in Path(G), <<1, 3>> \\in Path(G), <<>> \\in Path(G), <<3, 1, 2, 3, 1>> \\in Path(C)>>',
        '<<TRUE, FALSE, FALSE, TRUE>>',
      ],
      ['SimplePath(G)', '{<<1>>, <<2>>, <<3>>, <<1, 2>>, <<2, 3>>, <<1, 2, 3>>}'],
      ['Cardinality(SimplePath(C))', '9'],
      [
        '<<AreConnectedIn(1, 3, G), AreConnectedIn(3, 1, G), AreConnectedIn(1, 1, G), AreConnectedIn(1, 9, G)>>',
        '<<TRUE, FALSE, TRUE, FALSE>>',
      ],
      ['<<ConnectionsIn(G)[1, 3], ConnectionsIn(G)[3, 1], ConnectionsIn(G)[2, 2]>>', '<<TRUE, FALSE, TRUE>>'],
      [
        '<<IsStronglyConnected(C), IsStronglyConnected(G), IsStronglyConnected(EmptyGraph)>>',
        '<<TRUE, FALSE, TRUE>>',
      ],
      ['<<IsTreeWithRoot(T, 1), IsTreeWithRoot(G, 1), IsTreeWithRoot(T, 2)>>', '<<TRUE, FALSE, FALSE>>'],
      [
        'GraphUnion(G, [node |-> {4}, edge |-> {<<3, 4>>}])',
        '[node |-> {1, 2, 3, 4}, edge |-> {<<1, 2>>, <<2, 3>>, <<3, 4>>}]',
      ],
      [
        '<<IsBipartiteWithPartitions(L, {1, 3}, {2, 4}), IsBipartiteWithPartitions(L, {1, 2}, {3, 4})>>',
        '<<TRUE, FALSE>>',
      ],
      [
        '<<HasCycle(C), HasCycle(G), HasCycle([node |-> {1}, edge |-> {<<1, 1>>}])>>',
        '<<TRUE, FALSE, TRUE>>',
      ],
      ['<<IsDag(G), IsDag(C), IsDag(T)>>', '<<TRUE, FALSE, TRUE>>'],
      [
        '<<Successors(G, 1), AllSuccessors(G, {1, 2}), Predecessors(G, 3), AllPredecessors(G, {2, 3})>>',
        '<<{2}, {2, 3}, {2}, {1, 2}>>',
      ],
      ['<<InDegree(T, 1), OutDegree(G, 3), Roots(G), Leaves(G)>>', '<<2, 0, {1}, {3}>>'],
      ['EmptyGraph', '[node |-> {}, edge |-> {}]'],
      [
        '<<Cardinality(Graphs({1, 2})), G \\in Graphs({1, 2, 3}), G \\in Graphs({1, 2})>>',
        '<<16, TRUE, FALSE>>',
      ],
    ];
    const failures: Failure[] = [
      [
        'SimplePath([node |-> 1, edge |-> {}])',
        'The first argument of SimplePath should be a graph record whose node field is a set, but instead it is:\n[node |-> 1, edge |-> {}]',
      ],
      [
        'AreConnectedIn(1, 2, {})',
        'The third argument of AreConnectedIn should be a graph record with a node and an edge field, but instead it is:\n{}',
      ],
      [
        'Successors([node |-> {1}], 1)',
        'Attempted to select nonexistent field edge from the record\n[node |-> {1}]',
      ],
    ];
    expect(mismatches('Graph', 'Graphs, FiniteSets', cases, failures, defs)).toEqual([]);
  });
});

describe('IOUtils', () => {
  it('reads the environment, converts numbers, and writes and reads text files', () => {
    process.env.TLCTS_COMMUNITY_TEST = 'hello';
    const file = path.join(tmp, 'io.txt');
    const txt = (options: string) =>
      `[format |-> "TXT", charset |-> "UTF-8", openOptions |-> <<${options}>>]`;
    const outcome = (call: string) => `LET r == ${call} IN <<r.exitValue, r.stdout, r.stderr>>`;
    const cases: Case[] = [
      ['IOEnv.TLCTS_COMMUNITY_TEST', '"hello"'],
      ['<<atoi("42"), atoi("-17"), atoi("+5"), atoi("0")>>', '<<42, -17, 5, 0>>'],
      [
        '<<zeroPadN(42, 5), zeroPadN(123, 3), zeroPadN(7, 1), zeroPadN(0, 4)>>',
        '<<"00042", "123", "7", "0000">>',
      ],
      [
        outcome(`Serialize("hello", "${file}", ${txt('"WRITE", "CREATE", "TRUNCATE_EXISTING"')})`),
        '<<0, "Finish writting to the file with success!", "">>',
      ],
      [
        outcome(`Serialize(" world", "${file}", ${txt('"APPEND"')})`),
        '<<0, "Finish writting to the file with success!", "">>',
      ],
      [
        outcome(`Deserialize("${file}", [format |-> "TXT", charset |-> "UTF-8"])`),
        '<<0, "hello world", "">>',
      ],
      [
        outcome(`Serialize(1, "${file}", ${txt('')})`),
        '<<1, "", "Serialize error invalid parameters: the payload 1 is not a string">>',
      ],
      [
        outcome(`Serialize("x", "${file}", [format |-> "TXT", charset |-> "EBCDIC", openOptions |-> <<>>])`),
        '<<1, "", "Serialize error writting to the file: unsupported charset EBCDIC">>',
      ],
      [
        outcome(`Serialize("x", "${file}", ${txt('"CREATE_NEW"')})`),
        `<<1, "", "Serialize error writting to the file: java.nio.file.FileAlreadyExistsException: ${file}">>`,
      ],
      [
        outcome(`Deserialize("${file}.none", [format |-> "TXT", charset |-> "UTF-8"])`),
        `<<1, "", "Deserialize error reading from the file: java.nio.file.NoSuchFileException: ${file}.none">>`,
      ],
    ];
    const failures: Failure[] = [
      ['atoi("4x")', 'The argument of atoi should be a string, but instead it is:\n"4x"'],
      ['IOExec(<<"ls">>)', 'unsupported: IOExec (running a process) is not available in tlcts'],
      [
        'IOEnvExec([A |-> "1"], <<"ls">>)',
        'unsupported: IOEnvExec (running a process) is not available in tlcts',
      ],
      ['IOExecTemplate(<<"ls %s">>, <<"-l">>)', /^unsupported: IOExecTemplate \(running a process\)/],
      [
        'IOEnvExecTemplate([A |-> "1"], <<"ls">>, <<>>)',
        /^unsupported: IOEnvExecTemplate \(running a process\)/,
      ],
      ['IODeserialize("f", FALSE)', /^unsupported: IODeserialize \(TLC's Java object serialization\)/],
      [
        'IOSerialize(1, "f", FALSE)',
        "unsupported: IOSerialize (TLC's Java object serialization) is not available in tlcts",
      ],
      ['Serialize("a", "f", [format |-> "CSV"])', /^unsupported: Serialize with format "CSV"/],
    ];
    const wrong = mismatches('IO', 'IOUtils', cases, failures);
    expect(wrong).toEqual([]);
    expect(fs.readFileSync(file, 'utf8')).toBe('hello world');
  });
});

describe('Json', () => {
  it('writes values as TLC writes JSON and reads JSON back', () => {
    const array = path.join(tmp, 'out', 'values.json');
    const lines = path.join(tmp, 'values.ndjson');
    fs.writeFileSync(path.join(tmp, 'blank.ndjson'), '{"k": [1, -2]}\n\n  true  \n');
    fs.writeFileSync(path.join(tmp, 'float.json'), '{"k": 1.5}');
    const cases: Case[] = [
      ['ToJson([a |-> 1, b |-> <<TRUE, "s">>])', JSON.stringify('{"a":1,"b":[true,"s"]}')],
      ['ToJson({3, 1})', JSON.stringify('[1,3]')],
      ['ToJson((2 :> "x" @@ 5 :> "y"))', JSON.stringify('{"2":"x","5":"y"}')],
      ['ToJson((0 :> "x" @@ 1 :> "y"))', JSON.stringify('["x","y"]')],
      [
        '<<ToJson(<<>>), ToJson(TLCModelValue("m")), ToJson("q\\"")>>',
        '<<"[]", "\\"m\\"", "\\"q\\\\\\"\\"">>',
      ],
      ['ToJsonArray(<<1, 2>>)', JSON.stringify('[1,2]')],
      ['ToJsonArray((2 :> 1))', JSON.stringify('{"2":1}')],
      // TLC writes a tuple given to ToJsonObject as an object keyed from "0".
      ['ToJsonObject(<<1, 2>>)', JSON.stringify('{"0":1,"1":2}')],
      ['ToJsonObject([a |-> "q"])', JSON.stringify('{"a":"q"}')],
      [`JsonSerialize("${array}", <<[a |-> 1], <<2, 3>>, {}>>)`, 'TRUE'],
      [`JsonDeserialize("${array}")`, '<<[a |-> 1], <<2, 3>>, <<>>>>'],
      [`ndJsonSerialize("${lines}", <<[a |-> 1], "s">>)`, 'TRUE'],
      [`ndJsonDeserialize("${lines}")`, '<<[a |-> 1], "s">>'],
      [`ndJsonDeserialize("${path.join(tmp, 'blank.ndjson')}")`, '<<[k |-> <<1, -2>>], TRUE>>'],
    ];
    const failures: Failure[] = [
      [
        'ToJsonArray([a |-> 1])',
        'Attempted to apply the operator overridden by the Java method\npublic static tlc2.value.impl.StringValue ' +
          'tlc2.module.Json.toJsonArray(tlc2.value.IValue) throws java.io.IOException,\nbut it produced the following error:\n' +
          'Cannot convert value: unsupported value type tlc2.value.impl.RecordValue',
      ],
      ['ToJson(Nat)', /\nCannot convert value: unsupported value type tlc2\.value\.impl\.UserValue$/],
      [
        `JsonDeserialize("${path.join(tmp, 'float.json')}")`,
        /\nCannot convert value: unsupported JSON value 1\.5$/,
      ],
      [`JsonDeserialize("${path.join(tmp, 'none.json')}")`, /\n.*none\.json \(No such file or directory\)$/],
      [
        'JsonSerialize(1, <<>>)',
        /\nCannot cast tlc2\.value\.impl\.IntValue to tlc2\.value\.impl\.StringValue$/,
      ],
    ];
    const wrong = mismatches('Js', 'Json, TLC, TLCExt, Naturals', cases, failures);
    expect(wrong).toEqual([]);
    expect(fs.readFileSync(array, 'utf8')).toBe('[\n{"a":1},\n[2,3],\n[]\n]\n');
    expect(fs.readFileSync(lines, 'utf8')).toBe('{"a":1}\n"s"\n');
  });
});

describe('Bitwise', () => {
  it('computes &, |, ^^ and shiftR on naturals, as their definitions and the Java overrides do', () => {
    const cases: Case[] = [
      ['<<12 & 10, 10 & 12, 0 & 5, 7 & 7>>', '<<8, 8, 0, 7>>'],
      ['<<12 | 3, 3 | 12, 0 | 0, 8 | 1>>', '<<15, 15, 0, 9>>'],
      ['<<12 ^^ 10, 5 ^^ 5, 0 ^^ 9>>', '<<6, 0, 9>>'],
      ['<<shiftR(12, 2), shiftR(1, 0), shiftR(1, 1), shiftR(1024, 10)>>', '<<3, 1, 0, 1>>'],
    ];
    const failures: Failure[] = [
      ['"a" & 1', 'The first argument of >= should be an integer, but instead it is:\n"a"'],
      ['1 | {}', 'The second argument of >= should be an integer, but instead it is:\n{}'],
    ];
    expect(mismatches('Bits', 'Naturals, Bitwise', cases, failures)).toEqual([]);
  });
});

describe('loading', () => {
  it('loads every TLAPS pragma of tlapm, with and without a timeout or tactic argument', () => {
    const cases: Case[] = [
      [
        '<<SMT, CVC4, Zipper, Z3, Spass, LS4, PTL, Zenon, Isa, Auto, Force, Blast, AutoBlast>>',
        `<<${Array(13).fill('TRUE').join(', ')}>>`,
      ],
      [
        '<<SMTT("r5"), ZenonT(10), IsaT(5), CVC4T(3), ZipperT(1), LS4T(2), IsaM("auto"), IsaMT("auto", 3)>>',
        `<<${Array(8).fill('TRUE').join(', ')}>>`,
      ],
      [
        '<<SlowestSimplification, SlowerSimplifyAndSolve, SlowBlast, IsaWithSetExtensionality>>',
        '<<TRUE, TRUE, TRUE, TRUE>>',
      ],
      [
        '<<AllProvers, AllProversT(9), ExpandENABLED, ExpandCdot, AutoUSE, Lambdify, ENABLEDaxioms>>',
        `<<${Array(7).fill('TRUE').join(', ')}>>`,
      ],
      [
        '<<LevelComparison, Trivial, EnabledWrapper(LAMBDA e : e), CdotWrapper(LAMBDA e : e)>>',
        '<<TRUE, TRUE, FALSE, FALSE>>',
      ],
    ];
    expect(mismatches('Proofs', 'TLAPS', cases)).toEqual([]);
  });

  it('makes the modules available through INSTANCE, named and unnamed', () => {
    const defs = ['SE == INSTANCE SequencesExt', 'INSTANCE Graphs', 'LOCAL INSTANCE Json'];
    const cases: Case[] = [
      ['<<SE!Reverse(<<1, 2>>), SE!Len(<<1>>), SE!Max({2, 5})>>', '<<<<2, 1>>, 1, 5>>'],
      ['<<Successors([node |-> {1, 2}, edge |-> {<<1, 2>>}], 1), ToJson(<<1>>)>>', '<<{2}, "[1]">>'],
    ];
    expect(mismatches('Inst', 'Naturals', cases, [], defs)).toEqual([]);
  });

  it('exports what each module EXTENDS, and nothing it only instantiates', () => {
    expect(
      show(load('ViaExt', 'SequencesExt', ['D == <<Len(<<1>>), Cardinality({1}), SumSet({1, 2})>>'])('D')),
    ).toBe('<<1, 1, 3>>');
    // Graphs instantiates Sequences LOCALly: Len is not visible to a module that extends it.
    let error: unknown;
    try {
      load('ViaLocal', 'Graphs', ['D == Len(<<1>>)'])('D');
    } catch (e) {
      error = e;
    }
    // SANY's semantic error.
    expect(error).toBeInstanceOf(SanyError);
    expect((error as SanyError).report).toContain("Unknown operator: `Len'.");
  });
});

describe('names a community module passes on from the modules it extends', () => {
  // Releases of the CommunityModules differ: SequencesExt and FiniteSetsExt EXTEND their dependencies
  // today and took them by LOCAL INSTANCE before. A passed-on name is in scope, and gives way to a
  // specification's own definition of it; a module's own operators, and names extended directly, do not.
  const loadError = (name: string, mods: string, defs: string[]): unknown => {
    try {
      load(name, mods, defs)(defs[0]!.split(' ')[0]!);
    } catch (e) {
      return e;
    }
    return undefined;
  };

  it("a specification's own Range and Max (Functions' and FiniteSetsExt's through SequencesExt) are its own", () => {
    const evaluate = load('OwnRange', 'Naturals, Sequences, SequencesExt', [
      'Range(f) == {f[i] + 100 : i \\in DOMAIN f}',
      'Max(S) == CHOOSE m \\in S : \\A k \\in S : k >= m',
      'D == <<Range(<<1, 2>>), Max({3, 7}), ToSet(<<1, 2>>), Reverse(<<1, 2>>)>>',
    ]);
    // the own Max is the minimum: it is the one used
    expect(show(evaluate('D'))).toBe('<<{101, 102}, 3, {1, 2}, <<2, 1>>>>');
  });

  it('a passed-on name is still in scope when not defined again, also through a user module', () => {
    const evaluate = load('PassedOn', 'SequencesExt', ['D == <<Range(<<4>>), Max({3, 7}), Len(<<1>>)>>']);
    expect(show(evaluate('D'))).toBe('<<{4}, 7, 1>>');
  });

  it("refuses a definition of a community module's own operator, or of a name extended directly", () => {
    for (const [mods, def] of [
      ['SequencesExt', 'Reverse(s) == s'],
      ['Functions, SequencesExt', 'Range(f) == {}'],
      ['SequencesExt, Sequences', 'Len(s) == 0'],
    ] as const) {
      const error = loadError('Clash', mods, [def]);
      expect(error, `${mods} / ${def}`).toBeInstanceOf(TlaError);
      expect(error).toMatchObject({
        exitCode: 150,
        message: expect.stringMatching(/^Multiply-defined symbol/),
      });
    }
  });
});

describe('a specification extending the community modules, through the tlcts command', () => {
  const folder = path.join(import.meta.dirname, 'specs', 'Community');
  const run = (cfg: string) =>
    spawnSync(
      process.execPath,
      [
        path.join(import.meta.dirname, '../bin/tlcts.js'),
        path.join(folder, 'Community.tla'),
        '-config',
        path.join(folder, `${cfg}.cfg`),
      ],
      { encoding: 'utf8' },
    );

  it('checks every reachable state against invariants written with them', () => {
    const r = run('Community');
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('Model checking completed. No error has been found.');
    expect(r.stdout).toContain('29 states generated, 15 distinct states found, 0 states left on queue.');
    expect(r.stdout).toContain('The depth of the complete state graph search is 4.');
  });

  it('reports the first state that violates an invariant written with them', () => {
    const r = run('Community_Sorted');
    expect(r.status, r.stdout + r.stderr).toBe(12);
    expect(r.stdout).toContain('Error: Invariant NoSortedTriple is violated.');
    expect(r.stdout).toMatch(
      /State 4: <Grow line \d+, col \d+ to line \d+, col \d+ of module Community>\nq = <<1, 1, 1>>/,
    );
  });
});
