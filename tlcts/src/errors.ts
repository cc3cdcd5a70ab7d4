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
