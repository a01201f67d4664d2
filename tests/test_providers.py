"""Many providers in one run: names resolved by prefix, and conversations handed across.

`MultiProvider` resolves `"anthropic/..."`, `"gemini/..."` and `"openai/..."` (a bare
name stays OpenAI's) the same way in a run and in the Temporal plugin's model
activity; an unknown prefix is a `UserError` listing the known ones. Handoffs between
agents of different providers keep the conversation: what only one provider reads
(Claude's thinking) is left out of the others' requests.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tooluse import Agent, RunConfig, Runner, function_tool, handoff
from tooluse.exceptions import UserError
from tooluse.models import (
    AnthropicModel,
    AnthropicProvider,
    GeminiModel,
    GeminiProvider,
    ModelProvider,
    MultiProvider,
    OpenAIChatCompletionsModel,
    OpenAIProvider,
    OpenAIResponsesModel,
)

from .anthropic_server import AnthropicServer, Use
from .anthropic_server import Turn as ClaudeTurn
from .gemini_server import GeminiServer
from .gemini_server import Turn as GeminiTurn
from .openai_server import ScriptedServer
from .openai_server import Turn as OpenAITurn


@function_tool
def weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city's name.
    """
    return f"sunny in {city}"


def test_each_prefix_resolves_to_its_providers_model() -> None:
    provider = MultiProvider()

    claude = provider.get_model("anthropic/claude-sonnet-4-5")
    gemini = provider.get_model("gemini/gemini-2.5-flash")
    gpt = provider.get_model("openai/gpt-4.1")
    bare = provider.get_model("gpt-4.1")

    assert isinstance(claude, AnthropicModel)
    assert claude.model == "claude-sonnet-4-5"
    assert isinstance(gemini, GeminiModel)
    assert gemini.model == "gemini-2.5-flash"
    assert isinstance(gpt, OpenAIResponsesModel | OpenAIChatCompletionsModel)
    assert gpt.model == "gpt-4.1"
    assert isinstance(bare, OpenAIResponsesModel | OpenAIChatCompletionsModel)
    assert (claude.provider_name, gemini.provider_name) == ("anthropic", "gcp.gemini")


def test_an_unknown_prefix_names_the_known_ones() -> None:
    with pytest.raises(UserError) as raised:
        MultiProvider().get_model("mistral/large")

    message = str(raised.value)
    assert "'mistral/large' starts with an unknown provider 'mistral'" in message
    assert "'anthropic/', 'gemini/', 'openai/'" in message
    assert "provider_map" in message


def test_a_provider_map_adds_prefixes_and_replaces_built_in_ones() -> None:
    class Fixed(ModelProvider):
        def __init__(self, model: AnthropicModel) -> None:
            self.model = model

        def get_model(self, model_name: str | None) -> AnthropicModel:
            return self.model

    mine = AnthropicModel("mine")
    provider = MultiProvider({"local": Fixed(mine), "anthropic": Fixed(mine)})

    assert provider.get_model("local/anything") is mine
    assert provider.get_model("anthropic/claude") is mine
    assert isinstance(provider.get_model("gemini/g"), GeminiModel)


async def test_a_run_resolves_prefixed_names_through_its_provider(
    anthropic_server: AnthropicServer, gemini_server: GeminiServer
) -> None:
    anthropic_server.script(ClaudeTurn(text="from Claude"))
    gemini_server.script(GeminiTurn(text="from Gemini"))
    provider = MultiProvider(
        anthropic_client=anthropic_server.client(), genai_client=gemini_server.client()
    )
    config = RunConfig(model_provider=provider)

    claude = await Runner.run(Agent("a", model="anthropic/claude-test"), "hi", run_config=config)
    gemini = await Runner.run(Agent("g", model="gemini/gemini-test"), "hi", run_config=config)

    assert (claude.final_output, gemini.final_output) == ("from Claude", "from Gemini")
    assert anthropic_server.requests[0]["body"]["model"] == "claude-test"
    assert "/models/gemini-test:generateContent" in gemini_server.requests[0]["path"]


async def test_the_default_provider_resolves_prefixes_too(
    anthropic_server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_server.base_url)
    anthropic_server.script(ClaudeTurn(text="default provider"))

    result = await Runner.run(Agent("a", model="anthropic/claude-test"), "hi")

    assert result.final_output == "default provider"


