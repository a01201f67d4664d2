"""Every input shape of both OpenAI APIs, sent to both, end to end.

Each shape runs through `Runner.run` with the real `openai` client against the
scripted server, once per API, and the test checks the request body the server
received: the shape carried as it is, converted from the other API's form, or
refused with a `UserError` before any request.
"""

from __future__ import annotations

import copy
import re
import typing
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from inline_snapshot import snapshot
from openai.types.chat import ChatCompletionMessage
from openai.types.responses import ResponseOutputMessage, ResponseOutputText
from openai.types.responses.response_input_item_param import ResponseInputItemParam

from tooluse import Agent, Runner, TResponseInputItem, UserError, function_tool
from tooluse.models import (
    Model,
    ModelRequest,
    ModelResponse,
    ResponseDone,
    StreamEvent,
    items_to_messages,
)
from tooluse.models._responses_input import responses_input

from .openai_server import Call, ScriptedServer, Turn

Items = list[TResponseInputItem]

HI = {"role": "user", "content": "hi"}
IMAGE_URL = "https://example.com/cat.png"
PDF = "data:application/pdf;base64,JVBERi0="


@dataclass
class Shape:
    """An input, and what each API's request carries for it (a str: the error, as a regex)."""

    name: str
    input: list[Any]
    responses: Items | str
    chat: Items | str


def same(name: str, items: Items) -> Shape:
    """A shape both APIs carry as it is."""
    return Shape(name, items, items, items)


def function_call(call_id: str = "call_1") -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "get_time", "arguments": "{}"}


def chat_call(call_id: str = "call_1") -> dict[str, Any]:
    function = {"name": "get_time", "arguments": "{}"}
    return {"id": call_id, "type": "function", "function": function}


def output_text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


