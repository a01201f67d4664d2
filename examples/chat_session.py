"""A conversation kept in a session over two runs, one of them paused for approval.

Run with:
    python examples/chat_session.py

or chat with the same agent in a terminal:
    tooluse chat examples/chat_session.py --session demo

Uses OpenAI when OPENAI_API_KEY is set, else tooluse.testing.TestModel (which calls
each tool once, then sums up what they returned).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from tooluse import Agent, Runner, function_tool
from tooluse.models import Model
from tooluse.sessions import SQLiteSession
from tooluse.testing import TestModel


@function_tool
def list_files(folder: str) -> str:
    """List the files in a folder.

    Args:
        folder: The folder to list.
    """
    return f"{folder}: notes.txt, old.log"


@function_tool(needs_approval=True)
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: The file to delete.
    """
    return f"deleted {path}"


def pick_model() -> str | Model:
    return "gpt-4.1-mini" if os.environ.get("OPENAI_API_KEY") else TestModel()


agent = Agent(
    "janitor",
    instructions="Help the user tidy their files. Ask before deleting anything.",
    tools=[list_files, delete_file],
    model=pick_model(),
)


async def main() -> None:
    if os.environ.get("OPENAI_API_KEY"):
        print("Using OpenAI (OPENAI_API_KEY is set).")
    else:
        print("No OPENAI_API_KEY: using tooluse.testing.TestModel, which calls each tool once.")
    with tempfile.TemporaryDirectory() as folder:
        session = SQLiteSession("demo", Path(folder) / "sessions.db")
        try:
            await converse(session)
        finally:
            session.close()


async def converse(session: SQLiteSession) -> None:
    # Run 1 pauses: delete_file waits for a human; the session keeps the paused run.
    first = await Runner.run(agent, "Tidy up my home folder.", session=session)
    for call in first.interruptions:
        print(f"waiting for approval: {call.tool_name}({call.arguments})")

    # Later (another process could do this): find the paused run in the session.
    state = await session.get_paused_run()
    print(f"the session holds a paused run: {state is not None}")
    assert state is not None
    for call in state.get_interruptions():
        state.approve(call)
    resumed = await Runner.run(agent, state, session=session)
    print(f"run 1 answer: {resumed.final_output}")

    # Run 2 starts from the stored history: the model sees run 1's calls and outputs,
    # and answers the new message (TestModel calls each tool again; delete_file waits).
    second = await Runner.run(agent, "Tidy up once more.", session=session)
    for call in second.interruptions:
        second.reject(call, rejection_message="Not twice.")
    second = await Runner.run(agent, second.to_state(), session=session)
    print(f"run 2 answer: {second.final_output}")
    items = await session.get_items()
    print(f"the session holds {len(items)} items")


if __name__ == "__main__":
    asyncio.run(main())
