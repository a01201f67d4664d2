"""`OpenAIResponsesCompactionSession`: a session whose history OpenAI's `responses.compact` shrinks.

It wraps another session, which keeps the items. After a run stores a turn the
model answered (no tool output left for it to read), the runner calls
`run_compaction` with the response's id and whether it was stored; the session asks
`should_trigger_compaction` (by default: 10 items or more that are neither the
user's messages nor earlier compactions) and, if it says so, calls
`POST /v1/responses/compact` and replaces the whole stored history with what the
API answers: the user's messages and one opaque `compaction` item that only the
Responses API reads. The next run sends those, then its own input.

The history is given to the API one of two ways (`compaction_mode`):
`"previous_response_id"` names the last response, which the server kept;
`"input"` sends the stored items. `"auto"` picks the first unless that response
was not stored (`ModelSettings(store=False)`) or there is no response id.

The call goes through `OpenAIResponsesModel.compact`, the one `ContextPolicy`
uses; the OpenAI client is made (or the default one taken) at the first call.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast, overload

from ..core._context import RequestUsage, RunContextWrapper, watcher_of
from ..core._context_record import read_marked
from ..core._errors import UserValueError
from ..core._items import Item
from ..core._tasks import to_the_end
from ..exceptions import UserError
from ..models._base import ModelRequest, ModelResponse, ModelTransportError
from ._common import WrappedRunSession
from ._protocol import RunSession, Session, SessionSettings

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from ..models._responses import OpenAIResponsesModel

__all__ = [
    "OpenAIResponsesCompactionArgs",
    "OpenAIResponsesCompactionMode",
    "OpenAIResponsesCompactionSession",
    "default_should_trigger_compaction",
]

OpenAIResponsesCompactionMode = Literal["previous_response_id", "input", "auto"]
"""How the history reaches `responses.compact`: by the last response's id, as input
items, or the first unless that response was not stored."""

_Resolved = Literal["previous_response_id", "input"]

DEFAULT_COMPACTION_THRESHOLD = 10
"""The candidate items (`compaction_candidate_items`) at which the default trigger compacts."""

logger = logging.getLogger("tooluse.sessions")

_EVERY_ITEM = 2_147_483_647
"""A read limit above any history: past a `SessionSettings.limit`, since all is replaced."""

_TRIGGER_KEYS = "response_id, compaction_mode, compaction_candidate_items, session_items"


class OpenAIResponsesCompactionArgs(TypedDict, total=False):
    """What `run_compaction` is told (the runner gives the first three after a turn)."""

    response_id: str
    """The id of the last response, which `"previous_response_id"` mode compacts from."""
    compaction_mode: OpenAIResponsesCompactionMode
    """This call's mode, in place of the session's."""
    store: bool
    """Whether the last response was stored by the API (`ModelSettings.store`): an
    unstored one cannot be named, so `"auto"` sends the items instead."""
    force: bool
    """Compact whatever `should_trigger_compaction` says."""


def is_user_message(item: Item) -> bool:
    """Whether an item is one of the user's messages (`{"role": "user", ...}`, typed or not)."""
    return item.get("role") == "user" and item.get("type", "message") == "message"


def compaction_candidates(items: list[Item]) -> list[Item]:
    """The items compaction would shrink: all but the user's messages and compactions.

    Args:
        items: The stored history.

    Returns:
        The candidates, in order.
    """
    return [i for i in items if not is_user_message(i) and i.get("type") != "compaction"]


def default_should_trigger_compaction(context: dict[str, Any]) -> bool:
    """The default trigger: compact once there are 10 candidate items or more.

    Args:
        context: What the session gives a trigger (`compaction_candidate_items` among it).

    Returns:
        Whether to compact.
    """
    return len(context["compaction_candidate_items"]) >= DEFAULT_COMPACTION_THRESHOLD


def is_openai_model_name(model: str) -> bool:
    """Whether `model` names an OpenAI model `responses.compact` takes (gpt-*, o1..., ft:gpt-*).

    Args:
        model: The name, maybe after a provider's prefix (`"openai/gpt-4.1"`).

    Returns:
        Whether it does.
    """
    name = model.strip().rsplit("/", 1)[-1].removeprefix("ft:").split(":", 1)[0]
    return name.startswith("gpt-") or (name[:1] == "o" and name[1:2].isdigit())