RESPONSES_FORMS = [
    same("easy user message", [HI]),
    Shape(
        "easy message with its type", [{"type": "message", **HI}], [{"type": "message", **HI}], [HI]
    ),
    Shape(
        "user content parts",
        parts_input := [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "look"},
                    {"type": "input_image", "image_url": IMAGE_URL, "detail": "low"},
                    {"type": "input_file", "file_id": "file-1"},
                    {"type": "input_file", "file_data": PDF, "filename": "a.pdf"},
                ],
            }
        ],
        parts_input,
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "look"},
                    {"type": "image_url", "image_url": {"url": IMAGE_URL, "detail": "low"}},
                    {"type": "file", "file": {"file_id": "file-1"}},
                    {"type": "file", "file": {"file_data": PDF, "filename": "a.pdf"}},
                ],
            }
        ],
    ),
    Shape(
        "image by file id",
        by_id := [
            {
                "role": "user",
                "content": [{"type": "input_image", "file_id": "file-1", "detail": "auto"}],
            }
        ],
        by_id,
        r"input\[0\]\.content\[0\] \(a 'input_image' part\) cannot be sent to the Chat "
        r"Completions API: Chat Completions takes images by URL or data URL, not by file id\. "
        r"Give 'image_url'",
    ),
    Shape(
        "file by URL",
        by_url := [
            {
                "role": "user",
                "content": [{"type": "input_file", "file_url": "https://example.com/a.pdf"}],
            }
        ],
        by_url,
        r"input\[0\]\.content\[0\] \(a 'input_file' part\).*no 'file_url'",
    ),
    Shape(
        "system and developer messages",
        system := [
            {"role": "system", "content": "Be brief."},
            {"role": "developer", "content": [{"type": "input_text", "text": "Use metric."}]},
            HI,
        ],
        system,
        [
            {"role": "system", "content": "Be brief."},
            {"role": "developer", "content": [{"type": "text", "text": "Use metric."}]},
            HI,
        ],
    ),
    Shape(
        "image in a developer message",
        dev_image := [
            {
                "role": "developer",
                "content": [{"type": "input_image", "image_url": IMAGE_URL, "detail": "auto"}],
            }
        ],
        dev_image,
        r"input\[0\]\.content\[0\] \(a 'input_image' part\).*developer messages hold text parts "
        r"only\. Put images, files and audio in a user message",
    ),
    Shape(
        "input message with a status",
        status := [
            {
                "type": "message",
                "role": "user",
                "status": "completed",
                "content": [{"type": "input_text", "text": "hi"}],
            }
        ],
        status,
        [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    ),
    same(
        "easy assistant message",
        [HI, {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "again"}],
    ),
    Shape(
        "output message",
        output := [
            HI,
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "phase": "final_answer",
                "content": [output_text("Hel"), {**output_text("lo"), "logprobs": []}],
            },
        ],
        output,
        [HI, {"role": "assistant", "content": "Hello"}],
    ),
    Shape(
        "output message with a refusal",
        refused := [
            HI,
            {
                "type": "message",
                "role": "assistant",
                "content": [output_text("Sorry."), {"type": "refusal", "refusal": "No."}],
            },
        ],
        refused,
        [
            HI,
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Sorry."},
                    {"type": "refusal", "refusal": "No."},
                ],
            },
        ],
    ),
    Shape(
        "function call and its output",
        calls := [
            HI,
            {**function_call("call_1"), "id": "fc_1", "status": "completed"},
            function_call("call_2"),
            {"type": "function_call_output", "call_id": "call_1", "output": "noon"},
            {"type": "function_call_output", "call_id": "call_2", "output": "one"},
        ],
        calls,
        [
            HI,
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [chat_call("call_1"), chat_call("call_2")],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "noon"},
            {"role": "tool", "tool_call_id": "call_2", "content": "one"},
        ],
    ),
    Shape(
        "function output as parts",
        listed := [
            function_call(),
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": [{"type": "input_text", "text": "noon"}],
            },
        ],
        listed,
        [
            {"role": "assistant", "content": None, "tool_calls": [chat_call()]},
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": [{"type": "text", "text": "noon"}],
            },
        ],
    ),
    Shape(
        "function output with an image",
        pictured := [
            function_call(),
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": [{"type": "input_image", "image_url": IMAGE_URL}],
            },
        ],
        pictured,
        [  # a tool message holds text only: the image becomes a line saying what it is
            {"role": "assistant", "content": None, "tool_calls": [chat_call()]},
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": [{"type": "text", "text": f"[image: {IMAGE_URL}]"}],
            },
        ],
    ),
    Shape(
        "custom tool call and its output",
        custom := [
            {"type": "custom_tool_call", "call_id": "call_1", "name": "grep", "input": "TODO"},
            {"type": "custom_tool_call_output", "call_id": "call_1", "output": "3 lines"},
        ],
        custom,
        [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "custom", "custom": {"name": "grep", "input": "TODO"}}
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "3 lines"},
        ],
    ),
]

