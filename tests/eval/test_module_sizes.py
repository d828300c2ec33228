"""eval/ stays split by concern (issue 21): no module over 500 lines. One that grows past it is
split by moving a coherent concern out, not by squashing lines."""

from __future__ import annotations

from pathlib import Path

import regrapht.eval

MAX_LINES = 500


def test_no_eval_module_is_over_500_lines():
    root = Path(regrapht.eval.__file__).parent
    sizes = {path.name: len(path.read_text().splitlines()) for path in root.glob("*.py")}
    assert sizes, root
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}