class OpenAIResponsesCompactionSession:
    """A session that compacts its history with OpenAI's `responses.compact` as it grows.

    Wraps any `Session`, which stores the items; when the wrapped one keeps paused runs
    (a `RunSession`), so does this one. After each run's turn that the model answered,
    `should_trigger_compaction` decides, and the whole stored history is replaced with
    the API's answer: the user's messages, then one `compaction` item. Only the OpenAI
    Responses API reads that item, so the agents running on this session must use it.

    Args:
        session_id: The conversation's id.
        underlying_session: The session that stores the items.
        client: The OpenAI client for `responses.compact`; None takes the default one
            (`set_default_openai_client`, else `AsyncOpenAI()`) at the first compaction.
        model: The model that compacts: an OpenAI model (gpt-*, o*, ft:gpt-*).
        compaction_mode: `"previous_response_id"`, `"input"` or `"auto"` (see the module).
        should_trigger_compaction: `(context) -> bool`, given a dict with `response_id`,
            `compaction_mode` (as resolved), `compaction_candidate_items` and
            `session_items`; None compacts at 10 candidate items.
        max_rollback_items: The most items a compaction may replace (it reads them all,
            to put them back if storing the compacted ones fails); None for no bound.

    Raises:
        UserError: `underlying_session` is not a session, or compacts already; `model`
            is not an OpenAI model; the mode or trigger is not one.
        UserValueError: `max_rollback_items` is not a positive integer or None.
    """

    @overload
    def __new__(
        cls,
        session_id: str,
        underlying_session: RunSession,
        *,
        client: AsyncOpenAI | None = ...,
        model: str = ...,
        compaction_mode: OpenAIResponsesCompactionMode = ...,
        should_trigger_compaction: Callable[[dict[str, Any]], bool] | None = ...,
        max_rollback_items: int | None = ...,
    ) -> _CompactionRunSession: ...
    @overload
    def __new__(
        cls,
        session_id: str,
        underlying_session: Session,
        *,
        client: AsyncOpenAI | None = ...,
        model: str = ...,
        compaction_mode: OpenAIResponsesCompactionMode = ...,
        should_trigger_compaction: Callable[[dict[str, Any]], bool] | None = ...,
        max_rollback_items: int | None = ...,
    ) -> OpenAIResponsesCompactionSession: ...
    def __new__(
        cls,
        session_id: str,
        underlying_session: Session,
        *,
        client: AsyncOpenAI | None = None,
        model: str = "gpt-4.1",
        compaction_mode: OpenAIResponsesCompactionMode = "auto",
        should_trigger_compaction: Callable[[dict[str, Any]], bool] | None = None,
        max_rollback_items: int | None = None,
    ) -> OpenAIResponsesCompactionSession:
        # Paused runs are kept only where the wrapped session keeps them: the runner
        # tells a RunSession by its methods.
        del session_id, client, model, compaction_mode, should_trigger_compaction
        del max_rollback_items
        if cls is OpenAIResponsesCompactionSession and isinstance(underlying_session, RunSession):
            return object.__new__(_CompactionRunSession)
        return object.__new__(cls)

    def __init__(
        self,
        session_id: str,
        underlying_session: Session,
        *,
        client: AsyncOpenAI | None = None,
        model: str = "gpt-4.1",
        compaction_mode: OpenAIResponsesCompactionMode = "auto",
        should_trigger_compaction: Callable[[dict[str, Any]], bool] | None = None,
        max_rollback_items: int | None = None,
    ) -> None:
        _check_options(underlying_session, model, compaction_mode, should_trigger_compaction)
        _check_rollback(max_rollback_items)
        self.session_id = session_id
        """The conversation's id."""
        self.underlying_session = underlying_session
        """The session that stores the items."""
        self.model = model
        """The model that compacts."""
        self.compaction_mode: OpenAIResponsesCompactionMode = compaction_mode
        """How the history reaches the API, unless a call says otherwise."""
        self.should_trigger_compaction = (
            should_trigger_compaction or default_should_trigger_compaction
        )
        """Decides, from the context dict, whether to compact."""
        self.max_rollback_items = max_rollback_items
        """The most items a compaction may replace, or None."""
        self._client = client
        self._compactor: OpenAIResponsesModel | None = None
        self._response_id: str | None = None
        self._unstored_response_id: str | None = None
        self._lock = asyncio.Lock()  # a compaction's read-call-replace, against other writes

    @property
    def session_settings(self) -> SessionSettings | None:
        """The wrapped session's settings (its `limit`), which the runner reads."""
        settings: object = getattr(self.underlying_session, "session_settings", None)
        return settings if isinstance(settings, SessionSettings) else None

    async def get_items(self, limit: int | None = None) -> list[Item]:
        """The stored items, oldest first (the compacted ones, once compacted).

        Args:
            limit: Only the last `limit` items; None for the wrapped session's default.

        Returns:
            The items.
        """
        return await self.underlying_session.get_items(limit)

    async def add_items(self, items: list[Item]) -> None:
        """Append items to the wrapped session.

        Args:
            items: The items, in order.
        """
        async with self._lock:
            await self.underlying_session.add_items(items)

    async def pop_item(self) -> Item | None:
        """Remove the newest item; the last response no longer holds what is stored.

        Returns:
            The item removed, or None if the session is empty.
        """
        async with self._lock:
            popped = await self.underlying_session.pop_item()
            if popped is not None:
                self._response_id = self._unstored_response_id = None
            return popped

    async def clear_session(self) -> None:
        """Remove every item (and a paused run), and forget the last response."""
        async with self._lock:
            await self.underlying_session.clear_session()
            self._response_id = self._unstored_response_id = None

    async def run_compaction(
        self,
        args: OpenAIResponsesCompactionArgs | None = None,
        *,
        wrapper: RunContextWrapper[Any] | None = None,
    ) -> None:
        """Compact the stored history if the trigger says so (or `force`), in place.

        The runner calls it after each turn the model answered; call it yourself, with
        `{"force": True}`, to compact now.

        Args:
            args: The last response's id and whether it was stored, a mode for this
                call, `force`; the session remembers the response from call to call.
            wrapper: The run's context: the compaction's tokens join its usage.

        Raises:
            UserError: The trigger raised or did not answer with a bool; the mode is
                `"previous_response_id"` and no response id was ever given; the
                session holds a paused run; `force` and the history is over
                `max_rollback_items` (unforced, that is a WARNING, and nothing is done).
            ModelTransportError: `responses.compact` failed (the history is kept).
        """
        given = args or {}
        forced = given.get("force", False)
        async with self._lock:
            mode = self._mode(given)
            stored = await self._stored(forced)
            if stored is None:
                return
            history = read_marked(stored)
            context: dict[str, Any] = {
                "response_id": self._response_id,
                "compaction_mode": mode,
                "compaction_candidate_items": compaction_candidates(history),
                "session_items": history,
            }
            if not forced and not self._triggered(context):
                return
            await self._refuse_paused()
            response = await self._compact(mode, history, wrapper)
            await self._replace(stored, _without_orphan_ids(response.output))

    def _mode(self, given: OpenAIResponsesCompactionArgs) -> _Resolved:
        """This call's mode, remembering the response given and whether it was stored."""
        response_id = given.get("response_id")
        if response_id:
            self._response_id = response_id
        store = given.get("store")
        if store is False and self._response_id:
            self._unstored_response_id = self._response_id
        elif store is True and self._response_id == self._unstored_response_id:
            self._unstored_response_id = None
        mode = given.get("compaction_mode") or self.compaction_mode
        if mode == "previous_response_id" and not self._response_id:
            raise UserError(
                f"OpenAIResponsesCompactionSession {self.session_id!r}: compaction_mode="
                "'previous_response_id' needs a response id, and no run has stored a turn "
                "here yet: pass run_compaction({'response_id': ...}), or use 'input' or 'auto'"
            )
        if mode != "auto":
            return mode
        # An unstored response (store=False) cannot be named: the stored items are sent.
        if not self._response_id or self._response_id == self._unstored_response_id:
            return "input"
        return "previous_response_id"

    async def _stored(self, forced: bool) -> list[Item] | None:
        """Every stored item as stored (marks unread), within `max_rollback_items`.

        Past the bound: an error when `forced`; otherwise a WARNING and None, so that a
        run (which calls unforced, after its turn is stored) is not failed, run after
        run, for what only the developer can change.
        """
        bound = self.max_rollback_items
        items = await self.underlying_session.get_items(_EVERY_ITEM if bound is None else bound + 1)
        if bound is None or len(items) <= bound:
            return items
        problem = (
            f"OpenAIResponsesCompactionSession {self.session_id!r}: the history holds more "
            f"than max_rollback_items={bound} items, so it was not compacted (it is kept "
            "as it was): raise max_rollback_items, or set it to None"
        )
        if forced:
            raise UserError(problem)
        logger.warning("%s", problem)
        return None

    def _triggered(self, context: dict[str, Any]) -> bool:
        """What the trigger says, or a `UserError` saying what is wrong with it."""
        trigger = self.should_trigger_compaction
        where = (
            f"OpenAIResponsesCompactionSession {self.session_id!r}: "
            f"should_trigger_compaction {getattr(trigger, '__name__', trigger)!r}"
        )
        try:
            answer: object = trigger(context)
        except Exception as error:
            raise UserError(
                f"{where} raised {type(error).__name__}, so the history was not compacted "
                f"(it is kept, with the turn). It is given a dict with {_TRIGGER_KEYS}: "
                "fix the function, or leave it out for the default (10 candidate items)"
            ) from error
        if inspect.isawaitable(answer):
            if inspect.iscoroutine(answer):
                answer.close()  # never awaited: no "coroutine was never awaited" warning
            raise UserError(
                f"{where} returned an awaitable: it must be a plain function returning a "
                "bool (it is called synchronously); make it a def, not an async def"
            )
        if answer is not True and answer is not False:
            raise UserError(
                f"{where} returned {type(answer).__name__}: return True to compact, False not to"
            )
        return answer is True

    async def _refuse_paused(self) -> None:
        """Refuse to compact under a paused run, whose state names the stored history."""
        paused = cast(
            "Callable[[], Awaitable[str | None]] | None",
            getattr(self.underlying_session, "get_paused_state", None),
        )
        if paused is not None and await paused() is not None:
            raise UserError(
                f"OpenAIResponsesCompactionSession {self.session_id!r} holds a run paused for "
                "approval, which resumes from the history as it is: resume it (or drop it "
                "with clear_paused_run()) before compacting"
            )

    async def _compact(
        self, mode: _Resolved, history: list[Item], wrapper: RunContextWrapper[Any] | None
    ) -> ModelResponse:
        """The API's compaction of the history (named by the last response, or sent).

        Counted in the run's usage when a run's context is given, and recorded by the
        run (its trace, its stream) when the run watches (`watched_by`).
        """
        by_id = mode == "previous_response_id"
        request = ModelRequest(
            instructions=None,
            input=[] if by_id else history,
            previous_response_id=self._response_id if by_id else None,
        )
        model, watcher = self._model(), watcher_of(wrapper)
        if watcher is not None:
            watcher.started(model, request)
        started = time.perf_counter()
        try:
            response = await model.compact(request)
            if wrapper is not None:
                entry = _count(wrapper, response, self.model, time.perf_counter() - started)
                if watcher is not None:
                    watcher.ended(response, entry, wrapper.usage)
            return response
        except BaseException as error:
            if watcher is not None:
                watcher.failed(error)
            if not isinstance(error, ModelTransportError):
                raise
            raise ModelTransportError(
                f"OpenAIResponsesCompactionSession {self.session_id!r}: responses.compact "
                f"failed ({error}); the history was kept as it was",
                error.status_code,
                retry_after=error.retry_after,
                retryable=error.retryable,
            ) from error

    def _model(self) -> OpenAIResponsesModel:
        """The model that compacts, made at the first compaction (so is the client)."""
        if self._compactor is None:
            from ..models._responses import OpenAIResponsesModel  # noqa: PLC0415 - when used

            self._compactor = OpenAIResponsesModel(self.model.rsplit("/", 1)[-1], self._client)
        return self._compactor

    async def _replace(self, previous: list[Item], compacted: list[Item]) -> None:
        """Store `compacted` in place of everything; put `previous` back if that fails.

        The replacement runs to its end even if the caller is cancelled meanwhile, so a
        cancelled run never leaves the session emptied.
        """
        await to_the_end(asyncio.ensure_future(self._swap(previous, compacted)))

    async def _swap(self, previous: list[Item], compacted: list[Item]) -> None:
        session = self.underlying_session
        try:
            await session.clear_session()
            if compacted:
                await session.add_items(compacted)
        except Exception:
            await self._restore(previous)
            raise  # the swap's own error, which says why, not the restore's

    async def _restore(self, previous: list[Item]) -> None:
        """Put the stored items back as they were; log (not raise) if that fails too."""
        try:
            await self.underlying_session.clear_session()
            await self.underlying_session.add_items(previous)
        except Exception:
            logger.exception(
                "OpenAIResponsesCompactionSession %r: storing the compacted history failed, "
                "and putting the %d previous items back failed too (the session may have "
                "lost them): check the wrapped session's store",
                self.session_id,
                len(previous),
            )