async def test_the_temporal_model_activity_resolves_names_with_the_same_provider(
    anthropic_server: AnthropicServer,
) -> None:
    from tooluse.models import ModelRequest
    from tooluse.temporal._activities import model_activity
    from tooluse.temporal._payloads import request_payload

    anthropic_server.script(ClaudeTurn(text="from the activity"))
    provider = MultiProvider(anthropic_client=anthropic_server.client())
    invoke = model_activity(provider)
    request = ModelRequest("Be brief.", [{"role": "user", "content": "hi"}])

    reply = await invoke({"model": "anthropic/claude-test", "request": request_payload(request)})

    assert "from the activity" in str(reply)
    assert anthropic_server.requests[0]["body"]["system"] == "Be brief."


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_claudes_thinking_is_left_out_when_it_hands_off_to_openai(
    anthropic_server: AnthropicServer, openai_server: ScriptedServer, api: str
) -> None:
    openai_server.script(OpenAITurn(text="GPT here: sunny."))
    gpt = Agent("gpt", model=openai_server.model(api))
    anthropic_server.script(
        ClaudeTurn(thinking="Hand it over.", uses=[Use("weather", {"city": "Paris"})]),
        ClaudeTurn(uses=[Use("transfer_to_gpt")]),
    )
    claude = Agent(
        "claude", tools=[weather], handoffs=[handoff(gpt)], model=anthropic_server.model()
    )

    result = await Runner.run(claude, "Weather in Paris?")

    assert result.final_output == "GPT here: sunny."
    sent = openai_server.requests[0]["body"]
    history = sent.get("input") or sent.get("messages")
    assert "provider_data" not in str(history)
    assert "sunny in Paris" in str(history)  # the tool's output came along


def test_importing_tooluse_imports_neither_anthropic_nor_google_genai() -> None:
    code = (
        "import sys, tooluse, tooluse.models\n"
        "loaded = [m for m in ('anthropic', 'google.genai') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_providers_resolve_bare_names_to_their_defaults() -> None:
    assert AnthropicProvider().get_model(None).model == "claude-sonnet-4-5"  # type: ignore[attr-defined]
    assert GeminiProvider().get_model(None).model == "gemini-2.5-flash"  # type: ignore[attr-defined]
    assert isinstance(MultiProvider({"o": OpenAIProvider()}).get_model("o/x"), OpenAIResponsesModel)


@pytest.mark.parametrize("by_name", [False, True], ids=["model", "name"])
async def test_spans_name_the_provider_as_the_conventions_do(
    anthropic_server: AnthropicServer, gemini_server: GeminiServer, by_name: bool
) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    provider = MultiProvider(
        anthropic_client=anthropic_server.client(), genai_client=gemini_server.client()
    )
    config = RunConfig(model_provider=provider, tracer_provider=tracer_provider)
    anthropic_server.script(ClaudeTurn(text="c"))
    gemini_server.script(GeminiTurn(text="g"))
    claude_model = "anthropic/claude-test" if by_name else anthropic_server.model()
    gemini_model = "gemini/gemini-test" if by_name else gemini_server.model()

    await Runner.run(Agent("claude", model=claude_model), "hi", run_config=config)
    await Runner.run(Agent("gemini", model=gemini_model), "hi", run_config=config)

    named = {
        (span.name.split(" ")[0], dict(span.attributes or {}).get("gen_ai.provider.name"))
        for span in exporter.get_finished_spans()
        if span.name.startswith(("chat", "invoke_agent"))
    }
    assert named == {
        ("chat", "anthropic"),
        ("chat", "gcp.gemini"),
        ("invoke_agent", "anthropic"),
        ("invoke_agent", "gcp.gemini"),
    }


@function_tool
def broken(city: str) -> str:
    """A tool that fails.

    Args:
        city: The city's name.
    """
    raise RuntimeError("no data")


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_a_failed_call_is_marked_for_claude_and_gemini_but_not_sent_to_openai(
    openai_server: ScriptedServer, gemini_server: GeminiServer, api: str
) -> None:
    from .gemini_server import FunctionCall

    gemini_server.script(GeminiTurn(calls=[FunctionCall("broken", {"city": "Oslo"})]))
    gemini_server.script(GeminiTurn(text="Sorry."))
    openai_server.script(OpenAITurn(text="Sorry again."))
    gemini = Agent("gemini", tools=[broken], model=gemini_server.model())
    gpt = Agent("gpt", model=openai_server.model(api))

    first = await Runner.run(gemini, "Oslo?")
    answer = gemini_server.requests[1]["body"]["contents"][-1]["parts"][0]["functionResponse"]
    second = await Runner.run(gpt, [*first.to_input_list(), {"role": "user", "content": "?"}])

    assert "error" in answer["response"]  # Gemini's spelling of a failed call
    assert "output" not in answer["response"]
    assert any(item.get("is_error") for item in first.to_input_list())
    assert second.final_output == "Sorry again."
    assert "is_error" not in str(openai_server.requests[0]["body"])


def test_tooluse_chat_without_an_openai_key_keeps_models_named_for_other_providers() -> None:
    from tooluse.cli._chat import offline_run_config

    claude = Agent("claude", model="anthropic/claude-sonnet-4-5")
    gpt = Agent("gpt", model="gpt-4.1", handoffs=[claude])

    assert offline_run_config(claude, environ={}).model is None  # its own key, its own SDK
    assert offline_run_config(gpt, environ={}).model is not None  # TestModel: no OpenAI key
    assert offline_run_config(gpt, environ={"OPENAI_API_KEY": "k"}).model is None
