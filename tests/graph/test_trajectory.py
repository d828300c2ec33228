

def _failing_record(**expect):
    step_ok = {"think": "t", "method": "parallelize", "detail": "d", "code": "__global__ void k(){}"}
    step_bad = dict(step_ok, method="shared_memory_tiling", expect_failure=expect)
    return {"task": "saxpy", "target": "cuda", "steps": [step_ok, step_bad]}


def test_expected_failure_on_the_last_step_is_kept_and_hashed():
    from regrapht.graph.trajectory import parse_trajectory

    t = parse_trajectory(_failing_record(kind="missing_sync", why="no barrier after the tile load"))
    assert t.steps[-1].expect_failure is not None
    assert t.steps[-1].expect_failure.kind == "missing_sync"
    assert t.steps[-1].to_dict()["expect_failure"]["why"] == "no barrier after the tile load"
    plain = parse_trajectory({**_failing_record(kind="race", why="x"), "steps": _failing_record(kind="race", why="x")["steps"][:1]})
    assert t.hash != plain.hash


def test_expected_failure_is_checked():
    import pytest

    from regrapht.graph.trajectory import TrajectoryFormatError, parse_trajectory

    with pytest.raises(TrajectoryFormatError, match="must be one of"):
        parse_trajectory(_failing_record(kind="cosmic_ray", why="x"))
    with pytest.raises(TrajectoryFormatError, match="what goes wrong"):
        parse_trajectory(_failing_record(kind="race", why=" "))
    rec = _failing_record(kind="race", why="x")
    rec["steps"] = [rec["steps"][1], rec["steps"][0]]
    with pytest.raises(TrajectoryFormatError, match="only a trajectory's last step"):
        parse_trajectory(rec)