CHAT_FORMS = [
    Shape(
        "chat user content parts",
        chat_parts := [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "look"},
                    {"type": "image_url", "image_url": {"url": IMAGE_URL}},
                    {"type": "image_url", "image_url": {"url": IMAGE_URL, "detail": "high"}},
                    {"type": "file", "file": {"file_id": "file-1"}},
                    {"type": "file", "file": {"file_data": PDF, "filename": "a.pdf"}},
                ],
            }
        ],
        [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "look"},
                    {"type": "input_image", "image_url": IMAGE_URL, "detail": "auto"},
                    {"type": "input_image", "image_url": IMAGE_URL, "detail": "high"},
                    {"type": "input_file", "file_id": "file-1"},
                    {"type": "input_file", "file_data": PDF, "filename": "a.pdf"},
                ],
            }
        ],
        chat_parts,
    ),
    Shape(
        "chat audio part",
        audio := [
            {
                "role": "user",
                "content": [
                    {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}
                ],
            }
        ],
        r"input\[0\]\.content\[0\] \(a 'input_audio' part\) cannot be sent to the Responses "
        r"API: Responses messages take no audio parts\. Transcribe the audio to text, or run "
        r"this agent with OpenAIChatCompletionsModel",
        audio,
    ),
    Shape(
        "chat participant name",
        named := [{"role": "user", "name": "ann", "content": "hi"}],
        r"input\[0\] \(a 'user' message\).*its 'name' has no Responses form",
        named,
    ),
    Shape(
        "chat system message as parts",
        chat_system := [{"role": "system", "content": [{"type": "text", "text": "Be brief."}]}, HI],
        [{"role": "system", "content": [{"type": "input_text", "text": "Be brief."}]}, HI],
        chat_system,
    ),
    Shape(
        "chat assistant with tool calls",
        chat_calls := [
            HI,
            {"role": "assistant", "content": "Checking.", "tool_calls": [chat_call()]},
            {"role": "tool", "tool_call_id": "call_1", "content": "noon"},
        ],
        [
            HI,
            {"type": "message", "role": "assistant", "content": [output_text("Checking.")]},
            function_call(),
            {"type": "function_call_output", "call_id": "call_1", "output": "noon"},
        ],
        chat_calls,
    ),
    Shape(
        "chat assistant with tool calls only",
        only_calls := [
            {"role": "assistant", "content": None, "tool_calls": [chat_call("a"), chat_call("b")]},
            {"role": "tool", "tool_call_id": "a", "content": "noon"},
            {"role": "tool", "tool_call_id": "b", "content": "one"},
        ],
        [
            function_call("a"),
            function_call("b"),
            {"type": "function_call_output", "call_id": "a", "output": "noon"},
            {"type": "function_call_output", "call_id": "b", "output": "one"},
        ],
        only_calls,
    ),
    Shape(
        "chat assistant text and refusal parts",
        chat_refused := [
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Sorry."},
                    {"type": "refusal", "refusal": "No."},
                ],
            }
        ],
        [
            {
                "type": "message",
                "role": "assistant",
                "content": [output_text("Sorry."), {"type": "refusal", "refusal": "No."}],
            }
        ],
        chat_refused,
    ),
    Shape(
        "chat assistant refusal",
        refusal := [HI, {"role": "assistant", "content": None, "refusal": "No."}],
        [
            HI,
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "refusal", "refusal": "No."}],
            },
        ],
        refusal,
    ),
    Shape(
        "chat assistant audio",
        spoken := [HI, {"role": "assistant", "audio": {"id": "audio_1"}}],
        r"input\[1\] \(an 'assistant' message\).*its 'audio' has no Responses form",
        spoken,
    ),
    Shape(
        "chat deprecated function call",
        deprecated := [
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "get_time", "arguments": "{}"},
            },
            {"role": "function", "name": "get_time", "content": "noon"},
        ],
        r"input\[0\] \(an 'assistant' message\).*its 'function_call' has no Responses form\. "
        r"This deprecated form has no call id: write it as 'tool_calls'",
        deprecated,
    ),
    Shape(
        "chat function message",
        [{"role": "function", "name": "get_time", "content": "noon"}],
        r"input\[0\] \(a 'function' message\).*the deprecated 'function' role",
        [{"role": "function", "name": "get_time", "content": "noon"}],
    ),
    Shape(
        "chat tool message as parts",
        tool_parts := [
            {"role": "assistant", "tool_calls": [chat_call()]},
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": [{"type": "text", "text": "noon"}],
            },
        ],
        [
            function_call(),
            {
                "type": "function_call_output",
                "call_id": "call_1",
                "output": [{"type": "input_text", "text": "noon"}],
            },
        ],
        tool_parts,
    ),
    Shape(
        "chat custom tool call",
        chat_custom := [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "call_9", "type": "custom", "custom": {"name": "grep", "input": "TODO"}}
                ],
            },
            {"role": "tool", "tool_call_id": "call_9", "content": "3 lines"},
        ],
        [
            {"type": "custom_tool_call", "call_id": "call_9", "name": "grep", "input": "TODO"},
            {"type": "custom_tool_call_output", "call_id": "call_9", "output": "3 lines"},
        ],
        chat_custom,
    ),
]

DUMPED_REPLY = ChatCompletionMessage.model_validate(
    {"role": "assistant", "content": "Checking.", "tool_calls": [chat_call()]}
).model_dump()  # how people keep a Chat reply: every field, most of them None

