"""The official Python SDKs as clients of the sandbox (test/python/sdks.test.ts runs this).

Each call goes through the SDK's own request building and parsing; what it read is printed as one JSON
line per call, {"call", "ok", "detail"} or {"call", "ok": false, "error"}, for the test to check. The
spec's bearer key replaces each family's own auth header, and its native task paths replace the Ark
SDK's (a transport maps them; the bodies are the SDK's own). Env: SANDBOX_URL, SANDBOX_KEY.
"""

import base64
import json
import os
import sys
import time
import traceback

import anthropic
import httpx
import openai
from google import genai
from google.genai import types as genai_types
from volcenginesdkarkruntime import Ark

BASE = os.environ["SANDBOX_URL"]
KEY = os.environ["SANDBOX_KEY"]
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)

oa = openai.OpenAI(api_key=KEY, base_url=f"{BASE}/v1", max_retries=0)
an = anthropic.Anthropic(auth_token=KEY, api_key=None, base_url=BASE, max_retries=0)
# google-genai wants an api key and sends it as x-goog-api-key; the service reads only the bearer header.
gg = genai.Client(
    api_key="not-used-the-spec-wants-bearer",
    http_options=genai_types.HttpOptions(base_url=BASE, api_version="v1beta", headers={"Authorization": f"Bearer {KEY}"}),
)


def fault(rule):
    """Arms a sandbox fault through its inspection API."""
    httpx.post(f"{BASE}/__sandbox/faults", json=rule).raise_for_status()


def fetch(url):
    r = httpx.get(url)
    return {"status": r.status_code, "type": r.headers.get("content-type"), "bytes": len(r.content)}


CALLS = []


def call(fn):
    CALLS.append(fn)
    return fn


@call
def openai_chat():
    c = oa.chat.completions.create(model="gpt-x", messages=[{"role": "user", "content": "hi python"}])
    ch = c.choices[0]
    return {"text": ch.message.content, "refusal": ch.message.refusal, "reasoning_tokens": c.usage.completion_tokens_details.reasoning_tokens}


@call
def openai_chat_stream():
    chunks = list(oa.chat.completions.create(model="gpt-x", messages=[{"role": "user", "content": "stream python"}], stream=True))
    return {
        "chunks": len(chunks),
        "text": "".join((c.choices[0].delta.content or "") for c in chunks if c.choices),
        "finish": chunks[-1].choices[0].finish_reason,
    }


@call
def openai_responses():
    r = oa.responses.create(model="gpt-x", input="responses python")
    return {"status": r.status, "text": r.output_text, "error": r.error}


@call
def openai_responses_stream():
    types, text = [], ""
    with oa.responses.stream(model="gpt-x", input="responses stream python") as stream:
        for ev in stream:
            types.append(ev.type)
            if ev.type == "response.output_text.delta":
                text += ev.delta
        final = stream.get_final_response()
    return {"first": types[0], "last": types[-1], "text": text, "final_status": final.status}


@call
def openai_images_generate():
    r = oa.images.generate(model="gpt-image-1", prompt="a kite")
    return {"file": fetch(r.data[0].url)}


@call
def openai_images_edit():
    r = oa.images.edit(model="gpt-image-1", prompt="merge them", image=[("a.png", PNG, "image/png"), ("b.png", PNG, "image/png")])
    return {"file": fetch(r.data[0].url)}


@call
def openai_videos():
    v = oa.videos.create(model="sora-2", prompt="a red kite", input_reference=("ref.png", PNG, "image/png"))
    created = {"expires_at": v.expires_at, "error": v.error}
    for _ in range(100):
        if v.status == "completed":
            break
        time.sleep(0.05)
        v = oa.videos.retrieve(v.id)
    content = oa.videos.download_content(v.id)
    return {"created": created, "status": v.status, "bytes": len(content.read()), "type": content.response.headers.get("content-type")}


@call
def anthropic_messages():
    m = an.messages.create(model="claude-x", max_tokens=64, messages=[{"role": "user", "content": "bonjour python"}])
    return {"text": m.content[0].text, "stop_reason": m.stop_reason}


