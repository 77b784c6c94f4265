import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

/** Passed, failed and skipped tests of one module (a module that failed to load counts as one failure). */
function countsOf(mod: TestModule): { passed: number; failed: number; skipped: number } {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const test of mod.children.allTests()) {
    const state = test.result().state;
    if (state === 'passed') counts.passed++;
    else if (state === 'failed') counts.failed++;
    else counts.skipped++;
  }
  if (failedToLoad(mod)) counts.failed++;
  return counts;
}

/** A module that failed before any of its tests existed (an import or a syntax error). */
function failedToLoad(mod: TestModule): boolean {
  return mod.state() === 'failed' && [...mod.children.allTests()].length === 0;
}

/** The first line of the first error, cut to one screen line: enough to tell two failures apart. */
function firstLine(errors: ReadonlyArray<{ message?: string }> | undefined): string {
  const line = (errors?.[0]?.message ?? 'failed').split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/**
 * Progress a person can follow in any log: one plain line per test file as it finishes,
 * `[12/190] ✓ test/render/report.test.ts · 14 tests · 3.2 s` (failures so far at the end of the line),
 * then every failed test again on a line of its own (`✗ file > test: the error's first line`), since a
 * long run's failures scroll far out of a log's tail, and a closing `N passed, N failed, N skipped` that any
 * CI log reader understands.
 */
export default class SummaryReporter implements Reporter {
  private total = 0;
  private done = 0;
  private failedSoFar = 0;
  private readonly startedAt = Date.now();

  private write(text: string): void {
    process.stdout.write(text);
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.total = new Set(specifications.map((s) => s.moduleId)).size;
  }

  onTestModuleEnd(mod: TestModule): void {
    this.done++;
    const { passed, failed, skipped } = countsOf(mod);
    this.failedSoFar += failed;
    const tests = passed + failed + skipped;
    const seconds = (mod.diagnostic().duration / 1000).toFixed(1);
    const minutes = Math.floor((Date.now() - this.startedAt) / 60_000);
    const mark = failed > 0 ? `✗ ${failed} failed ·` : '✓';
    const soFar = this.failedSoFar > 0 ? ` · ${this.failedSoFar} failed so far` : '';
    this.write(
      `[${this.done}/${this.total}] ${mark} ${mod.relativeModuleId} · ${tests} ${tests === 1 ? 'test' : 'tests'} · ${seconds} s · ${minutes} min in${soFar}\n`,
    );
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const failures: string[] = [];
    for (const mod of testModules) {
      const counts = countsOf(mod);
      passed += counts.passed;
      failed += counts.failed;
      skipped += counts.skipped;
      for (const test of mod.children.allTests()) {
        const result = test.result();
        if (result.state === 'failed') failures.push(`${mod.relativeModuleId} > ${test.fullName}: ${firstLine(result.errors)}`);
      }
      if (failedToLoad(mod)) failures.push(`${mod.relativeModuleId}: ${firstLine(mod.errors())}`);
    }
    const list = failures.map((f) => `✗ ${f}\n`).join('');
    this.write(`\n${list}${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
