"""The offline policy: replays recorded steps of the graph for the task, says plainly when it has
none, never invents code, and is labelled as what it is."""

from __future__ import annotations

from regrapht.graph.model import INITIAL
from regrapht.llm.templates import load_template
from regrapht.llm.types import ChatModel, ChatRequest, SamplingParams
from regrapht.search import NO_RECORDED_STEP, OFFLINE_LABEL, OfflinePolicy, is_offline_spec
from regrapht.search.context import task_variables
from regrapht.search.offline import parse_step_prompt

from .conftest import marked, recorded_code, synthetic_graph


def step_request(task, code: str, method: str, seed: int = 0, target: str = "cpu") -> ChatRequest:
    variables = {
        "task": task_variables(task),
        "target": target,
        "current_code": code,
        "method": {"name": method, "definition": "a method"},
        "examples": [],
        "failures": [],
    }
    return load_template("optimize_step").request(variables, SamplingParams(seed=seed))


def test_it_is_a_chat_model_and_says_what_it_is(axpy):
    policy = OfflinePolicy(synthetic_graph(axpy, [(INITIAL, "p", "serial", "P")]))
    assert isinstance(policy, ChatModel)
    assert policy.identity.startswith("offline:") and len(policy.identity) == len("offline:") + 12
    info = policy.describe()
    assert info["label"] == OFFLINE_LABEL == "offline policy: replays recorded steps, not a model"
    assert info["recorded_steps"] == 1 and policy.context_length() >= 100_000
    assert (
        is_offline_spec("offline")
        and is_offline_spec("offline:g.json")
        and not is_offline_spec("openai:x@http://h/v1")
    )


def test_replays_the_recorded_after_code_of_the_requested_transition(axpy):
    graph = synthetic_graph(axpy, [(INITIAL, "p", "serial", "P"), ("p", "a", "P", "PA")])
    policy = OfflinePolicy(graph)
    [first] = policy.generate([step_request(axpy, axpy.serial_source(), "p")])
    assert first.finish_reasons == ("stop",) and "R:P */" in first.text and OFFLINE_LABEL in first.text
    assert first.usage.total_tokens == 0
    [second] = policy.generate([step_request(axpy, marked(axpy, "P"), "a")])
    assert "R:PA */" in second.text


def test_says_no_recorded_step_instead_of_inventing_code(axpy, row_sums):
    graph = synthetic_graph(axpy, [(INITIAL, "p", "serial", "P"), ("p", "a", "P", "PA")])
    policy = OfflinePolicy(graph)
    requests = [
        step_request(axpy, axpy.serial_source(), "a"),  # no such transition from this code
        step_request(axpy, marked(axpy, "OTHER"), "a"),  # code the graph never saw
        step_request(row_sums, row_sums.serial_source(), "p"),  # another task
        load_template("standard").request({"task": task_variables(axpy), "target": "cpu"}),  # not a step
    ]
    results = policy.generate(requests)
    for r in results:
        assert r.finish_reasons == (NO_RECORDED_STEP,)
        assert "no recorded step" in r.text and "```" not in r.text
    assert policy.missed == 4 and policy.replayed == 0


def test_the_seed_picks_among_several_recorded_outcomes(axpy):
    graph = synthetic_graph(axpy, [(INITIAL, "p", "serial", "P1"), (INITIAL, "p", "serial", "P2")])
    policy = OfflinePolicy(graph)
    texts = {
        policy.generate([step_request(axpy, axpy.serial_source(), "p", seed=s)])[0].text for s in range(4)
    }
    assert any("R:P1" in t for t in texts) and any("R:P2" in t for t in texts)
    [both] = policy.generate(
        [
            ChatRequest(
                step_request(axpy, axpy.serial_source(), "p").messages,
                SamplingParams(seed=0),
                2,
                "optimize_step@1",
            )
        ]
    )
    assert {"R:P1" in t for t in both.samples} == {True, False}


def test_replays_the_authored_openmp_trajectories(axpy, graph_cpu):
    policy = OfflinePolicy(graph_cpu)
    outcomes = {
        policy.generate([step_request(axpy, axpy.serial_source(), "parallelize", seed=s)])[0].text
        for s in range(6)
    }
    recorded = {recorded_code("axpy_small", a, 0).strip() for a in ("alice", "bob", "carol")}
    assert {next(code for code in recorded if code in t) for t in outcomes} == recorded
    # the recorded next step from alice's first step, even though the prompt renders code with its own spacing
    start = recorded_code("axpy_small", "alice", 0).rstrip() + "\n\n\n"
    [simd] = policy.generate([step_request(axpy, start, "simd_vectorization")])
    assert recorded_code("axpy_small", "alice", 1).strip() in simd.text
    assert (
        policy.replayed_code(recorded_code("axpy_small", "alice", 1), "axpy_small")
        == recorded_code("axpy_small", "alice", 1).strip()
    )


def test_parses_its_own_prompt_layout(axpy):
    request = step_request(axpy, marked(axpy, "X"), "loop_unrolling")
    assert parse_step_prompt(request.last_user_message()) == (
        "axpy_small",
        "loop_unrolling",
        marked(axpy, "X").strip(),
    )
    assert parse_step_prompt("no layout here") is None
