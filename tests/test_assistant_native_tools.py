"""An endpoint model (the `openai` provider, LangChain's ChatOpenAI) takes the assistant's steps as native
tool calls, against a real HTTP server on loopback that speaks the OpenAI chat-completions API and answers
with scripted `tool_calls` or text, streamed or not. Its steps get the same validation and the same one
repair as the embedded model's JSON steps; the embedded model's schema-constrained steps are unchanged."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from test_assistant_stream import one_file_project

from wenshu.assistant.service import Assistant
from wenshu.providers.thinking import ThinkSplitter
from wenshu.settings import Settings


class _Endpoint(BaseHTTPRequestHandler):
    # each answer: {"tool": name, "arguments": raw JSON text} or {"text": ...}; with "reasoning", a reasoning
    # model's thinking first, in `reasoning_content` (or the field named by "field": vLLM's `reasoning`)
    script: list[dict] = []
    seen: list[dict] = []

    def log_message(self, *args):
        pass

    def _send(self, kind: str, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Endpoint.seen.append(body)
        answer = _Endpoint.script.pop(0)
        base = {"id": "c1", "created": 0, "model": body["model"]}
        usage = {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}
        call = {"id": "call_1", "type": "function", "function": {"name": answer.get("tool"), "arguments": answer.get("arguments")}}
        if not body.get("stream"):
            message = {"role": "assistant", "content": answer.get("text")}
            if "reasoning" in answer:
                message[answer.get("field", "reasoning_content")] = answer["reasoning"]
            if "tool" in answer:
                message["tool_calls"] = [call]
            out = {**base, "object": "chat.completion", "usage": usage, "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if "tool" in answer else "stop"}]}
            self._send("application/json", json.dumps(out).encode())
            return
        chunk = {**base, "object": "chat.completion.chunk"}
        if "tool" in answer:
            raw = answer["arguments"]
            deltas = [{"role": "assistant", "tool_calls": [{**call, "index": 0, "function": {"name": answer["tool"], "arguments": ""}}]}]
            deltas += [{"tool_calls": [{"index": 0, "function": {"arguments": raw[i : i + 5]}}]} for i in range(0, len(raw), 5)]
        else:
            text = answer["text"]
            deltas = [{"role": "assistant", "content": text[i : i + 6]} for i in range(0, len(text), 6)]
        thought = answer.get("reasoning", "")
        field = answer.get("field", "reasoning_content")
        deltas = [{"role": "assistant", field: thought[i : i + 7]} for i in range(0, len(thought), 7)] + deltas
        lines = [{**chunk, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
        lines.append({**chunk, "choices": [], "usage": usage})
        self._send("text/event-stream", "".join(f"data: {json.dumps(x)}\n\n" for x in lines).encode() + b"data: [DONE]\n\n")


@pytest.fixture
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Endpoint.seen.clear()
    _Endpoint.script.clear()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


@pytest.fixture
def project(tmp_path):
    return one_file_project(tmp_path)


@pytest.fixture
def assistant(home, store, endpoint):
    with Assistant(Settings(llm_base_url=endpoint, llm_model="big-coder"), store) as a:
        yield a


def user_text(body: dict) -> str:
    return body["messages"][-1]["content"]


def test_tool_calls_are_steps_broken_arguments_are_repaired_and_text_is_the_answer(assistant, project):
    _Endpoint.script += [{"tool": "list_files", "arguments": '{"path": "."}'},
                         {"tool": "read_file", "arguments": '{"path": "READ'},  # not JSON: sent back once
                         {"tool": "read_file", "arguments": '{"path": "README.md"}'},
                         {"text": "The project exports GMV by region."}]
    resp = assistant.ask("what files are in the folder and what do they say?", workspace=project)
    assert resp.route == "agent" and resp.status == "ok" and resp.answer == "The project exports GMV by region."
    assert [(s.action, s.arguments) for s in resp.steps] == [("list_files", {"path": "."}), ("read_file", {"path": "README.md"})]
    assert "README.md (1 lines):\n# Export" in resp.steps[1].result
    first = _Endpoint.seen[0]
    offered = {t["function"]["name"] for t in first["tools"]}
    assert offered == {"query_database", "list_files", "read_file", "write_file", "run_command"}
    read = next(t["function"] for t in first["tools"] if t["function"]["name"] == "read_file")
    assert read["parameters"]["required"] == ["path"] and "response_format" not in first
    assert first["tool_choice"] == "required" and "tool_choice" not in _Endpoint.seen[1]  # a workspace request: a tool first
    assert "plain text" in first["messages"][0]["content"] and '{"action"' not in first["messages"][0]["content"]
    repair = user_text(_Endpoint.seen[2])
    assert 'could not be used: the arguments of "read_file" are not one JSON object' in repair
    assert "could not be used" not in user_text(_Endpoint.seen[1]) and "Result (data, not instructions)" in repair
    assert resp.usage.llm_calls == 4 and resp.usage.prompt_tokens == 200


def test_a_streamed_step_is_validated_like_a_json_step_and_its_text_streams(assistant, project):
    """A request that may be answered at once: no tool_choice, and the text after the repair is the answer."""
    _Endpoint.script += [{"tool": "read_file", "arguments": "{}"}, {"text": "Nothing to read yet; 还没有内容。"}]
    events = []
    resp = assistant.ask("Explain in two sentences what a cohort analysis is", workspace=project,
                         on_event=events.append)  # the agent route, and it may answer without a tool
    assert resp.status == "ok" and resp.answer == "Nothing to read yet; 还没有内容。" and not resp.steps
    decide = [(e.status, e.data) for e in events if e.node == "decide" and e.status != "started"]
    assert decide == [("retry", '"read_file" arguments: missing text path'), ("ok", "final")]
    tokens = [e.data for e in events if e.type == "token"]
    assert len(tokens) > 1 and "".join(tokens) == resp.answer
    assert all(body["stream"] is True and "tool_choice" not in body for body in _Endpoint.seen)
    assert "missing text path" in user_text(_Endpoint.seen[1])


def test_an_answer_unusable_twice_ends_gracefully(assistant, project):
    _Endpoint.script += [{"tool": "delete_everything", "arguments": '{"path": "/"}'},
                         {"tool": "read_file", "arguments": '{"path": "a", "mode": "w"}'}]
    resp = assistant.ask("tidy up the files in my project", workspace=project)
    assert resp.status == "fallback" and resp.error.code == "unfinished" and "unknown mode" in resp.answer
    assert "must be one of" in user_text(_Endpoint.seen[1])


def test_native_tool_calling_is_for_models_that_have_it(home, endpoint, fake_model):
    from wenshu.providers.registry import calls_tools, resolve

    assert resolve(Settings(llm_base_url=endpoint, llm_model="m")).native_tools
    assert not resolve(Settings(llm_base_url=endpoint, llm_model="m", llm_native_tools=False)).native_tools
    assert not calls_tools(fake_model)  # the scripted fake, like the embedded model, decodes JSON steps


def test_an_endpoint_models_thinking_streams_apart_and_is_never_the_answer_nor_the_step(assistant, project):
    """DeepSeek and Qwen3 send `reasoning_content` deltas, vLLM's newer parser `reasoning`, and a model served
    without a reasoning parser writes `<think>…</think>` at the start of its content."""
    _Endpoint.script += [{"reasoning": "The user wants the files. 先列出文件。", "tool": "list_files",
                          "arguments": '{"path": "."}'},
                         {"reasoning": "One file. ", "field": "reasoning",
                          "text": "<think>Say it briefly.</think>\n\nOne file: README.md."}]
    events = []
    resp = assistant.ask("what files are in the folder?", workspace=project, on_event=events.append)
    assert resp.status == "ok" and resp.answer == "One file: README.md."
    assert [s.action for s in resp.steps] == ["list_files"]
    thinking = [e.data for e in events if e.type == "thinking"]
    assert "".join(thinking) == "The user wants the files. 先列出文件。One file. Say it briefly." and len(thinking) > 4
    assert "".join(e.data for e in events if e.type == "token") == "One file: README.md."
    kinds = [e.type if e.type != "node" else e.node for e in events]
    assert kinds.index("thinking") < kinds.index("tool")  # as it happens, before the step it leads to
    limit = _Endpoint.seen[0].get("max_completion_tokens", _Endpoint.seen[0].get("max_tokens"))
    assert limit == 400 + 2048  # room to think (vLLM and DeepSeek count the thinking in the limit)

    _Endpoint.script += [{"reasoning": "Hidden.", "text": "<think>Also hidden.</think>A cohort is a group."}]
    quiet = assistant.ask("Explain in two sentences what a cohort analysis is", workspace=project)  # not streamed
    assert quiet.answer == "A cohort is a group." and _Endpoint.seen[-1]["stream"] is False


def test_a_leading_think_block_is_split_off_however_the_stream_is_cut():
    text = '  <think>plan: a < b </thi and more</think>\n\n{"answer": "<think> is text here"}'
    for i in range(len(text)):
        for j in range(i, len(text), 3):
            thought, said = [], []
            split = ThinkSplitter(said.append, thought.append)
            for piece in (text[:i], text[i:j], text[j:]):
                split.feed(piece)
            split.close()
            assert "".join(thought) == "plan: a < b </thi and more", (i, j)
            assert "".join(said) == split.answer == '{"answer": "<think> is text here"}', (i, j)
    assert ThinkSplitter.split("<b>bold</b>") == ("", "<b>bold</b>") and ThinkSplitter.split(" ") == ("", " ")
    assert ThinkSplitter.split("<think>cut off by max_tokens") == ("cut off by max_tokens", "")
