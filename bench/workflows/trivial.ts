// The yardstick: the smallest real workflow (one activity that returns at once). Its rate on this server
// and machine is the ceiling our workflow's rate is compared with.
import { proxyActivities } from '@temporalio/workflow';

export interface TrivialActivities {
  benchNoop(n: number): Promise<number>;
}

const { benchNoop } = proxyActivities<TrivialActivities>({ startToCloseTimeout: '60s' });

export async function BenchTrivial(n: number): Promise<number> {
  return await benchNoop(n);
}
