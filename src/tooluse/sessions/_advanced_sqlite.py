"""`AdvancedSQLiteSession`: a `SQLiteSession` with turns, usage by turn, and branches.

Beside each stored item, a row of `message_structure` says which branch it belongs to,
its place there, its user turn (a user message starts one) and the tool it calls; a
row of `turn_usage` holds what a turn's run spent (`store_run_usage`). These are
openai-agents' tables and columns, so either SDK reads what the other wrote.

A branch begins as a copy of another's turns before a given one (the items
themselves are shared, not copied); the session object reads and writes its current
branch, `"main"` at first.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import time
from typing import Any

from ..core._context import Usage
from ..exceptions import UserError
from ._sqlite import SQLiteSession

__all__ = ["AdvancedSQLiteSession"]

_MAIN = "main"
_TOOL_ITEM_TYPES = frozenset(
    {
        "computer_call",
        "file_search_call",
        "web_search_call",
        "code_interpreter_call",
        "shell_call",
        "apply_patch_call",
    }
)
"""Calls with no `name`: their type names the tool."""
_CALL_TYPES = (
    "function_call",
    "custom_tool_call",
    "mcp_call",
    "mcp_approval_request",
    "local_shell_call",
    *sorted(_TOOL_ITEM_TYPES),
)
"""The items that are a use of a tool (outputs are not)."""


def _message_type(item: dict[str, Any]) -> str:
    role = item.get("role")
    if role in ("user", "assistant"):
        return str(role)
    return str(item.get("type") or "other")


def _tool_name(item: dict[str, Any]) -> str | None:
    kind = item.get("type")
    if kind in ("mcp_call", "mcp_approval_request") and item.get("server_label"):
        name = item.get("name")
        return f"{item['server_label']}.{name}" if name else str(item["server_label"])
    if kind in _TOOL_ITEM_TYPES:
        return str(kind)
    name = item.get("name")
    return None if name is None else str(name)


def _content_of(text: str) -> str:
    try:
        content: object = json.loads(text).get("content", "")
    except (ValueError, AttributeError):
        return ""
    return content if isinstance(content, str) else json.dumps(content)


class AdvancedSQLiteSession(SQLiteSession):
    """A `SQLiteSession` that knows its turns, what each cost, and its branches.

    Args:
        session_id: The conversation's id.
        db_path: The database file, or `":memory:"` (the default).
        create_tables: openai-agents' flag; the tables are created if missing either way.
        logger: openai-agents' argument, unused: errors are raised, not logged.
        **kwargs: `SQLiteSession`'s other arguments (table names, `session_settings`,
            `lease_seconds`).
    """

    def __init__(
        self,
        *,
        session_id: str,
        db_path: str | os.PathLike[str] = ":memory:",
        create_tables: bool = False,
        logger: Any = None,
        **kwargs: Any,
    ) -> None:
        del create_tables, logger
        super().__init__(session_id, db_path, **kwargs)
        self._branch = _MAIN

    @property
    def current_branch_id(self) -> str:
        """The branch this object reads and writes."""
        return self._branch

    # -- usage ------------------------------------------------------------------------

    async def store_run_usage(self, result: Any) -> None:
        """Record what a run spent against the current turn of the current branch.

        Args:
            result: The run's result (its `context_wrapper.usage` is read).
        """
        usage: Usage = result.context_wrapper.usage
        row = (
            self.session_id,
            self._branch,
            usage.requests,
            usage.input_tokens,
            usage.output_tokens,
            usage.total_tokens,
            json.dumps(dataclasses.asdict(usage.input_tokens_details)),
            json.dumps(dataclasses.asdict(usage.output_tokens_details)),
        )
        await self._run(lambda connection: self._write(connection, self._store_usage, row))

    def _store_usage(self, connection: sqlite3.Connection, row: tuple[Any, ...]) -> None:
        turn = self._current_turn(connection, self._branch)
        connection.execute(
            "INSERT INTO turn_usage (session_id, branch_id, user_turn_number, requests, "
            "input_tokens, output_tokens, total_tokens, input_tokens_details, "
            "output_tokens_details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (session_id, branch_id, user_turn_number) DO UPDATE SET "
            "requests = excluded.requests, input_tokens = excluded.input_tokens, "
            "output_tokens = excluded.output_tokens, total_tokens = excluded.total_tokens, "
            "input_tokens_details = excluded.input_tokens_details, "
            "output_tokens_details = excluded.output_tokens_details",
            (*row[:2], turn, *row[2:]),
        )

    async def get_session_usage(self, branch_id: str | None = None) -> dict[str, int] | None:
        """The usage recorded, summed over turns.

        Args:
            branch_id: One branch's usage; None for every branch's.

        Returns:
            `requests`, `input_tokens`, `output_tokens`, `total_tokens` and `total_turns`,
            or None if no usage is recorded.
        """
        where, arguments = "session_id = ?", [self.session_id]
        if branch_id is not None:
            where, arguments = where + " AND branch_id = ?", [*arguments, branch_id]
        sql = (
            "SELECT SUM(requests), SUM(input_tokens), SUM(output_tokens), SUM(total_tokens), "
            f"COUNT(*) FROM turn_usage WHERE {where}"
        )
        row = await self._run(lambda connection: connection.execute(sql, arguments).fetchone())
        if row is None or row[0] is None:
            return None
        names = ("requests", "input_tokens", "output_tokens", "total_tokens", "total_turns")
        return dict(zip(names, (int(value or 0) for value in row), strict=True))

    async def get_turn_usage(
        self, user_turn_number: int | None = None, branch_id: str | None = None
    ) -> list[dict[str, Any]] | dict[str, Any]:
        """The usage recorded for each turn of a branch, or for one turn.

        Args:
            user_turn_number: One turn's usage (an empty dict if none is recorded).
            branch_id: The branch; None for the current one.

        Returns:
            Dicts of `user_turn_number`, `requests`, the token counts and their details.
        """
        sql = (
            "SELECT user_turn_number, requests, input_tokens, output_tokens, total_tokens, "
            "input_tokens_details, output_tokens_details FROM turn_usage "
            "WHERE session_id = ? AND branch_id = ? ORDER BY user_turn_number"
        )
        arguments = (self.session_id, branch_id or self._branch)
        rows = await self._run(lambda connection: connection.execute(sql, arguments).fetchall())
        turns = [_turn_usage(row) for row in rows]
        if user_turn_number is None:
            return turns
        found = [turn for turn in turns if turn["user_turn_number"] == user_turn_number]
        if not found:
            return {}
        return {key: value for key, value in found[0].items() if key != "user_turn_number"}

    # -- turns --------------------------------------------------------------------------

    async def get_conversation_turns(self, branch_id: str | None = None) -> list[dict[str, Any]]:
        """The user messages of a branch, each the start of a turn one may branch from.

        Args:
            branch_id: The branch; None for the current one.

        Returns:
            Dicts of `turn`, `content` (at most 100 characters), `full_content`,
            `timestamp` and `can_branch`.
        """
        rows = await self._user_messages(branch_id or self._branch)
        return [
            {
                "turn": turn,
                "content": _preview(content, 100),
                "full_content": content,
                "timestamp": created_at,
                "can_branch": True,
            }
            for turn, content, created_at in rows
        ]

    async def find_turns_by_content(
        self, search_term: str, branch_id: str | None = None
    ) -> list[dict[str, Any]]:
        """The turns whose user message contains a text.

        Args:
            search_term: The text to find.
            branch_id: The branch; None for the current one.

        Returns:
            Dicts of `turn`, `content`, `full_content`, `timestamp`, `can_branch`.
        """
        turns = await self.get_conversation_turns(branch_id)
        return [turn for turn in turns if search_term in turn["full_content"]]

    async def get_conversation_by_turns(
        self, branch_id: str | None = None
    ) -> dict[int, list[dict[str, str | None]]]:
        """Each turn's items, as their type and the tool they concern.

        Args:
            branch_id: The branch; None for the current one.

        Returns:
            `{turn: [{"type": ..., "tool_name": ...}, ...]}`, turns in order.
        """
        sql = (
            "SELECT branch_turn_number, message_type, tool_name FROM message_structure "
            "WHERE session_id = ? AND branch_id = ? ORDER BY sequence_number"
        )
        arguments = (self.session_id, branch_id or self._branch)
        rows = await self._run(lambda connection: connection.execute(sql, arguments).fetchall())
        turns: dict[int, list[dict[str, str | None]]] = {}
        for turn, kind, tool in rows:
            turns.setdefault(turn, []).append({"type": kind, "tool_name": tool})
        return turns

    async def get_tool_usage(self, branch_id: str | None = None) -> list[tuple[str, int, int]]:
        """How many times each tool was called, by turn.

        Args:
            branch_id: The branch; None for the current one.

        Returns:
            `(tool_name, count, turn)` tuples, by turn.
        """
        sql = (
            "SELECT tool_name, COUNT(*), branch_turn_number FROM message_structure "
            "WHERE session_id = ? AND branch_id = ? AND tool_name IS NOT NULL "
            f"AND message_type IN ({', '.join('?' * len(_CALL_TYPES))}) "
            "GROUP BY tool_name, branch_turn_number ORDER BY branch_turn_number, tool_name"
        )
        arguments = (self.session_id, branch_id or self._branch, *_CALL_TYPES)
        rows = await self._run(lambda connection: connection.execute(sql, arguments).fetchall())
        return [(str(name), int(count), int(turn)) for name, count, turn in rows]

    # -- branches -----------------------------------------------------------------------

    async def create_branch_from_turn(
        self, turn_number: int, branch_name: str | None = None
    ) -> str:
        """Start a branch holding the current branch's turns before `turn_number`, and switch to it.

        Args:
            turn_number: The turn (of a user message) the branch replaces.
            branch_name: The branch's id; None makes `branch_from_turn_<n>_<unix time>`.

        Returns:
            The new branch's id.

        Raises:
            UserError: The turn has no user message, or the name is empty or taken.
        """
        if branch_name is not None and not branch_name.strip():
            raise UserError(
                "create_branch_from_turn(branch_name=''): give the branch a name, or None "
                "for a generated one"
            )
        name = branch_name or f"branch_from_turn_{turn_number}_{int(time.time())}"
        created = await self._run(
            lambda connection: self._write(connection, self._copy_branch, turn_number, name)
        )
        self._branch = created
        return created

    async def create_branch_from_content(
        self, search_term: str, branch_name: str | None = None
    ) -> str:
        """Start a branch before the first turn whose user message contains a text.

        Args:
            search_term: The text to find.
            branch_name: The branch's id; None for a generated one.

        Returns:
            The new branch's id.

        Raises:
            UserError: No turn's user message contains the text.
        """
        found = await self.find_turns_by_content(search_term)
        if not found:
            raise UserError(
                f"create_branch_from_content: no user message of branch {self._branch!r} "
                f"contains {search_term!r}; see get_conversation_turns() for them"
            )
        return await self.create_branch_from_turn(found[0]["turn"], branch_name)

    async def switch_to_branch(self, branch_id: str) -> None:
        """Read and write another branch from now on.

        Args:
            branch_id: The branch (`"main"`, or one `list_branches()` lists).

        Raises:
            UserError: No such branch.
        """
        branches = [branch["branch_id"] for branch in await self.list_branches()]
        if branch_id != _MAIN and branch_id not in branches:
            raise UserError(
                f"switch_to_branch({branch_id!r}): session {self.session_id!r} has no such "
                f"branch; its branches are {', '.join(branches) or _MAIN}"
            )
        self._branch = branch_id

    async def delete_branch(self, branch_id: str, force: bool = False) -> None:
        """Delete a branch's structure, usage and the items no other branch shares.

        Args:
            branch_id: The branch.
            force: Delete the current branch too (the session switches to `"main"`).

        Raises:
            UserError: It is `"main"`, or the current branch without `force`.
        """
        if branch_id == _MAIN:
            raise UserError("delete_branch('main'): the main branch cannot be deleted")
        if branch_id == self._branch and not force:
            raise UserError(
                f"delete_branch({branch_id!r}): it is the current branch; switch to another "
                "first, or pass force=True"
            )
        await self._run(lambda connection: self._write(connection, self._drop_branch, branch_id))
        if branch_id == self._branch:
            self._branch = _MAIN

    async def list_branches(self) -> list[dict[str, Any]]:
        """The session's branches, oldest first (by the second of their first item, then name).

        Returns:
            Dicts of `branch_id`, `message_count`, `user_turns`, `is_current` and
            `created_at`.
        """
        sql = (
            "SELECT branch_id, COUNT(*), SUM(message_type = 'user'), MIN(created_at) "
            "FROM message_structure WHERE session_id = ? GROUP BY branch_id "
            "ORDER BY MIN(created_at), branch_id"
        )
        arguments = (self.session_id,)
        rows = await self._run(lambda connection: connection.execute(sql, arguments).fetchall())
        return [
            {
                "branch_id": branch,
                "message_count": count,
                "user_turns": int(users or 0),
                "is_current": branch == self._branch,
                "created_at": created_at,
            }
            for branch, count, users, created_at in rows
        ]

    # -- SQL, run in a worker thread ------------------------------------------------------

    def _create_tables(self, connection: sqlite3.Connection) -> None:
        super()._create_tables(connection)
        connection.execute(
            "CREATE TABLE IF NOT EXISTS message_structure ("
            "id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, "
            "message_id INTEGER NOT NULL, branch_id TEXT NOT NULL DEFAULT 'main', "
            "message_type TEXT NOT NULL, sequence_number INTEGER NOT NULL, "
            "user_turn_number INTEGER, branch_turn_number INTEGER, tool_name TEXT, "
            "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
            f"FOREIGN KEY (session_id) REFERENCES {self._sessions}(session_id) "
            "ON DELETE CASCADE, "
            f"FOREIGN KEY (message_id) REFERENCES {self._messages}(id) ON DELETE CASCADE)"
        )
        connection.execute(
            "CREATE TABLE IF NOT EXISTS turn_usage ("
            "id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, "
            "branch_id TEXT NOT NULL DEFAULT 'main', user_turn_number INTEGER NOT NULL, "
            "requests INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0, "
            "output_tokens INTEGER DEFAULT 0, total_tokens INTEGER DEFAULT 0, "
            "input_tokens_details JSON, output_tokens_details JSON, "
            "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
            f"FOREIGN KEY (session_id) REFERENCES {self._sessions}(session_id) "
            "ON DELETE CASCADE, "
            "UNIQUE(session_id, branch_id, user_turn_number))"
        )
        connection.execute(
            "CREATE INDEX IF NOT EXISTS idx_structure_branch_seq "
            "ON message_structure(session_id, branch_id, sequence_number)"
        )

    def _insert(self, connection: sqlite3.Connection, texts: list[str]) -> None:
        super()._insert(connection, texts)
        if not texts:
            return
        ids = connection.execute(
            f"SELECT id FROM {self._messages} WHERE session_id = ? ORDER BY id DESC LIMIT ?",
            (self.session_id, len(texts)),
        ).fetchall()[::-1]
        sequence = self._last_sequence(connection)
        turn = self._current_turn(connection, self._branch)
        rows: list[tuple[object, ...]] = []
        for offset, ((message_id,), text) in enumerate(zip(ids, texts, strict=True), 1):
            item: dict[str, Any] = json.loads(text)
            kind = _message_type(item)
            turn += kind == "user"
            place = (sequence + offset, turn, turn)
            rows.append((self.session_id, message_id, self._branch, kind, *place, _tool_name(item)))
        connection.executemany(
            "INSERT INTO message_structure (session_id, message_id, branch_id, message_type, "
            "sequence_number, user_turn_number, branch_turn_number, tool_name) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    def _select_items(
        self, connection: sqlite3.Connection, limit: int | None
    ) -> list[tuple[int, str]]:
        sql = (
            f"SELECT m.id, m.message_data FROM message_structure s JOIN {self._messages} m "
            "ON s.message_id = m.id WHERE s.session_id = ? AND s.branch_id = ? "
            "ORDER BY s.sequence_number DESC"
        )
        arguments: tuple[object, ...] = (self.session_id, self._branch)
        if limit is not None:
            sql, arguments = sql + " LIMIT ?", (*arguments, limit)
        return connection.execute(sql, arguments).fetchall()[::-1]

    def _delete_newest(self, connection: sqlite3.Connection) -> tuple[int, str] | None:
        newest = self._select_items(connection, 1)
        if not newest:
            return None
        message_id = newest[0][0]
        connection.execute(
            "DELETE FROM message_structure WHERE session_id = ? AND branch_id = ? "
            "AND message_id = ?",
            (self.session_id, self._branch, message_id),
        )
        connection.execute(  # the item itself goes only when no other branch holds it
            f"DELETE FROM {self._messages} WHERE id = ? AND NOT EXISTS (SELECT 1 FROM "
            "message_structure WHERE session_id = ? AND message_id = ?)",
            (message_id, self.session_id, message_id),
        )
        return newest[0]

    def _clear(self, connection: sqlite3.Connection) -> None:
        super()._clear(connection)
        for table in ("message_structure", "turn_usage"):
            connection.execute(f"DELETE FROM {table} WHERE session_id = ?", (self.session_id,))
        self._branch = _MAIN

    def _copy_branch(self, connection: sqlite3.Connection, turn: int, name: str) -> str:
        taken = connection.execute(
            "SELECT 1 FROM message_structure WHERE session_id = ? AND branch_id = ? LIMIT 1",
            (self.session_id, name),
        ).fetchone()
        if taken is not None or name == _MAIN:
            raise UserError(
                f"create_branch_from_turn(branch_name={name!r}): session {self.session_id!r} "
                "has a branch of that name already; choose another, or None"
            )
        starts = connection.execute(
            "SELECT 1 FROM message_structure WHERE session_id = ? AND branch_id = ? "
            "AND branch_turn_number = ? AND message_type = 'user'",
            (self.session_id, self._branch, turn),
        ).fetchone()
        if starts is None:
            raise UserError(
                f"create_branch_from_turn({turn}): turn {turn} of branch {self._branch!r} "
                "has no user message; get_conversation_turns() lists the turns"
            )
        rows = connection.execute(
            "SELECT message_id, message_type, user_turn_number, branch_turn_number, tool_name "
            "FROM message_structure WHERE session_id = ? AND branch_id = ? "
            "AND branch_turn_number < ? ORDER BY sequence_number",
            (self.session_id, self._branch, turn),
        ).fetchall()
        sequence = self._last_sequence(connection)
        connection.executemany(
            "INSERT INTO message_structure (session_id, message_id, branch_id, message_type, "
            "sequence_number, user_turn_number, branch_turn_number, tool_name) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (self.session_id, row[0], name, row[1], sequence + offset, *row[2:])
                for offset, row in enumerate(rows, 1)
            ],
        )
        return name

    def _drop_branch(self, connection: sqlite3.Connection, branch_id: str) -> None:
        for table in ("message_structure", "turn_usage"):
            connection.execute(
                f"DELETE FROM {table} WHERE session_id = ? AND branch_id = ?",
                (self.session_id, branch_id),
            )
        self._drop_unshared(connection)

    def _drop_unshared(self, connection: sqlite3.Connection) -> None:
        """Delete the items no branch holds any more."""
        connection.execute(
            f"DELETE FROM {self._messages} WHERE session_id = ? AND id NOT IN "
            "(SELECT message_id FROM message_structure WHERE session_id = ?)",
            (self.session_id, self.session_id),
        )

    def _last_sequence(self, connection: sqlite3.Connection) -> int:
        row = connection.execute(
            "SELECT COALESCE(MAX(sequence_number), 0) FROM message_structure WHERE session_id = ?",
            (self.session_id,),
        ).fetchone()
        return int(row[0])

    def _current_turn(self, connection: sqlite3.Connection, branch: str) -> int:
        row = connection.execute(
            "SELECT COALESCE(MAX(branch_turn_number), 0) FROM message_structure "
            "WHERE session_id = ? AND branch_id = ?",
            (self.session_id, branch),
        ).fetchone()
        return int(row[0])

    async def _user_messages(self, branch: str) -> list[tuple[int, str, str]]:
        sql = (
            f"SELECT s.branch_turn_number, m.message_data, s.created_at FROM message_structure s "
            f"JOIN {self._messages} m ON s.message_id = m.id WHERE s.session_id = ? "
            "AND s.branch_id = ? AND s.message_type = 'user' ORDER BY s.branch_turn_number"
        )
        arguments = (self.session_id, branch)
        rows = await self._run(lambda connection: connection.execute(sql, arguments).fetchall())
        return [(int(turn), _content_of(text), created) for turn, text, created in rows]


def _preview(content: str, size: int) -> str:
    return content[:size] + "..." if len(content) > size else content


def _turn_usage(row: tuple[Any, ...]) -> dict[str, Any]:
    names = ("user_turn_number", "requests", "input_tokens", "output_tokens", "total_tokens")
    usage: dict[str, Any] = dict(zip(names, row[:5], strict=True))
    for name, text in zip(("input_tokens_details", "output_tokens_details"), row[5:], strict=True):
        usage[name] = json.loads(text) if text else None
    return usage
