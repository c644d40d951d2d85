// CPU time of other processes (the Temporal dev server) from /proc, so a run can report what each job
// cost the server. Linux only; elsewhere the figures are reported as unavailable.
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** User+system CPU seconds used so far by a process, or undefined when /proc cannot tell. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command: state(0) ... utime(11) stime(12)
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** The pid of the `temporal server start-dev` listening on this port, found by its command line. */
export function findDevServerPid(port: number): number | undefined {
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let cmd: string;
      try {
        cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      } catch {
        continue;
      }
      if (cmd.includes('start-dev') && cmd.includes(`--port ${port} `)) return Number(entry);
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export function loadAverage(): [number, number, number] {
  const [a = 0, b = 0, c = 0] = loadavg();
  return [Number(a.toFixed(2)), Number(b.toFixed(2)), Number(c.toFixed(2))];
}
