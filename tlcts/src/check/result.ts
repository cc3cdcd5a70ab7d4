/** What a check reports (its verdict, figures and trace) and how a search is asked to run. */
import type { Loc } from '../syntax/ast.js';
import type { Value } from '../values/value.js';
import type { OutDegreeSummary } from './outdegree.js';
import type { FingerprintStoreOptions } from './fpset.js';
import type { QueueOptions } from './queue.js';

export type Verdict =
  | 'success'
  | 'invariant violated'
  | 'property violated'
  | 'deadlock'
  | 'evaluation error'
  | 'assumption false';

export interface StepLabel {
  name: string;
  /** The action's parameters and their values, in parameter order. */
  params: [string, Value][];
  loc?: Loc;
}

export interface TraceState {
  state: Value[];
  /** The action that led here; absent for an initial state. */
  action?: StepLabel;
}

/** What TLCGet("distinct"), ("generated"), ("queue"), ("diameter") and ("level") read. */
export type RunCounters = Partial<
  Pick<CheckResult, 'distinctStates' | 'generatedStates' | 'statesLeftOnQueue' | 'depth'>
> & {
  level?: number;
};

export interface CheckResult {
  verdict: Verdict;
  exitCode: number;
  /** TLC's error text, e.g. `Invariant Inv is violated.` */
  message?: string;
  violated?: string;
  propertyKind?: 'action' | 'temporal';
  distinctStates: number | null;
  generatedStates: number | null;
  statesLeftOnQueue: number | null;
  depth: number | null;
  trace?: TraceState[];
  /** Evaluation errors: where the error occurred. */
  location?: string;
  /** The error occurred while TLC was working on an initial state (it prints that state alone). */
  inInitialState?: boolean;
  /**
   * A temporal counterexample is a lasso: after the last state of the trace, the behaviour goes back
   * to `trace[loop]` by `action`, forever; loop is the last state (and no action) for stuttering.
   */
  lasso?: { loop: number; action?: StepLabel };
  /** Seconds spent checking temporal properties, when there were any. */
  livenessSeconds?: number;
  /** New successors per state expanded, on success. */
  outDegree?: OutDegreeSummary;
  seconds: number;
}

export interface ExploreOptions {
  /** Receives TLC's phase lines (Computing initial states..., Finished computing initial states: ...). */
  log?: (line: string) => void;
  /** Called with TLC's progress line every `progressSeconds`. */
  progress?: (line: string) => void;
  progressSeconds?: number;
  /** Called once per transition explored (from, to, label); enables label capture. */
  onEdge?: (from: number, to: number, loc: StepLabel) => void;
  /** Called once per distinct state, with its id. */
  onState?: (id: number, state: Value[], initial: boolean) => void;
  /** Stop after this BFS depth (simulation-like bound for huge models). */
  maxDepth?: number;
  /**
   * TLC's -fp: TLC keeps a state's successors in the order of their fingerprints, so the seed
   * decides which counterexample a temporal violation shows. Here a seed other than 0 shuffles them.
   */
  fp?: number;
  /** The queue's memory budget, block size and spill directory. */
  queue?: QueueOptions;
  /** The fingerprint table's memory budget and the directory of its disk tier. */
  fingerprints?: FingerprintStoreOptions;
  /**
   * TLC's -continue: each invariant or implied action property violated is reported here, with its
   * behaviour, and the search goes on (the run then ends as if none had been).
   */
  onViolation?: (violation: Omit<CheckResult, 'seconds'>) => void;
}
