"""A Python service starting and reading ReviewThenGenerate jobs with Temporal's Python SDK.

Shown in docs/starting-jobs.md and run by test/python/caller.test.ts against the dev server, encryption
off and on. Plain JSON in and out: the shapes are in the package's schemas/*.schema.json.

    python caller.py '<job input JSON>' --key <business key> [--cancel-at-stage generating]

Environment: TEMPORAL_ADDRESS (default `localhost:7233`), TEMPORAL_NAMESPACE (default `default`),
TEMPORAL_TASK_QUEUE (default `video-generation`: the package's defaults, so that with nothing set it meets the
package's worker with nothing set), and PAYLOAD_ENCRYPTION_KEYS (`id:base64key,...`, the worker's keys)
when the worker encrypts payloads. Prints one JSON object: the outcome, the stages the progress query showed, and
the result, the failure (type, message, details) or the cancellation.
"""

import argparse
import asyncio
import base64
import dataclasses
import json
import os
from typing import Any, Optional, Sequence

import temporalio.converter
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from temporalio.api.common.v1 import Payload
from temporalio.client import Client, WorkflowFailureError
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import ApplicationError, CancelledError


class EncryptionCodec(temporalio.converter.PayloadCodec):
    """The package's payload codec (src/codec/encryption-codec.ts): AES-256-GCM over the whole Payload
    (protobuf bytes); data = 12-byte nonce + ciphertext + 16-byte tag; metadata encoding=binary/encrypted
    and encryption-key-id=<id>. The first key encrypts, every key decrypts."""

    def __init__(self, keys: str) -> None:
        self.keys = {}
        for entry in filter(None, (e.strip() for e in keys.replace("\n", ",").split(","))):
            key_id, material = entry.split(":", 1)
            # Standard or URL-safe base64, padding optional (as the package reads them).
            material = material.strip().replace("-", "+").replace("_", "/")
            self.keys[key_id.strip()] = base64.b64decode(material + "=" * (-len(material) % 4))
        self.encrypting_key_id = next(iter(self.keys))

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        out = []
        for p in payloads:
            nonce = os.urandom(12)
            sealed = AESGCM(self.keys[self.encrypting_key_id]).encrypt(nonce, p.SerializeToString(), None)
            metadata = {"encoding": b"binary/encrypted", "encryption-key-id": self.encrypting_key_id.encode()}
            out.append(Payload(metadata=metadata, data=nonce + sealed))
        return out

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        out = []
        for p in payloads:
            if p.metadata.get("encoding", b"") != b"binary/encrypted":
                out.append(p)  # not encrypted (e.g. a run started before encryption was on)
                continue
            key = self.keys[p.metadata["encryption-key-id"].decode()]
            out.append(Payload.FromString(AESGCM(key).decrypt(p.data[:12], p.data[12:], None)))
        return out


def data_converter() -> temporalio.converter.DataConverter:
    keys = os.environ.get("PAYLOAD_ENCRYPTION_KEYS")
    if not keys:
        return temporalio.converter.default()
    return dataclasses.replace(
        temporalio.converter.default(),
        payload_codec=EncryptionCodec(keys),
        # The worker encrypts failure messages too (encodeCommonAttributes): read them the same way.
        failure_converter_class=temporalio.converter.DefaultFailureConverterWithEncodedAttributes,
    )


async def run(job: dict[str, Any], key: str, cancel_at_stage: Optional[str]) -> dict[str, Any]:
    client = await Client.connect(
        os.environ.get("TEMPORAL_ADDRESS", "localhost:7233"),
        namespace=os.environ.get("TEMPORAL_NAMESPACE", "default"),
        data_converter=data_converter(),
    )
    # By name, with plain JSON. The business key is the workflow id, and a key runs once: a repeated
    # start (the run still running or closed) raises WorkflowAlreadyStartedError, starting no other job.
    handle = await client.start_workflow(
        "ReviewThenGenerate",
        job,
        id=key,
        task_queue=os.environ.get("TEMPORAL_TASK_QUEUE", "video-generation"),
        id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
    )
    stages: list[str] = []
    progress: dict[str, Any] = {}
    result_task = asyncio.ensure_future(handle.result())
    while not result_task.done():
        try:
            progress = await handle.query("progress")
        except Exception:
            if result_task.done():
                break  # the run closed between two queries
            raise
        if not stages or stages[-1] != progress["stage"]:
            stages.append(progress["stage"])
        if cancel_at_stage and progress["stage"] == cancel_at_stage:
            await handle.cancel()
            cancel_at_stage = None
        await asyncio.wait([result_task], timeout=0.2)
    out: dict[str, Any] = {"workflowId": handle.id, "stages": stages, "lastProgress": progress}
    try:
        out.update(outcome="succeeded", result=await result_task)
    except WorkflowFailureError as err:
        if isinstance(err.cause, ApplicationError):
            # The failure type is the contract (FailureType); details[0] is described by
            # schemas/failure-details/<type>.schema.json.
            out.update(
                outcome="failed",
                failure={"type": err.cause.type, "message": err.cause.message, "details": list(err.cause.details)},
            )
        elif isinstance(err.cause, CancelledError):
            out.update(outcome="cancelled")
        else:
            raise
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="Start a ReviewThenGenerate job and read its outcome.")
    parser.add_argument("input", help="the job input, as JSON")
    parser.add_argument("--key", required=True, help="the business key (workflow id)")
    parser.add_argument("--cancel-at-stage", help="cancel the job when its progress shows this stage")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(json.loads(args.input), args.key, args.cancel_at_stage))), flush=True)
    # A short-lived client-only process can abort while Python finalizes, when the SDK's Rust threads
    # outlive the interpreter (https://github.com/temporalio/sdk-python/issues/300): the work is done and
    # printed, so skip the teardown.
    os._exit(0)


if __name__ == "__main__":
    main()
