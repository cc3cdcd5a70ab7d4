/**
 * A vitest reporter for ./scripts/test: its closing line, `N passed, M failed`, the line CI tools read.
 * A test file that fails outside any test (it does not load, or a hook throws) counts as one failure, as
 * does an error vitest meets outside every test: a run that did not run its tests never reads as green.
 */
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = 0;
    let brokenFiles = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
      }
      if (module.errors().length > 0) brokenFiles++;
    }
    const notes = [
      brokenFiles > 0
        ? `${brokenFiles} test file${brokenFiles === 1 ? '' : 's'} failed outside any test`
        : '',
      unhandled.length > 0
        ? `${unhandled.length} error${unhandled.length === 1 ? '' : 's'} outside tests`
        : '',
    ].filter(Boolean);
    const total = failed + brokenFiles + unhandled.length;
    process.stdout.write(
      `${passed} passed, ${total} failed${notes.length ? ` (${notes.join('; ')})` : ''}\n`,
    );
  }
}
