"""Sessions: a conversation's history, kept in a database between runs.

A session stores the items of a conversation, so the next run on it starts where
the last one ended, and, for a run paused on an approval, that run's state:

```python
from tooluse.sessions import SQLiteSession

session = SQLiteSession("user-42", "conversations.db")
await session.add_items([{"role": "user", "content": "Hi"}])
await session.get_items()        # oldest first; get_items(limit=10) for the last 10
await session.pop_item()         # removes and returns the newest item
await session.clear_session()    # items and paused state
session.close()
```

- `Session` is the protocol (openai-agents' names: `get_items`, `add_items`,
  `pop_item`, `clear_session`); implement it to keep conversations anywhere.
- `RunSession` adds what the runner uses when a session offers it: `add_turn`
  (a turn's items and the paused run's state in one transaction, so a session
  never holds half a turn), `get_paused_state`, and `claim()`, an exclusive hold
  on the session id for one run at a time (`SessionBusyError` for a second).
- `SQLiteSession` is the embedded default, on the standard library's `sqlite3`:
  in memory, or in a file that many sessions and processes can share.
- `AdvancedSQLiteSession` is a `SQLiteSession` that also records each turn's items
  and usage (`store_run_usage(result)`) and branches a conversation from any turn.
- `EncryptedSession` wraps any of them: items stored encrypted (Fernet, a key derived
  per session as openai-agents derives it) and readable for a time to live, with
  `pip install 'tooluse[encrypt]'` (imported when first used).
- `OpenAIResponsesCompactionSession` wraps any of them too: once a run's turn is
  stored and its trigger says so (10 items past the user's messages, by default),
  the history is replaced with what OpenAI's `responses.compact` makes of it.
- `tooluse.sessions.sqlalchemy.SQLAlchemySession` does the same over any
  SQLAlchemy async engine (PostgreSQL, MySQL, SQLite), with
  `pip install 'tooluse[sqlalchemy]'`.

Both use openai-agents' tables (`agent_sessions`, `agent_messages`) beside
their own `agent_session_runs`, so they read and extend a history that SDK
wrote. A claim lasts `lease_seconds` (30) and is renewed while the run goes on;
a claim whose process was killed on the same host is taken over at once, one
on another host once it expires.

Imports: `core` and `exceptions`, and `models` for the one call the compaction session
makes: a store keeps items and states, knowing nothing of agents or the run loop
(`run` uses sessions).
"""

from typing import TYPE_CHECKING, Any

from ._advanced_sqlite import AdvancedSQLiteSession
from ._protocol import RunSession, Session, SessionBusyError, SessionSettings
from ._responses_compaction import OpenAIResponsesCompactionArgs, OpenAIResponsesCompactionSession
from ._sqlite import SQLiteSession

if TYPE_CHECKING:
    from ._encrypted import EncryptedEnvelope, EncryptedSession

__all__ = [
    "AdvancedSQLiteSession",
    "EncryptedEnvelope",
    "EncryptedSession",
    "OpenAIResponsesCompactionArgs",
    "OpenAIResponsesCompactionSession",
    "RunSession",
    "SQLiteSession",
    "Session",
    "SessionBusyError",
    "SessionSettings",
]

_ENCRYPTED = frozenset({"EncryptedEnvelope", "EncryptedSession"})
"""Names of `_encrypted`, which imports `cryptography` (an extra): loaded when first used."""


def __getattr__(name: str) -> Any:
    if name in _ENCRYPTED:
        from . import _encrypted  # noqa: PLC0415 - see _ENCRYPTED

        return getattr(_encrypted, name)
    raise AttributeError(f"module 'tooluse.sessions' has no attribute {name!r}")
