// What the figures were measured on: they mean little without the machine, the versions, and how
// busy the machine was (the load average at the start and at the end of the run).
import { cpus, platform, release, totalmem } from 'node:os';
import { createRequire } from 'node:module';
import { loadAverage } from './proc.js';

const require = createRequire(import.meta.url);

function packageVersion(name: string): string {
  try {
    return (require(`${name}/package.json`) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export interface MachineInfo {
  cores: number;
  cpuModel: string;
  memoryBytes: number;
  platform: string;
  kernel: string;
  node: string;
  temporalCli: string;
  temporalSdk: string;
  undici: string;
  loadAverageAtStart: [number, number, number];
  loadAverageAtEnd?: [number, number, number];
  /** Other processes shared the cores (1-minute load average above 3/4 of the core count when the run started). */
  shared?: boolean;
}

export function describeMachine(temporalCli: string): MachineInfo {
  const c = cpus();
  return {
    cores: c.length,
    cpuModel: c[0]?.model.trim() ?? 'unknown',
    memoryBytes: totalmem(),
    platform: platform(),
    kernel: release(),
    node: process.version,
    temporalCli,
    temporalSdk: packageVersion('@temporalio/worker'),
    undici: packageVersion('undici'),
    loadAverageAtStart: loadAverage(),
  };
}
