// The trivial workflow alone, bundled without the package's workflows: the server's limit must not pay
// for loading our modules.
export { BenchTrivial } from './trivial.js';
