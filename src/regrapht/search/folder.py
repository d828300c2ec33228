"""The folder `regrapht optimize` writes, and reading it back.

OUT/result.json holds the run record with the evaluation records of the path to the best kernel,
OUT/best.cu (cuda) or OUT/best.cpp (cpu) the best kernel, and OUT/report.html the page. The page can
be rendered again from result.json alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from regrapht.search.record import SearchResult
from regrapht.search.report import write_optimize_report

RESULT_FILE = "result.json"
REPORT_FILE = "report.html"


def best_file(folder: Path, target: str) -> Path:
    return folder / ("best.cu" if target == "cuda" else "best.cpp")


def run_record(result: SearchResult, evaluations: dict[str, dict[str, Any]], label: str | None) -> dict[str, Any]:
    """result.json's content: the run record plus the evaluation records of the path."""
    record = result.to_dict()
    path_keys = [a.eval_key for a in result.path()] if result.best is not None else []
    record["evaluations"] = {k: evaluations[k] for k in path_keys if k in evaluations}
    if label:
        record["label"] = label
    return record


def write_optimize_folder(
    folder: Path, result: SearchResult, evaluations: dict[str, dict[str, Any]], label: str | None = None
) -> dict[str, Any]:
    """Write result.json, the best kernel (when there is one) and report.html; returns the record."""
    folder.mkdir(parents=True, exist_ok=True)
    record = run_record(result, evaluations, label)
    (folder / RESULT_FILE).write_text(json.dumps(record, indent=1, default=float) + "\n", encoding="utf-8")
    if result.best_code is not None:
        best_file(folder, result.target).write_text(result.best_code, encoding="utf-8")
    write_optimize_report(result, folder / REPORT_FILE, evaluations)
    return record


def is_optimize_folder(folder: Path) -> bool:
    return folder.is_dir() and (folder / RESULT_FILE).is_file()


def rerender_optimize_report(folder: Path) -> Path:
    """Render OUT/report.html again from OUT/result.json. Raises ValueError for a file that is not an
    optimize run record."""
    path = folder / RESULT_FILE
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        result = SearchResult.from_dict(record)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path} is not valid JSON ({exc})") from None
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{path} is not a regrapht optimize record (missing or malformed {exc})") from None
    return write_optimize_report(result, folder / REPORT_FILE, record.get("evaluations") or {})
