// rtgCheckJobNeeds: the worker's side of src/contract/job-needs.ts. Each need names the worker setting
// that satisfies it; the answer lists every need this worker lacks, so one refusal names them all, and
// tells a job with `notify` where its notifications go.
import type { AdmissionSettings } from '../config/admission.js';
import type { NotifySettings } from '../config/notify.js';
import { NEED_FIELDS, type JobNeeds, type JobNeedsActivities, type JobNeedsAnswer } from '../contract/job-needs.js';
import type { ValidationIssue } from '../model/validation.js';
import type { VideoStore } from '../store/types.js';
import { unchargeableLength } from './admission-limits.js';
import { notifyTarget } from './notify.js';

export interface JobNeedsDependencies {
  store?: VideoStore | undefined;
  admission?: AdmissionSettings | undefined;
  notify?: NotifySettings | undefined;
}

/** The worker setting each setting-backed need takes, and whether this worker has it. */
const SETTINGS = {
  store: { setting: 'VIDEO_STORE', has: (deps: JobNeedsDependencies) => deps.store !== undefined },
};

export function missingSettings(needs: JobNeeds, deps: JobNeedsDependencies): ValidationIssue[] {
  const problems: ValidationIssue[] = [];
  const noStore = `and this worker has none (refused before any call to the services)`;
  if (needs.store && !SETTINGS.store.has(deps))
    problems.push({ field: NEED_FIELDS.store, rule: `needs ${SETTINGS.store.setting} on the worker, ${noStore}` });
  if (needs.keptResult && !SETTINGS.store.has(deps))
    problems.push({
      field: NEED_FIELDS.keptResult,
      rule:
        `${needs.keptResult.entryPoint}: its result has no public URL (served only to the API key), so it is ` +
        `kept in ${SETTINGS.store.setting} on the worker, ${noStore}`,
    });
  // The create's own rule (admission-limits.ts), asked with a body that says no length, as the job's.
  const unsaid = needs.unsaidLength;
  const length =
    unsaid && unchargeableLength(deps.admission?.video, unsaid.tenant, { kind: 'native', body: {}, field: 'task' });
  if (length) problems.push(length);
  return problems;
}

export function createJobNeedsActivities(deps: JobNeedsDependencies): JobNeedsActivities {
  return {
    async rtgCheckJobNeeds(needs: JobNeeds): Promise<JobNeedsAnswer> {
      const problems = missingSettings(needs, deps);
      const notify = needs.notify && notifyTarget(needs.notify, deps.notify);
      if (notify && !notify.ok) problems.push(notify.problem);
      if (problems.length > 0) return { ok: false, problems };
      return notify?.ok ? { ok: true, notify: notify.target } : { ok: true };
    },
  };
}
