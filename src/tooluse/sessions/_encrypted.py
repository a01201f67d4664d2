"""`EncryptedSession`: any session's items stored encrypted, and forgotten after a time to live.

Each item is stored as an envelope (`{"__enc__": 1, "v": 1, "kid": "hkdf-v1",
"payload": <Fernet token>}`) in the session it wraps; the token holds the item's JSON
and the time it was written, so an item older than `ttl` seconds no longer reads.
The key of each session is derived from the master key and the session id (HKDF-SHA256)
as openai-agents derives it, so either SDK reads what the other wrote.

Needs the `cryptography` package (`pip install 'tooluse[encrypt]'`); `tooluse.sessions`
imports this module only when `EncryptedSession` is first used.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, Literal, TypedDict, TypeGuard, cast, overload

from ..core._items import Item
from ..exceptions import UserError
from ._common import WrappedRunSession, check_paused_state
from ._protocol import RunSession, Session, SessionSettings

try:
    from cryptography.fernet import Fernet, InvalidToken
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
except ImportError as error:  # pragma: no cover - the `encrypt` extra is in the dev install
    raise ImportError(
        "EncryptedSession needs the cryptography package: pip install 'tooluse[encrypt]'"
    ) from error

__all__ = ["EncryptedEnvelope", "EncryptedSession"]

_KEY_ID = "hkdf-v1"
_VERSION = 1
_HKDF_INFO = b"agents.session-store.hkdf.v1"
"""The derivation's label: openai-agents' own, so sessions it encrypted read here too."""


class EncryptedEnvelope(TypedDict):
    """An encrypted item as the wrapped session stores it."""

    __enc__: Literal[1]
    """Marks the item as an envelope."""
    v: int
    """The envelope's format version."""
    kid: str
    """Which key derivation made the payload's key."""
    payload: str
    """The item's JSON, as a Fernet token (encrypted, authenticated, timestamped)."""


def _master_key(encryption_key: str) -> bytes:
    """The key material: a Fernet key's 32 bytes, or the UTF-8 bytes of any other string."""
    if not isinstance(encryption_key, str) or not encryption_key:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise UserError(
            "EncryptedSession(encryption_key=...) needs a non-empty string: a Fernet key "
            "(Fernet.generate_key().decode()) or another high-entropy secret, kept and "
            "given again to read the session later"
        )
    try:
        decoded = base64.urlsafe_b64decode(encryption_key)
    except (binascii.Error, ValueError):
        decoded = b""
    return decoded if len(decoded) == 32 else encryption_key.encode()


def _session_cipher(master: bytes, session_id: str) -> Fernet:
    """The session's own Fernet key, derived with the session id as salt."""
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=session_id.encode(), info=_HKDF_INFO)
    return Fernet(base64.urlsafe_b64encode(hkdf.derive(master)))


def _is_envelope(item: object) -> TypeGuard[EncryptedEnvelope]:
    if not isinstance(item, dict):
        return False
    fields = cast(dict[str, object], item)
    return fields.get("__enc__") == 1 and isinstance(fields.get("payload"), str)


