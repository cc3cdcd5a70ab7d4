/** Errors that the checker reports to the user; `exitCode` follows TLC. */
export class TlaError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = 150,
  ) {
    super(message);
    this.name = 'TlaError';
  }
}

/**
 * A specification SANY refuses: TLC prints what SANY printed (`report`), then `Starting...` and
 * `Error: Parsing or semantic analysis failed.`, and exits with ERROR_SPEC_PARSE (150).
 */
export class SanyError extends TlaError {
  constructor(readonly report: string) {
    super('Parsing or semantic analysis failed.', 150);
    this.name = 'SanyError';
  }
}