CHAT_FORMS.extend(
    [
        Shape(
            "chat reply dumped",
            [HI, DUMPED_REPLY, {"role": "tool", "tool_call_id": "call_1", "content": "noon"}],
            [
                HI,
                {"type": "message", "role": "assistant", "content": [output_text("Checking.")]},
                function_call(),
                {"type": "function_call_output", "call_id": "call_1", "output": "noon"},
            ],
            [
                HI,
                {"role": "assistant", "content": "Checking.", "tool_calls": [chat_call()]},
                {"role": "tool", "tool_call_id": "call_1", "content": "noon"},
            ],
        ),
        Shape(
            "chat reply dumped without calls",
            [HI, {**DUMPED_REPLY, "tool_calls": [], "annotations": []}],
            [HI, {"role": "assistant", "content": "Checking."}],
            [HI, {"role": "assistant", "content": "Checking."}],
        ),
        Shape(
            "chat assistant text parts",
            pieces := [
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                }
            ],
            [
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [output_text("a"), output_text("b")],
                }
            ],
            pieces,
        ),
    ]
)

NEITHER = [
    Shape(
        "not a dict", [HI, "hi"], (no_dict := r"input\[1\] \(a str\).*an item is a dict"), no_dict
    ),
    Shape(
        "neither type nor role",
        [{"content": "hi"}],
        (no_role := r"input\[0\] \(a message\).*it has neither a 'type' nor a 'role'"),
        no_role,
    ),
    Shape(
        "unknown role",
        [{"role": "bot", "content": "hi"}],
        (bot := r"input\[0\] \(a 'bot' message\).*the role 'bot' is unknown\. Use one of user"),
        bot,
    ),
    Shape("no content", [{"role": "user"}], (empty := r"input\[0\].*it has no 'content'"), empty),
    Shape(
        "unknown part",
        [{"role": "user", "content": [{"type": "video", "url": "x"}]}],
        (video := r"input\[0\]\.content\[0\] \(a 'video' part\).*the part type is unknown"),
        video,
    ),
    Shape(
        "part not a dict",
        [{"role": "user", "content": ["hi"]}],
        (loose := r"input\[0\]\.content\[0\] \(a str\).*a content part is a dict with a 'type'"),
        loose,
    ),
    Shape(
        "tool message without its call",
        [{"role": "tool", "content": "noon"}],
        (orphan := r"input\[0\] \(a 'tool' message\).*it has no 'tool_call_id'"),
        orphan,
    ),
    Shape(
        "function call without a call id",
        [{"type": "function_call", "name": "get_time", "arguments": "{}"}],
        (no_id := r"input\[0\] \(a 'function_call' item\).*it has no 'call_id'"),
        no_id,
    ),
    Shape(
        "chat tool message with an image",
        [
            {"role": "assistant", "tool_calls": [chat_call()]},
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": [{"type": "image_url", "image_url": {"url": IMAGE_URL}}],
            },
        ],
        r"input\[1\]\.content\[0\] \(a 'image_url' part\).*tool message holds text parts only",
        r"input\[1\]\.content\[0\] \(a 'image_url' part\).*tool messages hold text parts only",
    ),
]

BREAK = {"mode": "explicit", "ttl": "30m"}
RESPONSES_FORMS.append(
    Shape(
        "cache breakpoints on parts",
        [
            {
                "role": "user",
                "content": [{"type": "input_text", "text": "a", "prompt_cache_breakpoint": BREAK}],
            },
            {
                "role": "user",
                "content": [{"type": "text", "text": "b", "prompt_cache_breakpoint": BREAK}],
            },
        ],
        [
            {
                "role": "user",
                "content": [{"type": "input_text", "text": "a", "prompt_cache_breakpoint": BREAK}],
            },
            {
                "role": "user",
                "content": [{"type": "input_text", "text": "b", "prompt_cache_breakpoint": BREAK}],
            },
        ],
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "a", "prompt_cache_breakpoint": BREAK}],
            },
            {
                "role": "user",
                "content": [{"type": "text", "text": "b", "prompt_cache_breakpoint": BREAK}],
            },
        ],
    )
)

