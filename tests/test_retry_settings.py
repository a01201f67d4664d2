"""`ModelSettings(retry=ModelRetrySettings(...))`: openai-agents' retry settings, read by the run.

Runs go through the real `openai` client to the local scripted server, which answers
with the statuses a test scripts and counts the requests it receives.
"""

from __future__ import annotations

from typing import Any

import pytest

from tooluse import (
    Agent,
    ModelRetryBackoffSettings,
    ModelRetrySettings,
    ModelSettings,
    RetryDecision,
    RetryPolicy,
    RetryPolicyContext,
    RunConfig,
    Runner,
    retry_policies,
)
from tooluse.exceptions import ModelAPIError, UserError

from .openai_server import ScriptedServer, Turn
from .test_retries import RetryLog

FAST = {"initial_delay": 0.001, "max_delay": 0.004, "jitter": False}
"""A backoff fast enough for tests, without jitter."""

both = pytest.mark.parametrize("api", ["responses", "chat"])


async def run(agent: Agent[Any], streamed: bool, config: RunConfig | None = None) -> object:
    if not streamed:
        return (await Runner.run(agent, "hi", run_config=config)).final_output
    result = Runner.run_streamed(agent, "hi", run_config=config)
    async for _ in result.stream_events():
        pass
    return result.final_output


@both
@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_the_policy_function_decides_and_sees_each_failure(
    openai_server: ScriptedServer, api: str, streamed: bool
) -> None:
    openai_server.script(Turn(status=503), Turn(status=429), Turn(text="ok"))
    seen: list[tuple[int, int, int | None, bool]] = []

    async def policy(context: RetryPolicyContext) -> bool:
        normalized = context.normalized
        seen.append((context.attempt, context.max_retries, normalized.status_code, context.stream))
        return True

    retry = ModelRetrySettings(max_retries=4, backoff=FAST, policy=policy)
    agent = Agent("a", model=openai_server.model(api), model_settings=ModelSettings(retry=retry))
    assert await run(agent, streamed) == "ok"
    assert seen == [(1, 4, 503, streamed), (2, 4, 429, streamed)]
    assert len(openai_server.requests) == 3
    assert all("retry" not in request for request in openai_server.requests)  # never sent


@both
async def test_a_policy_saying_no_stops_at_the_first_failure(
    openai_server: ScriptedServer, api: str
) -> None:
    openai_server.script(Turn(status=503), Turn(text="ok"))
    retry = ModelRetrySettings(max_retries=3, policy=lambda _context: False)
    agent = Agent("a", model=openai_server.model(api), model_settings=ModelSettings(retry=retry))
    with pytest.raises(ModelAPIError) as raised:
        await run(agent, False)
    assert raised.value.status_code == 503
    assert len(openai_server.requests) == 1


async def test_a_policy_may_retry_what_the_run_would_not(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(status=400), Turn(text="ok"))
    retry = ModelRetrySettings(policy=retry_policies.http_status([400]), backoff=FAST)
    agent = Agent("a", model=openai_server.model("responses"))
    config = RunConfig(model_settings=ModelSettings(retry=retry))
    assert await run(agent, False, config) == "ok"
    assert len(openai_server.requests) == 2


async def test_max_retries_bounds_the_policy(openai_server: ScriptedServer) -> None:
    openai_server.script(*(Turn(status=500) for _ in range(4)), Turn(text="ok"))
    calls: list[int] = []

    def policy(context: RetryPolicyContext) -> bool:
        calls.append(context.attempt)
        return True

    retry = ModelRetrySettings(max_retries=2, backoff=FAST, policy=policy)
    agent = Agent("a", model=openai_server.model("chat"), model_settings=ModelSettings(retry=retry))
    with pytest.raises(ModelAPIError):
        await run(agent, False)
    assert calls == [1, 2]  # not asked after the last retry
    assert len(openai_server.requests) == 3


