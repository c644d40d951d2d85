// The messages a quota key's AdmissionGate received, from its history: what the runs told it (releases
// with their creates' answer times, late-create reports), decoded with the SDK's default converter.
import { defaultPayloadConverter } from '@temporalio/common';
import { admissionGateId } from '../../src/contract/index.js';
import { testClient } from './temporal.js';

export interface GateSignal {
  name: string;
  input: Record<string, unknown>;
}

/** Every signal the gate of `key` received in its current run, in order. */
export async function gateSignals(key: string): Promise<GateSignal[]> {
  const client = await testClient();
  const history = await client.workflow.getHandle(admissionGateId(key)).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const a = e.workflowExecutionSignaledEventAttributes;
    if (!a?.signalName) return [];
    const payload = a.input?.payloads?.[0];
    const input = payload ? (defaultPayloadConverter.fromPayload(payload) as Record<string, unknown>) : {};
    return [{ name: a.signalName, input }];
  });
}
