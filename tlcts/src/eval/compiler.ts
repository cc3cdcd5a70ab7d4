/**
 * Compiles TLA+ expressions to closures, once.
 *
 * Value mode (`expr`) evaluates an expression in a state (or a pair of states for actions).
 * Action mode (`act`) enumerates the ways an action can be taken, assigning the variables of the
 * next state (or, for Init, of the initial state) as TLC does: `x' = e` assigns an unassigned x',
 * `x' \in S` enumerates S, `\/` and `\E` branch, every other conjunct is a guard.
 *
 * The compiler is built in layers, each a class extending the one before, in compile/: name
 * resolution (names.ts), constant analysis (constants.ts), definitions and calls (calls.ts), value
 * mode (value-mode.ts) and action mode (action-mode.ts); what they share is in compile/support.ts.
 * A lower layer declares what it needs of a higher one (`expr`, `act`) as abstract.
 */
import { ActionCompiler } from './compile/action-mode.js';

export class Compiler extends ActionCompiler {}