async def test_without_a_policy_the_settings_tune_the_runs_own(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(Turn(status=500), Turn(status=400), Turn(text="ok"))
    agent = Agent(
        "a",
        model=openai_server.model("responses"),
        model_settings=ModelSettings(retry=ModelRetrySettings(max_retries=5, backoff=FAST)),
    )
    with pytest.raises(ModelAPIError) as raised:  # 500 retried, 400 not: the run's statuses
        await run(agent, False)
    assert raised.value.status_code == 400
    assert len(openai_server.requests) == 2


async def test_max_retries_0_makes_one_request(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(status=503), Turn(text="ok"))
    retry = ModelRetrySettings(max_retries=0, policy=lambda _context: True)
    agent = Agent("a", model=openai_server.model("responses"))
    with pytest.raises(ModelAPIError):
        await run(agent, False, RunConfig(model_settings=ModelSettings(retry=retry)))
    assert len(openai_server.requests) == 1


async def test_the_decisions_delay_is_waited(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(status=503, headers={"Retry-After": "30"}), Turn(text="ok"))
    hooks = RetryLog()
    retry = ModelRetrySettings(
        max_retries=1, policy=lambda _context: RetryDecision(retry=True, delay=0.003)
    )
    agent = Agent("a", model=openai_server.model("responses"))
    config = RunConfig(model_settings=ModelSettings(retry=retry))
    assert (await Runner.run(agent, "hi", run_config=config, hooks=hooks)).final_output
    assert [delay for _, _, delay in hooks.retries] == [
        0.003
    ]  # the decision's, not the server's 30 s


@pytest.mark.parametrize(
    ("policy", "retried"),
    [
        (retry_policies.any(retry_policies.http_status([418]), retry_policies.retry_after()), True),
        (retry_policies.any(retry_policies.provider_suggested(), retry_policies.never()), True),
        (retry_policies.all(retry_policies.http_status([503]), retry_policies.retry_after()), True),
        (
            retry_policies.all(retry_policies.http_status([503]), retry_policies.network_error()),
            False,
        ),
        (retry_policies.all(), False),
        (retry_policies.any(), False),
    ],
    ids=["any-retry-after", "any-provider", "all-yes", "all-no", "all-empty", "any-empty"],
)
async def test_the_built_rules_combine(
    openai_server: ScriptedServer, policy: object, retried: bool
) -> None:
    openai_server.script(Turn(status=503, headers={"Retry-After": "0.001"}), Turn(text="ok"))
    retry = ModelRetrySettings(max_retries=1, backoff=FAST, policy=policy)  # type: ignore[arg-type]
    agent = Agent("a", model=openai_server.model("responses"))
    config = RunConfig(model_settings=ModelSettings(retry=retry))
    if retried:
        assert await run(agent, False, config) == "ok"
    else:
        with pytest.raises(ModelAPIError):
            await run(agent, False, config)
    assert len(openai_server.requests) == (2 if retried else 1)


async def test_the_providers_no_is_final(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(status=503, headers={"x-should-retry": "false"}), Turn(text="ok"))
    policy = retry_policies.any(
        retry_policies.provider_suggested(), retry_policies.http_status([503])
    )
    retry = ModelRetrySettings(max_retries=2, backoff=FAST, policy=policy)
    agent = Agent("a", model=openai_server.model("responses"))
    with pytest.raises(ModelAPIError):
        await run(agent, False, RunConfig(model_settings=ModelSettings(retry=retry)))
    assert len(openai_server.requests) == 1


async def test_a_dropped_connection_is_a_network_error(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(drop=True), Turn(text="ok"))
    retry = ModelRetrySettings(max_retries=1, backoff=FAST, policy=retry_policies.network_error())
    agent = Agent("a", model=openai_server.model("chat"))
    assert await run(agent, False, RunConfig(model_settings=ModelSettings(retry=retry))) == "ok"


def test_the_agents_and_the_configs_settings_merge_field_by_field() -> None:
    agent = ModelSettings(retry=ModelRetrySettings(max_retries=4, backoff={"initial_delay": 1.0}))
    config = ModelSettings(retry=ModelRetrySettings(backoff={"max_delay": 9.0}))
    merged = agent.resolve(config).retry
    assert merged == ModelRetrySettings(
        max_retries=4, backoff=ModelRetryBackoffSettings(initial_delay=1.0, max_delay=9.0)
    )
    assert ModelSettings(retry={"max_retries": 1}).retry == ModelRetrySettings(max_retries=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda: ModelRetrySettings(max_retries=-1), "max_retries=-1 must be a whole number >= 0"),
        (lambda: ModelRetrySettings(policy=3), "policy=3 must be a function"),  # type: ignore[arg-type]
        (lambda: ModelRetrySettings(backoff={"delay": 1}), "unknown field(s) 'delay'"),
        (lambda: ModelRetryBackoffSettings(multiplier=0.5), "multiplier=0.5 must be a number >= 1"),
        (lambda: ModelRetryBackoffSettings(initial_delay=-1), "initial_delay=-1 must be a number"),
        (lambda: ModelSettings(retry=5), "ModelSettings: retry=5 must be a ModelRetrySettings"),  # type: ignore[arg-type]
    ],
)
def test_values_the_run_cannot_honour_are_refused_where_given(make: object, problem: str) -> None:
    with pytest.raises(UserError) as raised:
        make()  # type: ignore[operator]
    assert problem in str(raised.value)


