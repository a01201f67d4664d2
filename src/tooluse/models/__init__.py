"""Models the runner calls: the interface, and the OpenAI Responses and Chat Completions models."""

from ._base import (
    Model,
    ModelRequest,
    ModelResponse,
    ModelTransportError,
    ResponseDone,
    StreamDelta,
    StreamEvent,
    ToolCallArgumentsDelta,
)
from ._chat import OpenAIChatCompletionsModel
from ._chat_conversion import items_to_messages, message_to_items
from ._defaults import (
    DEFAULT_MODEL,
    default_openai_client,
    set_default_openai_api,
    set_default_openai_client,
)
from ._resolve import resolve_model
from ._responses import OpenAIResponsesModel

__all__ = [
    "DEFAULT_MODEL",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "ModelTransportError",
    "OpenAIChatCompletionsModel",
    "OpenAIResponsesModel",
    "ResponseDone",
    "StreamDelta",
    "StreamEvent",
    "ToolCallArgumentsDelta",
    "default_openai_client",
    "items_to_messages",
    "message_to_items",
    "resolve_model",
    "set_default_openai_api",
    "set_default_openai_client",
]
