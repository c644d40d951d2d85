// The README's cost line and BENCHMARKS.md come from the same run: the line between the markers is the one
// the generator writes from bench/results/latest.json (empty while that run counted no actions).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { costLine, readmeCostLine } from '../report/readme-cost.js';
import type { BenchResults } from '../results.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('README cost line', () => {
  it('is the line bench/results/latest.json gives', () => {
    const latest = JSON.parse(readFileSync(`${root}bench/results/latest.json`, 'utf8')) as BenchResults;
    const readme = readFileSync(`${root}README.md`, 'utf8');
    expect(readmeCostLine(readme), 'README.md has the <!-- bench:cost --> markers').toBeDefined();
    expect(readmeCostLine(readme)).toBe(costLine(latest));
    // Written by `npm run bench` (full run) or `npm run bench -- --report bench/results/latest.json`.
    expect(readFileSync(`${root}BENCHMARKS.md`, 'utf8')).toContain('bench/results/latest.json');
  });
});
