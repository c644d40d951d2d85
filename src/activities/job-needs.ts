// rtgCheckJobNeeds: the worker's side of src/contract/job-needs.ts. Each need names the worker setting
// that satisfies it; the answer lists every need this worker lacks, so one refusal names them all.
import type { JobNeeds, JobNeedsActivities, JobNeedsAnswer } from '../contract/job-needs.js';
import type { ValidationIssue } from '../model/validation.js';
import type { VideoStore } from '../store/types.js';

export interface JobNeedsDependencies {
  store?: VideoStore | undefined;
}

/** For each need: the worker setting it takes, and whether this worker has it. */
const SETTINGS: { [N in keyof Required<JobNeeds>]: { setting: string; has(deps: JobNeedsDependencies): boolean } } = {
  store: { setting: 'VIDEO_STORE', has: (deps) => deps.store !== undefined },
};

export function missingSettings(needs: JobNeeds, deps: JobNeedsDependencies): ValidationIssue[] {
  return (Object.keys(SETTINGS) as Array<keyof JobNeeds>)
    .filter((need) => needs[need] && !SETTINGS[need].has(deps))
    .map((need) => ({
      field: need,
      rule: `needs ${SETTINGS[need].setting} on the worker, and this worker has none (refused before any call to the services)`,
    }));
}

export function createJobNeedsActivities(deps: JobNeedsDependencies): JobNeedsActivities {
  return {
    async rtgCheckJobNeeds(needs: JobNeeds): Promise<JobNeedsAnswer> {
      const problems = missingSettings(needs, deps);
      return problems.length === 0 ? { ok: true } : { ok: false, problems };
    },
  };
}
