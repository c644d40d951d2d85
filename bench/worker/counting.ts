// Counts the activities executing right now, to show what waiting jobs hold: a job waiting for a review or
// a video between polls (or for a callback) runs no activity, so it holds no activity slot.
export interface RunningGauge {
  running: number;
  /** Highest `running` seen since the last reset. */
  peak: number;
  started: number;
}

export function newGauge(): RunningGauge {
  return { running: 0, peak: 0, started: 0 };
}

type AnyActivity = (...args: never[]) => Promise<unknown>;

export function countRunning<T extends Record<string, AnyActivity>>(activities: T, gauge: RunningGauge): T {
  const wrapped: Record<string, AnyActivity> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      gauge.running++;
      gauge.started++;
      if (gauge.running > gauge.peak) gauge.peak = gauge.running;
      try {
        return await fn(...args);
      } finally {
        gauge.running--;
      }
    };
  }
  return wrapped as T;
}
