// What one run costs, counted from its history: the benchmark's own counter (bench/lib/history-cost.ts), so
// that the tests and BENCHMARKS.md count billable actions the same way.
export { costOf, type RunCost } from '../../bench/lib/history-cost.js';