NEITHER.extend(
    [
        Shape(
            "function output with a chat text part",
            [
                function_call(),
                {
                    "type": "function_call_output",
                    "call_id": "call_1",
                    "output": [{"type": "text", "text": "noon"}],
                },
            ],
            r"input\[1\]\.output\[0\] \(a 'text' part\).*a function call's output holds "
            r"input_text, input_image and input_file parts",
            [
                {"role": "assistant", "content": None, "tool_calls": [chat_call()]},
                {
                    "role": "tool",
                    "tool_call_id": "call_1",
                    "content": [{"type": "text", "text": "noon"}],
                },
            ],
        ),
        Shape(
            "function output missing",
            [function_call(), {"type": "function_call_output", "call_id": "call_1"}],
            (no_output := r"input\[1\] \(a 'function_call_output' item\).*it has no 'output'"),
            no_output,
        ),
        Shape(
            "image in an assistant message",
            [{"role": "assistant", "content": [{"type": "input_image", "image_url": IMAGE_URL}]}],
            (drawn := r"input\[0\]\.content\[0\].*an assistant message holds text and refusal"),
            drawn,
        ),
        Shape(
            "tool calls not a list",
            [{"role": "assistant", "tool_calls": {"id": "call_1"}}],
            (not_list := r"input\[0\].*its 'tool_calls' is not a list of tool calls"),
            not_list,
        ),
    ]
)

SHAPES = [*RESPONSES_FORMS, *CHAT_FORMS, *NEITHER]


def sent(server: ScriptedServer, api: str) -> Items:
    body = server.requests[-1]["body"]
    return body["input"] if api == "responses" else body["messages"]


async def check(server: ScriptedServer, api: str, shape: Shape, streamed: bool = False) -> None:
    expected = shape.responses if api == "responses" else shape.chat
    given = copy.deepcopy(shape.input)
    agent = Agent("a", model=server.model(api))
    requests = len(server.requests)
    if isinstance(expected, str):
        with pytest.raises(UserError, match=expected):
            await _run(agent, given, streamed)
        assert len(server.requests) == requests  # refused before any request
    else:
        server.script(Turn(text="ok"))
        result = await _run(agent, given, streamed)
        assert result.final_output == "ok"
        assert sent(server, api) == expected
    assert given == shape.input  # the caller's items are never changed


async def _run(agent: Agent[Any], items: list[Any], streamed: bool) -> Any:
    if not streamed:
        return await Runner.run(agent, items)
    result = Runner.run_streamed(agent, items)
    async for _ in result.stream_events():
        pass
    return result


@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize("shape", SHAPES, ids=[shape.name for shape in SHAPES])
async def test_shape(openai_server: ScriptedServer, api: str, shape: Shape) -> None:
    await check(openai_server, api, shape)


@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize(
    "name", ["easy assistant message", "chat assistant with tool calls", "chat audio part"]
)
async def test_shape_streamed(openai_server: ScriptedServer, api: str, name: str) -> None:
    shape = next(shape for shape in SHAPES if shape.name == name)
    await check(openai_server, api, shape, streamed=True)


def _responses_only_types() -> list[str]:
    """Every item type of the installed `openai`'s Responses input with no Chat form."""
    kinds: set[str] = set()
    for member in typing.get_args(ResponseInputItemParam):
        hint = typing.get_type_hints(member).get("type")
        kinds.update(a for a in re.findall(r"'(\w+)'", str(hint)))
    kinds -= {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
    }
    return sorted(kinds)


RESPONSES_ONLY = _responses_only_types()
WELL_FORMED: dict[str, dict[str, Any]] = {
    "mcp_approval_response": {"approval_request_id": "mcpr_1", "approve": True},
}
"""The fields an item needs beyond its type and id, where the test server checks them."""


def test_the_responses_only_types_are_found() -> None:
    assert {
        "reasoning",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "item_reference",
    } <= set(RESPONSES_ONLY)