@call
def anthropic_messages_stream():
    events = []
    with an.messages.stream(model="claude-x", max_tokens=64, messages=[{"role": "user", "content": "stream bonjour"}]) as stream:
        for ev in stream:
            events.append(ev.type)
        final = stream.get_final_message()
    return {"first": events[0], "last": events[-1], "text": final.content[0].text, "stop_reason": final.stop_reason}


@call
def genai_generate_content():
    r = gg.models.generate_content(model="gemini-2.5-flash", contents="guten tag python")
    return {"text": r.text}


@call
def genai_generate_content_stream():
    texts = [c.text or "" for c in gg.models.generate_content_stream(model="gemini-2.5-flash", contents="stream guten tag")]
    return {"chunks": len(texts), "text": "".join(texts)}


class NativePaths(httpx.HTTPTransport):
    """The spec's native task paths for the Ark SDK's own (the request body is left as the SDK built it)."""

    def handle_request(self, request):
        path = request.url.path
        if request.method == "POST" and path.endswith("/contents/generations/tasks"):
            request.url = request.url.copy_with(path="/v1/task/create")
        elif request.method == "GET" and "/contents/generations/tasks/" in path:
            request.url = request.url.copy_with(path="/v1/task/get/" + path.rsplit("/", 1)[1])
        return super().handle_request(request)


@call
def ark_tasks():
    ark = Ark(base_url=BASE, api_key=KEY, http_client=httpx.Client(transport=NativePaths()), max_retries=0)
    created = ark.content_generation.tasks.create(model="seedance-1", content=[{"type": "text", "text": "a kite from ark"}])
    task = ark.content_generation.tasks.get(task_id=created.id)
    for _ in range(100):
        if task.status in ("succeeded", "failed", "expired", "cancelled"):
            break
        time.sleep(0.05)
        task = ark.content_generation.tasks.get(task_id=created.id)
    return {"id": created.id, "status": task.status, "video_url": task.content.video_url if task.content else None}


def raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the test reads which class the SDK raised
        return {"raised": type(e).__name__, "status": getattr(e, "status_code", getattr(e, "code", None)), "body": getattr(e, "body", None) if not isinstance(getattr(e, "body", None), bytes) else None}
    return {"raised": None}


@call
def openai_chat_stream_error():
    fault({"operation": "other", "match": {"model": "gpt-cut"}, "fault": {"type": "streamError", "afterEvents": 2}})
    seen = []
    out = raised(lambda: [seen.append(c) for c in oa.chat.completions.create(model="gpt-cut", messages=[{"role": "user", "content": "cut"}], stream=True)])
    return {**out, "chunks": len(seen)}


@call
def anthropic_stream_error():
    fault({"operation": "other", "match": {"model": "claude-cut"}, "fault": {"type": "streamError", "afterEvents": 2, "status": 529}})

    def consume():
        with an.messages.stream(model="claude-cut", max_tokens=64, messages=[{"role": "user", "content": "cut"}]) as s:
            s.get_final_message()

    return raised(consume)


@call
def genai_stream_error():
    fault({"operation": "other", "match": {"url": "gemini-cut"}, "fault": {"type": "streamError", "afterEvents": 2, "status": 503}})
    seen = []
    out = raised(lambda: [seen.append(c) for c in gg.models.generate_content_stream(model="gemini-2.5-flash", contents="gemini-cut")])
    return {**out, "chunks": len(seen)}


def main():
    names = set(sys.argv[1:])
    for fn in CALLS:
        if names and fn.__name__ not in names:
            continue
        try:
            line = {"call": fn.__name__, "ok": True, "detail": fn()}
        except Exception:  # noqa: BLE001 - reported to the test, which fails on it
            line = {"call": fn.__name__, "ok": False, "error": traceback.format_exc(limit=3)}
        print(json.dumps(line, default=str), flush=True)


if __name__ == "__main__":
    main()
