// The benchmark worker's workflowsPath: the package's workflows unchanged, plus the trivial yardstick.
export { ReviewThenGenerate } from '../../src/workflows/index.js';
export { BenchTrivial } from './trivial.js';
