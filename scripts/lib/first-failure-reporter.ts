/**
 * A vitest reporter for ./scripts/mutants: writes the first test that fails (`file > full name: first line
 * of its error`), or the first file that fails outside any test, to the file named by FIRST_FAILURE_FILE,
 * as soon as it is known (a bail stops the other tests before vitest's own reports would name it).
 */
import fs from 'node:fs';
import type { Reporter, TestCase, TestModule } from 'vitest/node';

export default class FirstFailureReporter implements Reporter {
  private readonly file = process.env['FIRST_FAILURE_FILE'];

  onTestCaseResult(test: TestCase): void {
    const result = test.result();
    if (result.state !== 'failed') return;
    const why = result.errors?.[0]?.message.split('\n')[0];
    this.record(`${test.module.relativeModuleId} > ${test.fullName}${why ? `: ${why}` : ''}`);
  }

  onTestModuleEnd(module: TestModule): void {
    const error = module.errors()[0];
    if (error) this.record(`${module.relativeModuleId} (${error.message.split('\n')[0]})`);
  }

  private record(what: string): void {
    if (!this.file || fs.existsSync(this.file)) return;
    fs.writeFileSync(this.file, what);
  }
}
