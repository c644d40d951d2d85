// The ApplicationFailure a workflow run or an activity ended with, for tests that assert a failure type and its details.
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { expect } from 'vitest';

export async function failureOf(handle: { result(): Promise<unknown> }): Promise<ApplicationFailure> {
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

/** The ApplicationFailure an activity threw (run in MockActivityEnvironment). */
export async function activityFailure(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}
