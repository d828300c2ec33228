"""The graph page rendered by a real headless Chromium (skipped when Chromium is not installed)."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from regrapht.graph.html import render_html, write_html
from regrapht.graph.model import ReGraph

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser")) if p), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (Debian: apt-get install -y chromium); the page test needs it",
)


def chromium(url: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
        f"--user-data-dir={profile}",
        "--window-size=1200,800",
        *extra,
        url,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def test_page_draws_every_node_and_edge_and_opens_an_edge(built: ReGraph, tmp_path: Path) -> None:
    page = write_html(built, tmp_path / "g.html")
    url = page.as_uri() + "#edge=parallelize->shared_memory_tiling"
    dom = chromium(url, tmp_path, "--dump-dom").stdout
    assert re.search(r'id="drawn-nodes">(\d+)<', dom).group(1) == str(len(built.nodes))
    assert re.search(r'id="drawn-edges">(\d+)<', dom).group(1) == str(len(built.edges))
    assert dom.count('class="node ') == len(built.nodes)
    assert 'data-showing="edge:parallelize-&gt;shared_memory_tiling"' in dom
    # the panel lists the edge's three examples with their diffs
    panel = dom.split('id="panel"', 1)[1]
    assert panel.count('class="example"') == 3
    assert "Tree reduction in shared memory" in html.unescape(panel)
    assert 'class="add"' in panel and 'class="del"' in panel
    shot = tmp_path / "shot.png"
    chromium(url, tmp_path, f"--screenshot={shot}")
    assert shot.stat().st_size > 20_000  # a real picture, not a blank page


def test_page_is_self_contained_and_script_safe(built: ReGraph) -> None:
    for _, x in built.examples():
        x.think = "</script><script>alert(1)</script>"
        break
    page = render_html(built)
    assert page.count("</script>") == 2  # the data block cannot close its element
    assert not re.search(r'(src|href)="(https?:)?//', page)


def test_empty_graph_renders(tmp_path: Path) -> None:
    page = write_html(ReGraph("cpu"), tmp_path / "e.html")
    dom = chromium(page.as_uri(), tmp_path, "--dump-dom").stdout
    assert re.search(r'id="drawn-nodes">1<', dom) and re.search(r'id="drawn-edges">0<', dom)
