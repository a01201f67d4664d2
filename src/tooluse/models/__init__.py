"""Models the runner calls: the `Model` seam, `ModelProvider`, OpenAI, Anthropic and Gemini.

Imports: `core`, `exceptions`, `schema`, `tools` (a request offers tools); never agents or
the run loop.
"""

from ._anthropic import AnthropicModel
from ._base import (
    Model,
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    ResponseDone,
    StreamDelta,
    StreamEvent,
    TextDelta,
    ToolCallArgumentsDelta,
)
from ._chat import OpenAIChatCompletionsModel
from ._chat_conversion import items_to_messages, message_to_items
from ._defaults import (
    DEFAULT_MODEL,
    default_openai_client,
    get_default_model,
    get_default_model_settings,
    gpt_5_reasoning_settings_required,
    is_gpt_5_default,
    set_default_openai_api,
    set_default_openai_client,
    set_default_openai_key,
)
from ._gemini import GeminiModel
from ._multi import AnthropicProvider, GeminiProvider, MultiProvider, resolve_model
from ._provider import ModelProvider, OpenAIProvider
from ._responses import OpenAIResponsesModel

__all__ = [
    "DEFAULT_MODEL",
    "AnthropicModel",
    "AnthropicProvider",
    "GeminiModel",
    "GeminiProvider",
    "Model",
    "ModelProvider",
    "ModelRequest",
    "ModelResponse",
    "ModelTransportError",
    "MultiProvider",
    "OpenAIChatCompletionsModel",
    "OpenAIProvider",
    "OpenAIResponsesModel",
    "ResponseDone",
    "StreamDelta",
    "StreamEvent",
    "TextDelta",
    "ToolCallArgumentsDelta",
    "default_openai_client",
    "get_default_model",
    "get_default_model_settings",
    "gpt_5_reasoning_settings_required",
    "is_gpt_5_default",
    "items_to_messages",
    "message_to_items",
    "resolve_model",
    "set_default_openai_api",
    "set_default_openai_client",
    "set_default_openai_key",
]