class _CompactionRunSession(OpenAIResponsesCompactionSession, WrappedRunSession):
    """The compaction session over a `RunSession`: paused runs and claims are the wrapped one's."""

    underlying_session: RunSession

    async def add_turn(self, items: list[Item], *, paused_state: str | None) -> None:
        """Store a turn's items and the paused run's state in the wrapped session.

        Args:
            items: The items to append, in order.
            paused_state: The paused run's serialised state, or None to clear it.
        """
        async with self._lock:
            await self.underlying_session.add_turn(items, paused_state=paused_state)

    async def get_paused_state(self) -> str | None:
        """The paused run's state, as the wrapped session holds it.

        Returns:
            The state's JSON text, or None.
        """
        return await self.underlying_session.get_paused_state()


def _check_options(underlying: object, model: object, mode: object, trigger: object) -> None:
    """Raise one `UserError` naming what is wrong with the session's options."""
    name = "OpenAIResponsesCompactionSession"
    if isinstance(underlying, OpenAIResponsesCompactionSession):
        raise UserError(
            f"{name}(underlying_session=...) got another {name}: it compacts already; wrap "
            "the session that stores the items (say, a SQLiteSession) once"
        )
    missing = [
        method
        for method in ("get_items", "add_items", "pop_item", "clear_session")
        if not callable(getattr(underlying, method, None))
    ]
    if missing:
        raise UserError(
            f"{name}(underlying_session=...) needs a session that stores the items "
            f"(SQLiteSession, SQLAlchemySession, or an object with get_items, add_items, "
            f"pop_item and clear_session), not {type(underlying).__name__} (no "
            f"{', '.join(missing)})"
        )
    if not isinstance(model, str) or not is_openai_model_name(model):
        raise UserError(
            f"{name}(model={model!r}): responses.compact is the OpenAI Responses API's, and "
            "only it reads the compaction item: name an OpenAI model (e.g. 'gpt-4.1'), and "
            "run agents on this session with OpenAIResponsesModel. For another provider, "
            "use RunConfig(context=ContextPolicy(...)), which summarises instead"
        )
    if mode not in ("previous_response_id", "input", "auto"):
        raise UserError(
            f"{name}(compaction_mode={mode!r}): use 'auto', 'previous_response_id' or 'input'"
        )
    if trigger is not None and not callable(trigger):
        raise UserError(
            f"{name}(should_trigger_compaction={trigger!r}): give a function of the context "
            f"dict ({_TRIGGER_KEYS}) returning a bool, or None for the default"
        )


def _check_rollback(bound: object) -> None:
    if bound is not None and (type(bound) is not int or bound <= 0):
        raise UserValueError(
            f"OpenAIResponsesCompactionSession(max_rollback_items={bound!r}): give a positive "
            "number of items, or None for no bound"
        )


def _count(
    wrapper: RunContextWrapper[Any], response: ModelResponse, model: str, seconds: float
) -> RequestUsage:
    """Add the compaction's tokens to the run's usage, as an entry marked `compaction`."""
    entry = response.usage.request_entry(model=model, agent_name=None, duration_seconds=seconds)
    entry.compaction = True
    wrapper.usage.add(response.usage)
    wrapper.usage.request_usage_entries.append(entry)
    return entry


def _without_orphan_ids(items: list[Item]) -> list[Item]:
    """The compacted items, less assistant messages' ids when no reasoning item is kept.

    An assistant message's id points at the reasoning item it followed; sent back
    without that item, the API refuses the request.
    """
    if any(item.get("type") == "reasoning" for item in items):
        return items
    return [
        {k: v for k, v in item.items() if k != "id"} if item.get("role") == "assistant" else item
        for item in items
    ]
