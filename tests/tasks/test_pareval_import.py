"""`regrapht tasks import pareval` on ParEval-layout folders the tests write: problems that follow the
drivers' common patterns become checked task folders; the rest are reported with the reason, and
the checks surface what is wrong in the source benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from regrapht.cli import app
from regrapht.eval import EvalConfig
from regrapht.eval.suitecheck import check_tasks
from regrapht.tasks import load_task
from regrapht.tasks.pareval import find_problems, import_all

SCALE_PROMPT = """/* Multiply every element of x by 3 and store the result in y.
   Use CUDA to compute in parallel. The kernel is launched with at least as many threads as values in x.
   Example:

   input: [1, 2]
   output: [3, 6]
*/
__global__ void triple(const double *x, double *y, size_t N) {"""

SCALE_DRIVER = """// Driver for 00_demo_triple
#include "utilities.hpp"
#include "baseline.hpp"
#include "generated-code.cuh"

struct Context {
    double *d_x, *d_y;
    std::vector<double> h_x, h_y;
    size_t N;
    dim3 blockSize, gridSize;
};

void reset(Context *ctx) {
    fillRand(ctx->h_x, -5.0, 5.0);
    COPY_H2D(ctx->d_x, ctx->h_x.data(), ctx->N * sizeof(double));
}

Context *init() {
    Context *ctx = new Context();
    ctx->N = DRIVER_PROBLEM_SIZE;
    ctx->blockSize = dim3(512);
    ctx->gridSize = dim3((ctx->N + ctx->blockSize.x - 1) / ctx->blockSize.x); // at least enough threads
    ctx->h_x.resize(ctx->N);
    ctx->h_y.resize(ctx->N);
    ALLOC(ctx->d_x, ctx->N * sizeof(double));
    ALLOC(ctx->d_y, ctx->N * sizeof(double));
    reset(ctx);
    return ctx;
}

void NO_OPTIMIZE compute(Context *ctx) {
    triple<<<ctx->gridSize, ctx->blockSize>>>(ctx->d_x, ctx->d_y, ctx->N);
}

void NO_OPTIMIZE best(Context *ctx) {
    correctTriple(ctx->h_x, ctx->h_y);
}

bool validate(Context *ctx) {
    const size_t TEST_SIZE = 1024;
    std::vector<double> h_x(TEST_SIZE), correct(TEST_SIZE), test(TEST_SIZE);
    if (!fequal(correct, test, 1e-6)) { return false; }
    return true;
}

void destroy(Context *ctx) {}
"""

SCALE_BASELINE = """#pragma once
#include <vector>

void NO_INLINE correctTriple(std::vector<double> const& x, std::vector<double> &y) {
    for (size_t i = 0; i < x.size(); i += 1) { y[i] = 3.0 * x[i]; }
}
"""

CLOSEST_PROMPT = """struct Point {
    double x, y;
};

/* Return the smallest distance between two points, in distance.
   The kernel is launched with at least as many threads as points.
*/
__global__ void nearest(const Point *points, size_t numPoints, double *distance) {"""

CLOSEST_DRIVER = """
struct Context {
    Point *d_points;
    double *d_distance;
    std::vector<Point> h_points;
    size_t N;
    dim3 blockSize, gridSize;
};

void reset(Context *ctx) {
    for (size_t i = 0; i < ctx->N; i++) {
        ctx->h_points[i].x = (rand() / (double) RAND_MAX) * 20.0 + -10.0;
        ctx->h_points[i].y = (rand() / (double) RAND_MAX) * 20.0 + -10.0;
    }
    COPY_H2D(ctx->d_points, ctx->h_points.data(), ctx->N * sizeof(Point));
    double tmp = 0.0;
    COPY_H2D(ctx->d_distance, &tmp, sizeof(double));
}

Context *init() {
    Context *ctx = new Context();
    ctx->N = DRIVER_PROBLEM_SIZE;
    ctx->blockSize = dim3(256);
    ctx->gridSize = dim3((ctx->N + ctx->blockSize.x - 1) / ctx->blockSize.x);
    ctx->h_points.resize(ctx->N);
    ALLOC(ctx->d_points, ctx->N * sizeof(Point));
    ALLOC(ctx->d_distance, sizeof(double));
    reset(ctx);
    return ctx;
}

void NO_OPTIMIZE compute(Context *ctx) {
    nearest<<<ctx->gridSize, ctx->blockSize>>>(ctx->d_points, ctx->N, ctx->d_distance);
}

void NO_OPTIMIZE best(Context *ctx) {
    double d = correctNearest(ctx->h_points);
    (void)d;
}

bool validate(Context *ctx) {
    double correct = 0.0, test = 0.0;
    if (std::abs(correct - test) > 1e-4) { return false; }
    return true;
}
"""

CLOSEST_BASELINE = """#pragma once
#include <vector>
#include <cmath>

double NO_INLINE correctNearest(std::vector<Point> const& points) {
    double best = std::numeric_limits<double>::max();
    for (size_t i = 0; i < points.size(); i++)
        for (size_t j = i + 1; j < points.size(); j++)
            best = std::min(best, std::hypot(points[i].x - points[j].x, points[i].y - points[j].y));
    return best;
}
"""

# ParEval-style integer draws `fillRand(x, 1, 2)` give rand() % 1 + 1: always 1.
CONSTANT_DRIVER = (
    SCALE_DRIVER.replace("fillRand(ctx->h_x, -5.0, 5.0);", "fillRand(ctx->h_x, 1, 2);")
    .replace("double *d_x, *d_y;", "int *d_x; double *d_y;")
    .replace("std::vector<double> h_x, h_y;", "std::vector<int> h_x; std::vector<double> h_y;")
    .replace("ctx->N * sizeof(double));\n    ALLOC(ctx->d_y", "ctx->N * sizeof(int));\n    ALLOC(ctx->d_y")
)
CONSTANT_PROMPT = SCALE_PROMPT.replace("const double *x", "const int *x")
CONSTANT_BASELINE = SCALE_BASELINE.replace("std::vector<double> const& x", "std::vector<int> const& x")

GRAPH_DRIVER = SCALE_DRIVER.replace("fillRand(ctx->h_x, -5.0, 5.0);", "fillRandomUndirectedGraph(ctx->h_x, ctx->N);")


def write_pareval(root: Path) -> Path:
    problems = {
        ("demo", "00_demo_triple"): (SCALE_PROMPT, SCALE_DRIVER, SCALE_BASELINE),
        ("geometry", "01_demo_nearest"): (CLOSEST_PROMPT, CLOSEST_DRIVER, CLOSEST_BASELINE),
        ("demo", "02_demo_constant"): (CONSTANT_PROMPT, CONSTANT_DRIVER, CONSTANT_BASELINE),
        ("graph", "03_demo_graph"): (SCALE_PROMPT, GRAPH_DRIVER, SCALE_BASELINE),
    }
    sizes = {}
    for (category, name), (prompt, driver, baseline) in problems.items():
        folder = root / "drivers" / "cpp" / "benchmarks" / category / name
        folder.mkdir(parents=True)
        (folder / "gpu.cu").write_text(driver)
        (folder / "baseline.hpp").write_text(baseline)
        prompts = root / "prompts" / "raw" / category / name
        prompts.mkdir(parents=True)
        (prompts / "cuda").write_text(prompt)
        sizes[name] = {"serial": "(1<<12)", "cuda": "(1<<12)"}
    (root / "drivers" / "problem-sizes.json").write_text(json.dumps(sizes))
    return root


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    root = write_pareval(tmp_path_factory.mktemp("ParEval"))
    out = tmp_path_factory.mktemp("tasks")
    return root, out, {r.name: r for r in import_all(root, out)}


def test_a_pareval_checkout_s_problems_are_found(imported):
    root, _, _ = imported
    problems = {p.name: p for p in find_problems(root)}
    assert set(problems) == {"00_demo_triple", "01_demo_nearest", "02_demo_constant", "03_demo_graph"}
    assert problems["01_demo_nearest"].category == "geometry" and problems["01_demo_nearest"].prompt.is_file()
    with pytest.raises(FileNotFoundError, match="not a ParEval checkout"):
        find_problems(root / "drivers")


def test_common_patterns_become_kernel_tasks(imported):
    _, _, results = imported
    triple = load_task(results["00_demo_triple"].folder)
    assert triple.convention == "kernel" and triple.signature == (
        "__global__ void triple(const double* x, double* y, size_t N)"
    )
    assert triple.launch.dims({"N": 1000}) == ((2,), (512,), 0)
    assert triple.arg("x").generator.params == {"low": -5.0, "high": 5.0}
    assert triple.arg("y").tolerance.atol == 1e-6 and triple.arg("y").tolerance.rtol == 0.0
    assert triple.bench_size == {"N": 4096} and {"N": 7} in triple.test_sizes
    assert "ParEval's check, kept here: |actual - expected| <= 1e-06" in triple.description

    nearest = load_task(results["01_demo_nearest"].folder)
    points, distance = nearest.arg("points"), nearest.arg("distance")
    assert points.dtype.name == "Point" and points.generator.params == {"low": -10.0, "high": 10.0}
    assert distance.initial == 0.0 and distance.scalar_result and distance.tolerance.atol == 1e-4


def test_imported_tasks_pass_the_cpu_check_and_source_problems_surface(imported):
    _, _, results = imported
    tasks = [load_task(results[n].folder) for n in ("00_demo_triple", "01_demo_nearest", "02_demo_constant")]
    checks = {c.task_id: c for c in check_tasks(tasks, gpu=False, config=EvalConfig(timing=False))}
    assert checks["pareval_00_demo_triple"].ok, checks["pareval_00_demo_triple"].problems
    assert checks["pareval_01_demo_nearest"].ok, checks["pareval_01_demo_nearest"].problems
    constant = checks["pareval_02_demo_constant"]
    assert not constant.ok and any("identical for every seed" in p for p in constant.problems)


def test_unread_patterns_need_a_hand_with_the_reason(imported):
    _, out, results = imported
    graph = results["03_demo_graph"]
    assert graph.folder is None and "fillRandomUndirectedGraph" in graph.needs_hand
    assert not (out / "pareval_03_demo_graph").exists()


def test_the_command_reports_each_problem(tmp_path):
    root = write_pareval(tmp_path / "ParEval")
    result = CliRunner().invoke(
        app, ["tasks", "import", "pareval", str(root), "--out", str(tmp_path / "out"), "--no-check", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout[result.stdout.index("{") :])
    by_problem = {row["problem"]: row for row in report["problems"]}
    assert by_problem["03_demo_graph"]["needs_hand"] and not by_problem["00_demo_triple"]["needs_hand"]
    assert (tmp_path / "out" / "pareval_00_demo_triple" / "serial.cpp").is_file()