@pytest.mark.parametrize("kind", RESPONSES_ONLY)
async def test_responses_only_items(openai_server: ScriptedServer, kind: str) -> None:
    item = {"type": kind, "id": "x_1", **WELL_FORMED.get(kind, {})}
    shape = Shape(
        kind,
        [HI, item],
        [HI, item],
        rf"input\[1\] \(a '{kind}' item\) cannot be sent to the Chat Completions API: only the "
        r"Responses API knows this item .*or run this agent with OpenAIResponsesModel",
    )
    await check(openai_server, "responses", shape)
    await check(openai_server, "chat", shape)


def test_a_refusal_says_where_what_and_how_to_fix() -> None:
    with pytest.raises(UserError) as chat:
        items_to_messages(None, [HI, {"type": "reasoning", "id": "rs_1", "summary": []}])
    assert str(chat.value) == snapshot(
        "input[1] (a 'reasoning' item) cannot be sent to the Chat Completions API: only the Responses API knows this item (it comes from a hosted tool or another feature of that API). Leave it out of this agent's input (a handoff's input_filter can), or run this agent with OpenAIResponsesModel, which takes it as it is"
    )
    with pytest.raises(UserError) as responses:
        responses_input([{"role": "assistant", "content": "x", "audio": {"id": "a"}}])
    assert str(responses.value) == snapshot(
        "input[0] (an 'assistant' message) cannot be sent to the Responses API: its 'audio' has no Responses form. Responses cannot refer to an earlier audio reply: leave 'audio' out, or run this agent with OpenAIChatCompletionsModel, which takes it as it is"
    )


def test_a_tool_call_of_an_unknown_type_is_refused() -> None:
    with pytest.raises(UserError, match=r"input\[0\]\.tool_calls\[0\] \(a 'mystery' tool call\)"):
        responses_input([{"role": "assistant", "tool_calls": [{"id": "c", "type": "mystery"}]}])


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_an_openai_object_as_an_item(openai_server: ScriptedServer, api: str) -> None:
    message = ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text="Hello!", annotations=[])],
    )
    openai_server.script(Turn(text="ok"))
    items: Any = [HI, message]  # the type says dicts; the `openai` package's objects are taken too
    await Runner.run(Agent("a", model=openai_server.model(api)), items)
    expected = (
        [HI, message.model_dump(mode="json", exclude_none=True)]
        if api == "responses"
        else [HI, {"role": "assistant", "content": "Hello!"}]
    )
    assert sent(openai_server, api) == expected


@function_tool
def get_time() -> str:
    """The time."""
    return "noon"


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_a_run_goes_on_from_a_hand_written_chat_history(
    openai_server: ScriptedServer, api: str
) -> None:
    history = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Time?"},
        {"role": "assistant", "content": None, "tool_calls": [chat_call("old")]},
        {"role": "tool", "tool_call_id": "old", "content": "11:00"},
        {"role": "assistant", "content": "11:00."},
        {"role": "user", "content": "And now?"},
    ]
    openai_server.script(Turn(calls=[Call("get_time", "{}", "new")]), Turn(text="Noon."))
    agent = Agent("a", tools=[get_time], model=openai_server.model(api))
    result = await Runner.run(agent, history)
    assert result.final_output == "Noon."
    second = sent(openai_server, api)
    if api == "responses":
        assert second == [
            history[0],
            history[1],
            function_call("old"),
            {"type": "function_call_output", "call_id": "old", "output": "11:00"},
            history[4],
            history[5],
            {**function_call("new"), "id": "fc_new", "status": "completed"},
            {"type": "function_call_output", "call_id": "new", "output": "noon"},
        ]
    else:
        assert second == [
            *history,
            {"role": "assistant", "content": None, "tool_calls": [chat_call("new")]},
            {"role": "tool", "tool_call_id": "new", "content": "noon"},
        ]


class _EasyAnswer(Model):
    """A model that answers with a message in the easy form, without a `type`."""

    async def get_response(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse([{"role": "assistant", "content": "Hi there."}])

    async def stream_response(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        yield ResponseDone(await self.get_response(request))


async def test_an_answer_without_a_type_is_the_final_output() -> None:
    result = await Runner.run(Agent("a", model=_EasyAnswer()), "hi")
    assert result.final_output == "Hi there."