class EncryptedSession:
    """A session whose items are stored encrypted in another session, each for `ttl` seconds.

    Wraps any `Session` (`SQLiteSession`, `SQLAlchemySession`, one of yours): items are
    encrypted before they reach it and decrypted when read; items older than `ttl`,
    written with another key, or not written encrypted are skipped when reading (they
    stay in the store). When the wrapped session keeps paused runs (a `RunSession`),
    this one does too, their state encrypted the same way but read however old it is
    (an approval may take longer than `ttl`).

    Args:
        session_id: The conversation's id; the salt of its key, so give the same one to
            read it again.
        underlying_session: The session the envelopes are stored in.
        encryption_key: The master key: a Fernet key (`Fernet.generate_key().decode()`)
            or another high-entropy secret (a password is not: nothing here slows a
            guess). Keep it: without it nothing stored reads again.
        ttl: How long an item reads after it was written, in whole seconds (an int:
            Fernet counts whole seconds, so floats are refused rather than truncated).

    Raises:
        UserError: The key is empty, or `ttl` is not a positive int.
    """

    @overload
    def __new__(
        cls, session_id: str, underlying_session: RunSession, encryption_key: str, ttl: int = ...
    ) -> _EncryptedRunSession: ...
    @overload
    def __new__(
        cls, session_id: str, underlying_session: Session, encryption_key: str, ttl: int = ...
    ) -> EncryptedSession: ...
    def __new__(
        cls,
        session_id: str,
        underlying_session: Session,
        encryption_key: str,
        ttl: int = 600,
    ) -> EncryptedSession:
        # Paused runs are kept only where the wrapped session keeps them: the runner
        # tells a RunSession by its methods.
        del session_id, encryption_key, ttl
        if cls is EncryptedSession and isinstance(underlying_session, RunSession):
            return object.__new__(_EncryptedRunSession)
        return object.__new__(cls)

    def __init__(
        self,
        session_id: str,
        underlying_session: Session,
        encryption_key: str,
        ttl: int = 600,
    ) -> None:
        given: object = ttl
        # Fernet counts whole seconds: a float would be truncated, and inf breaks every read.
        if type(given) is not int or ttl <= 0:
            raise UserError(
                f"EncryptedSession(ttl={given!r}): the time to live is a positive whole number "
                "of seconds (an int) an item stays readable after it was written, "
                "e.g. ttl=600"
            )
        self.session_id = session_id
        """The conversation this session stores."""
        self.underlying_session = underlying_session
        """The session the envelopes are stored in."""
        self.ttl = ttl
        """How long an item reads after it was written, in seconds."""
        self._cipher = _session_cipher(_master_key(encryption_key), session_id)

    @property
    def session_settings(self) -> SessionSettings:
        """The wrapped session's settings (`limit` counts the items that still read)."""
        settings = getattr(self.underlying_session, "session_settings", None)
        return settings if isinstance(settings, SessionSettings) else SessionSettings()

    async def get_items(self, limit: int | None = None) -> list[Item]:
        """The items that still read, oldest first.

        Args:
            limit: Return only the last `limit` of them. None returns every one, or the
                last `session_settings.limit` when that is set.

        Returns:
            The decrypted items.
        """
        wanted = self.session_settings.limit if limit is None else limit
        if wanted is None:
            return self._open_all(await self.underlying_session.get_items())
        if wanted <= 0:
            return []
        window = wanted
        while True:  # unreadable envelopes in the window: look further back
            stored = await self.underlying_session.get_items(window)
            items = self._open_all(stored)
            if len(items) >= wanted or len(stored) < window:
                return items[-wanted:]
            window *= 2

    async def add_items(self, items: list[Item]) -> None:
        """Encrypt items and append them to the wrapped session.

        Args:
            items: The items to append, in order.
        """
        await self.underlying_session.add_items(self._seal_all(items))

    async def pop_item(self) -> Item | None:
        """Remove the newest item; envelopes that no longer read are removed on the way.

        Returns:
            The newest item that still reads, or None if there is none.
        """
        while True:
            stored = await self.underlying_session.pop_item()
            if stored is None:
                return None
            item = self._open(stored)
            if item is not None:
                return item

    async def clear_session(self) -> None:
        """Remove every item (and a paused run's state) from the wrapped session."""
        await self.underlying_session.clear_session()

    def _seal(self, item: Item) -> Item:
        text = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
        token = self._cipher.encrypt(text.encode()).decode()
        envelope: EncryptedEnvelope = {
            "__enc__": 1,
            "v": _VERSION,
            "kid": _KEY_ID,
            "payload": token,
        }
        return cast(Item, envelope)

    def _seal_all(self, items: list[Item]) -> list[Item]:
        if not isinstance(items, list):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(
                f"Session {self.session_id!r}: items must be a list of item dicts, "
                f"not {type(items).__name__}"
            )
        try:
            return [self._seal(item) for item in items]
        except (TypeError, ValueError) as error:
            raise UserError(
                f"Session {self.session_id!r}: an item cannot be stored as JSON ({error}); "
                "session items hold only JSON values. Nothing was stored"
            ) from error

    def _open(self, stored: object, *, expires: bool = True) -> Item | None:
        """The item an envelope holds, or None if it does not read (expired, other key).

        `expires=False` reads it however old it is: a paused run's state waits for an
        approval as long as it takes.
        """
        if not _is_envelope(stored):
            return None
        try:
            ttl = self.ttl if expires else None
            plain = self._cipher.decrypt(stored["payload"].encode(), ttl=ttl)
            item: Any = json.loads(plain)
        except (InvalidToken, ValueError):
            return None
        return cast(Item, item) if isinstance(item, dict) else None

    def _open_all(self, stored: list[Item]) -> list[Item]:
        return [item for item in map(self._open, stored) if item is not None]


class _EncryptedRunSession(EncryptedSession, WrappedRunSession):
    """An `EncryptedSession` over a `RunSession`: paused runs kept, encrypted, and claims."""

    underlying_session: RunSession

    async def add_turn(self, items: list[Item], *, paused_state: str | None) -> None:
        """Encrypt a turn's items and the paused run's state, and store them in one transaction.

        Args:
            items: The items to append, in order.
            paused_state: The paused run's serialised state, or None to clear it.
        """
        state = check_paused_state(self.session_id, paused_state)
        sealed = None if state is None else self._seal({"state": state})
        await self.underlying_session.add_turn(
            self._seal_all(items), paused_state=None if sealed is None else json.dumps(sealed)
        )

    async def get_paused_state(self) -> str | None:
        """The paused run's state, if one is stored and reads with this key.

        The state does not expire with `ttl`: an approval may wait longer than the items
        live, and the state is dropped anyway when the run resumes or is cleared.

        Returns:
            The state's JSON text, or None.
        """
        stored = await self.underlying_session.get_paused_state()
        if stored is None:
            return None
        try:
            opened = self._open(json.loads(stored), expires=False)
        except ValueError:
            return None
        state = opened.get("state") if opened is not None else None
        return state if isinstance(state, str) else None
