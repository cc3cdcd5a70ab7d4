import { TlaError } from '../errors.js';

/** An error met while evaluating: TLC reports it with exit code 75 unless it says otherwise. */
export class EvalError extends TlaError {
  /** Innermost expression location, attached as the error unwinds. */
  location?: string;
  constructor(message: string, exitCode = 75) {
    super(message, exitCode);
    this.name = 'EvalError';
  }
}
