// The README's one line on what a job costs, written between two markers from the same results file as
// BENCHMARKS.md, so that the two never disagree (bench/test/readme-cost.test.ts holds them to it).
import type { BenchResults } from '../results.js';
import { meanCost } from './cost.js';

export const COST_START = '<!-- bench:cost -->';
export const COST_END = '<!-- /bench:cost -->';

/** The line for a results file; empty when the run counted no actions (then the README says nothing). */
export function costLine(r: BenchResults): string {
  const cb = meanCost(r, 'callbacks');
  const poll = meanCost(r, 'polling');
  if (!cb && !poll) return '';
  const date = r.startedAt.slice(0, 10);
  const parts = [
    cb ? `about ${Math.round(cb.total)} actions per job on Temporal Cloud with callbacks` : '',
    poll?.beyondPolls !== undefined
      ? `${cb ? '' : 'polling: '}about ${Math.round(poll.beyondPolls)} ${cb ? 'polling, ' : ''}plus one per poll`
      : '',
  ].filter(Boolean);
  return `**Cost:** ${parts.join(' (')}${parts.length > 1 ? ')' : ''}, measured by \`npm run bench\` on ${date} ([BENCHMARKS.md](BENCHMARKS.md)).`;
}

/** The README with the line between the markers replaced; unchanged when the markers are missing. */
export function withCostLine(readme: string, line: string): string {
  const start = readme.indexOf(COST_START);
  const end = readme.indexOf(COST_END);
  if (start < 0 || end < start) return readme;
  return `${readme.slice(0, start + COST_START.length)}${line}${readme.slice(end)}`;
}

/** What the README holds between the markers (undefined without them). */
export function readmeCostLine(readme: string): string | undefined {
  const start = readme.indexOf(COST_START);
  const end = readme.indexOf(COST_END);
  return start < 0 || end < start ? undefined : readme.slice(start + COST_START.length, end);
}
