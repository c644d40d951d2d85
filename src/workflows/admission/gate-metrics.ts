// What a gate reports through the SDK's workflow metric meter (emitted by the worker's Runtime exporter,
// never during replay, no history event): its capacities, the slots held and the requests waiting by
// priority, per quota key (bounded: one per provider account). Waiting by tenant is not a label (tenant
// ids are unbounded): `review-video quota` shows it from the gate's `gateState` query.
import { metricMeter } from '@temporalio/workflow';
import type { GateStateView } from '../../contract/admission.js';
import { onFirstUse } from '../metric-meters.js';

export const GATE_METRIC_NAMES = {
  capacity: 'rtg_admission_capacity',
  inFlight: 'rtg_admission_in_flight',
  waiting: 'rtg_admission_waiting',
} as const;

const gateGauges = onFirstUse(() => ({
  capacity: metricMeter.createGauge(
    GATE_METRIC_NAMES.capacity,
    'int',
    '',
    'Slots of a provider quota: configured, and effective (lower after a 429 until tasks end)',
  ),
  inFlight: metricMeter.createGauge(GATE_METRIC_NAMES.inFlight, 'int', '', 'Slots of a provider quota held'),
  waiting: metricMeter.createGauge(GATE_METRIC_NAMES.waiting, 'int', '', 'Jobs waiting for a slot, by priority'),
}));

/** Sets the gate's gauges from its state (after each round of grants). */
export function reportGate(view: GateStateView): void {
  const gauges = gateGauges();
  const key = { quota_key: view.key };
  gauges.capacity.set(view.capacity, { ...key, kind: 'configured' });
  gauges.capacity.set(view.effectiveCapacity, { ...key, kind: 'effective' });
  gauges.inFlight.set(view.inFlight, key);
  for (let priority = 1; priority <= 5; priority++) {
    const waiting = Object.values(view.waitingBy[String(priority)] ?? {}).reduce((a, b) => a + b, 0);
    gauges.waiting.set(waiting, { ...key, priority: String(priority) });
  }
}