def test_a_max_delay_below_the_initial_delay_is_refused_at_construction() -> None:
    with pytest.raises(UserError) as raised:
        ModelRetrySettings(backoff={"initial_delay": 5.0, "max_delay": 1.0})
    assert str(raised.value) == (
        "ModelRetryBackoffSettings: max_delay=1.0 must be at least initial_delay=5.0: "
        "raise max_delay or lower initial_delay"
    )


async def test_a_policy_answering_nonsense_says_so(openai_server: ScriptedServer) -> None:
    openai_server.script(Turn(status=503), Turn(text="ok"))
    retry = ModelRetrySettings(policy=lambda _context: "yes")
    agent = Agent("a", model=openai_server.model("responses"))
    with pytest.raises(UserError, match="returned 'yes': return True, False or a RetryDecision"):
        await run(agent, False, RunConfig(model_settings=ModelSettings(retry=retry)))


def test_jitter_maps_onto_the_policys() -> None:
    from tooluse.run._retry_rules import settings_retries

    base = RetryPolicy()
    on = settings_retries(base, ModelRetrySettings(backoff={"jitter": True})).policy
    off = settings_retries(base, ModelRetrySettings(backoff={"jitter": False})).policy
    assert (on.jitter, off.jitter) == (base.jitter, 0.0)


@pytest.mark.parametrize(
    "policy",
    [retry_policies.retry_after(), retry_policies.provider_suggested()],
    ids=["retry-after", "provider-suggested"],
)
async def test_a_rules_wait_beyond_max_retry_after_gives_up(
    openai_server: ScriptedServer, policy: object
) -> None:
    # The server asks for 0.05 s, the run accepts at most 0.01 s: as without a rule, no retry.
    openai_server.script(Turn(status=503, headers={"Retry-After": "0.05"}), Turn(text="ok"))
    retry = ModelRetrySettings(max_retries=1, policy=policy)  # type: ignore[arg-type]
    agent = Agent("a", model=openai_server.model("responses"))
    config = RunConfig(
        retry_policy=RetryPolicy(max_retry_after=0.01),
        model_settings=ModelSettings(retry=retry),
    )
    with pytest.raises(ModelAPIError):
        await run(agent, False, config)
    assert len(openai_server.requests) == 1


