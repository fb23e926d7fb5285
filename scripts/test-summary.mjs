/** Prints vitest's JSON report as one plain closing line: `tests: N passed, N failed, N skipped`. */
import { readFileSync } from 'node:fs'

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const skipped = report.numPendingTests + report.numTodoTests
console.log(
  `tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`,
)
process.exit(report.success === false || report.numFailedTests > 0 || report.numTotalTests === 0 ? 1 : 0)