async def test_a_policy_that_raises_says_which_and_keeps_the_model_error(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(Turn(status=503), Turn(text="ok"))

    def policy(context: RetryPolicyContext) -> bool:
        raise KeyError("status")

    retry = ModelRetrySettings(policy=policy)
    agent = Agent("a", model=openai_server.model("responses"))
    with pytest.raises(UserError) as raised:
        await run(agent, False, RunConfig(model_settings=ModelSettings(retry=retry)))
    message = str(raised.value)
    assert message.startswith("ModelRetrySettings.policy '")
    assert "policy' raised KeyError ('status') deciding retry 1 of " in message
    assert "ModelTransportError (status 503); fix the function" in message
    assert isinstance(raised.value.__cause__, KeyError)
    assert getattr(raised.value.__cause__.__context__, "status_code", None) == 503  # chained
    assert len(openai_server.requests) == 1


async def test_the_settings_policy_is_built_only_when_a_call_failed(
    openai_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tooluse.run import _model_call, _retry_rules

    built: list[ModelRetrySettings] = []

    def spy(base: RetryPolicy, retry: ModelRetrySettings) -> _retry_rules.SettingsRetries:
        built.append(retry)
        return _retry_rules.settings_retries(base, retry)

    monkeypatch.setattr(_model_call, "settings_retries", spy)
    retry = ModelRetrySettings(max_retries=2, backoff=FAST)
    agent = Agent("a", model=openai_server.model("responses"))
    config = RunConfig(model_settings=ModelSettings(retry=retry))
    openai_server.script(Turn(text="ok"))
    assert await run(agent, False, config) == "ok"
    assert built == []  # no failure, no policy
    openai_server.script(Turn(status=503), Turn(status=503), Turn(text="ok"))
    assert await run(agent, False, config) == "ok"
    assert len(built) == 1  # once for the call, at its first failure
    assert all("retry" not in request for request in openai_server.requests)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1, True), (0.5, False), (2.5, True), (True, False), (float("nan"), False), ("1", False)],
)
def test_one_number_check_serves_the_settings_and_the_policy(value: object, expected: bool) -> None:
    from tooluse.core._values import is_number

    assert is_number(value, 1, 10) is expected
    assert is_number(float("inf"), 0) is False
    assert is_number(float("inf"), 0, finite=False) is True
    refused = "ModelRetryBackoffSettings: multiplier="
    if expected:
        assert ModelRetryBackoffSettings(multiplier=value).multiplier == value  # type: ignore[arg-type]
    else:
        with pytest.raises(UserError, match=refused):
            ModelRetryBackoffSettings(multiplier=value)  # type: ignore[arg-type]


def test_the_policys_wait_is_the_one_asked_for_within_max_retry_after() -> None:
    policy = RetryPolicy(initial_delay=0.25, multiplier=2, jitter=0, max_retry_after=3)
    assert policy.wait(None, 1) == 0.5  # nothing asked: the backoff
    assert policy.wait(2.5, 1) == 2.5  # asked: as it is, not capped by max_delay
    assert policy.wait(3.5, 1) is None  # beyond max_retry_after: give up
    assert policy.wait(float("inf"), 1) is None


def test_settings_and_retry_settings_merge_by_one_rule() -> None:
    from tooluse.core._values import fields_set

    override = ModelRetrySettings(backoff={"max_delay": 2.0})
    assert fields_set(override.backoff_settings) == {"max_delay": 2.0}
    assert fields_set(ModelSettings(temperature=0.5), skip=("extra_args",)) == {"temperature": 0.5}
    merged = ModelSettings(temperature=0.1, top_p=0.9).resolve(ModelSettings(temperature=0.5))
    assert (merged.temperature, merged.top_p) == (0.5, 0.9)


async def test_the_run_configs_retry_settings_win_over_the_agents(
    openai_server: ScriptedServer,
) -> None:
    openai_server.script(*(Turn(status=503) for _ in range(3)), Turn(text="ok"))
    agent = Agent(
        "a",
        model=openai_server.model("responses"),
        model_settings=ModelSettings(retry=ModelRetrySettings(max_retries=5, backoff=FAST)),
    )
    config = RunConfig(model_settings=ModelSettings(retry=ModelRetrySettings(max_retries=1)))
    with pytest.raises(ModelAPIError):
        await run(agent, False, config)
    assert len(openai_server.requests) == 2  # the config's 1 retry, not the agent's 5
