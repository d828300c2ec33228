"""The page template of `regrapht graph show --html`: markup, style and script, no external resources.

Kept as a Python string so it ships inside the package with the module that renders it.
`__TITLE__` and `__DATA__` are replaced by `regrapht.graph.html.render_html`.
"""

PAGE_TEMPLATE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
  :root { --fg:#1d2330; --muted:#5b6475; --line:#d8dde6; --bg:#f7f8fb; --good:#2e7d32; --bad:#c62828; --na:#8a93a3; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
  header { padding:10px 16px; border-bottom:1px solid var(--line); background:#fff; display:flex; gap:24px; align-items:baseline; flex-wrap:wrap; }
  header h1 { font-size:18px; margin:0; }
  header .facts span { margin-right:14px; color:var(--muted); }
  header .facts b { color:var(--fg); }
  main { display:flex; height:calc(100vh - 50px); }
  #canvas { flex:1 1 62%; overflow:auto; background:#fff; border-right:1px solid var(--line); }
  #panel { flex:1 1 38%; overflow:auto; padding:12px 16px; }
  svg text { font-size:12px; fill:var(--fg); pointer-events:none; }
  .node circle { stroke:#35507a; stroke-width:1.5; fill:#dbe6f7; cursor:pointer; }
  .node.initial circle { fill:#fde7b0; stroke:#9a6b00; }
  .node.new circle { fill:#efe0f7; stroke:#6d3a8a; stroke-dasharray:3 2; }
  .node.selected circle { stroke-width:3.5; }
  .edge path.line { fill:none; cursor:pointer; opacity:.78; }
  .edge path.hit { fill:none; stroke:transparent; stroke-width:14; cursor:pointer; }
  .edge.selected path.line { opacity:1; filter:drop-shadow(0 0 2px #333); }
  .legend { font-size:12px; color:var(--muted); padding:6px 12px; }
  .legend i { display:inline-block; width:18px; height:4px; vertical-align:middle; margin:0 4px 0 10px; }
  h2 { font-size:16px; margin:6px 0 8px; }
  .kv { color:var(--muted); margin-bottom:8px; }
  .kv b { color:var(--fg); }
  .example { border:1px solid var(--line); border-radius:6px; background:#fff; padding:8px 10px; margin:10px 0; }
  .badge { display:inline-block; padding:0 6px; border-radius:8px; font-size:12px; color:#fff; background:var(--na); }
  .badge.correct { background:var(--good); } .badge.fail { background:var(--bad); }
  .label { font-weight:600; margin-top:6px; }
  pre { background:#f3f5f9; padding:6px 8px; overflow:auto; font:12px/1.35 ui-monospace, Menlo, Consolas, monospace; margin:4px 0; }
  pre .add { color:#1b5e20; background:#e6f4e7; display:block; }
  pre .del { color:#8e1b1b; background:#fbe9e9; display:block; }
  pre .hunk { color:#5b6475; display:block; }
  table { border-collapse:collapse; width:100%; font-size:13px; }
  td, th { border-bottom:1px solid var(--line); padding:3px 6px; text-align:left; }
  .hint { color:var(--muted); }
</style>
</head>
<body>
<header>
  <h1>__TITLE__</h1>
  <div class="facts" id="facts"></div>
  <div class="facts">drawn: <b id="drawn-nodes">0</b> nodes, <b id="drawn-edges">0</b> edges</div>
</header>
<main>
  <div id="canvas">
    <div class="legend">edge width = measured gain;
      <i style="background:var(--good)"></i>faster <i style="background:var(--bad)"></i>slower
      <i style="background:var(--na)"></i>unmeasured; node size = steps that used the method</div>
    <svg id="graph" xmlns="http://www.w3.org/2000/svg"></svg>
  </div>
  <div id="panel"><p class="hint">Click an edge to read its worked examples, or a node for its definition.</p></div>
</main>
<script type="application/json" id="graph-data">__DATA__</script>
<script>
(function () {
  "use strict";
  var G = JSON.parse(document.getElementById("graph-data").textContent);
  var SVG = "http://www.w3.org/2000/svg";
  var svg = document.getElementById("graph");
  var panel = document.getElementById("panel");

  function el(tag, attrs, parent) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function h(tag, text, cls, parent) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(x) { return x === null || x === undefined ? "n/a" : (Math.round(x * 100) / 100) + "x"; }

  // facts
  var S = G.stats, facts = document.getElementById("facts");
  [["target", G.target], ["methods", S.method_nodes], ["edges", S.edges], ["examples", S.examples],
   ["verified", Math.round(S.verified_share * 100) + "%"], ["tasks", S.distinct_tasks]].forEach(function (kv) {
    var s = h("span", kv[0] + ": ", null, facts); h("b", String(kv[1]), null, s);
  });

  // layout: columns by shortest distance from the initial node, rows by name
  var byId = {}, out = {};
  G.nodes.forEach(function (n) { byId[n.id] = n; out[n.id] = []; });
  G.edges.forEach(function (e) { out[e.source].push(e.target); });
  var depth = {}; depth[G.initial] = 0;
  var queue = [G.initial];
  while (queue.length) {
    var u = queue.shift();
    out[u].forEach(function (v) { if (!(v in depth)) { depth[v] = depth[u] + 1; queue.push(v); } });
  }
  var maxDepth = 0;
  G.nodes.forEach(function (n) { if (n.id in depth) maxDepth = Math.max(maxDepth, depth[n.id]); });
  G.nodes.forEach(function (n) { if (!(n.id in depth)) depth[n.id] = maxDepth + 1; });
  var cols = {};
  G.nodes.forEach(function (n) { (cols[depth[n.id]] = cols[depth[n.id]] || []).push(n.id); });
  var colW = 190, rowH = 92, pos = {}, maxRows = 1, ncols = 0;
  Object.keys(cols).forEach(function (d) { cols[d].sort(); maxRows = Math.max(maxRows, cols[d].length); ncols = Math.max(ncols, +d + 1); });
  var height = Math.max(360, maxRows * rowH + 80), width = Math.max(600, ncols * colW + 120);
  Object.keys(cols).forEach(function (d) {
    var ids = cols[d], span = ids.length * rowH;
    ids.forEach(function (id, i) { pos[id] = { x: 90 + d * colW, y: (height - span) / 2 + rowH * (i + 0.5) }; });
  });
  // scale to the canvas width (never above natural size), keeping the aspect ratio
  svg.setAttribute("viewBox", "0 0 " + width + " " + height);
  svg.setAttribute("preserveAspectRatio", "xMidYMin meet");
  svg.style.width = "100%"; svg.style.maxWidth = width + "px"; svg.style.height = "auto";

  function radius(n) { return 9 + 4 * Math.sqrt(n.visits || 0); }
  function gainColor(g) { return g === null || g === undefined ? "var(--na)" : (g >= 1 ? "var(--good)" : "var(--bad)"); }
  function gainWidth(g) { return g === null || g === undefined ? 1.5 : 1.5 + 2.5 * Math.min(3, Math.abs(Math.log2(g))); }

  var defs = el("defs", {}, svg);
  ["good", "bad", "na"].forEach(function (k) {
    var m = el("marker", { id: "arrow-" + k, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 11, markerHeight: 11, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" }, defs);
    el("path", { d: "M0,0 L10,5 L0,10 z", fill: "var(--" + k + ")" }, m);
  });

  var edgeLayer = el("g", {}, svg), nodeLayer = el("g", {}, svg);
  var edgeEls = {}, nodeEls = {}, drawnEdges = 0, drawnNodes = 0;
  G.edges.forEach(function (e) {
    var a = pos[e.source], b = pos[e.target], ra = radius(byId[e.source]), rb = radius(byId[e.target]);
    var g = e.stats.speedup ? e.stats.speedup.geomean : null, d;
    if (e.source === e.target) {
      d = "M" + (a.x - 8) + "," + (a.y - ra) + " C" + (a.x - 40) + "," + (a.y - ra - 48) + " " + (a.x + 40) + "," + (a.y - ra - 48) + " " + (a.x + 8) + "," + (a.y - ra - 2);
    } else {
      var dx = b.x - a.x, dy = b.y - a.y, len = Math.sqrt(dx * dx + dy * dy) || 1;
      var bend = depth[e.target] <= depth[e.source] ? 0.35 : 0.12;
      var mx = (a.x + b.x) / 2 - dy * bend, my = (a.y + b.y) / 2 + dx * bend;
      var sx = a.x + dx / len * ra, sy = a.y + dy / len * ra;
      var tdx = b.x - mx, tdy = b.y - my, tl = Math.sqrt(tdx * tdx + tdy * tdy) || 1;
      var tx = b.x - tdx / tl * (rb + 2), ty = b.y - tdy / tl * (rb + 2);
      d = "M" + sx + "," + sy + " Q" + mx + "," + my + " " + tx + "," + ty;
    }
    var grp = el("g", { "class": "edge", "data-edge": e.source + "->" + e.target }, edgeLayer);
    var kind = g === null ? "na" : (g >= 1 ? "good" : "bad");
    el("path", { "class": "line", d: d, stroke: gainColor(g), "stroke-width": gainWidth(g), "marker-end": "url(#arrow-" + kind + ")" }, grp);
    el("path", { "class": "hit", d: d }, grp);
    var t = el("title", {}, grp); t.textContent = e.source + " \u2192 " + e.target + ": " + e.stats.taken + " taken, gain " + fmt(g);
    grp.addEventListener("click", function () { showEdge(e); });
    edgeEls[e.source + "->" + e.target] = grp; drawnEdges++;
  });
  G.nodes.forEach(function (n) {
    var p = pos[n.id];
    var grp = el("g", { "class": "node " + n.origin, "data-node": n.id }, nodeLayer);
    el("circle", { cx: p.x, cy: p.y, r: radius(n) }, grp);
    var label = el("text", { x: p.x, y: p.y + radius(n) + 14, "text-anchor": "middle" }, grp);
    label.textContent = n.id;
    var t = el("title", {}, grp); t.textContent = n.id + " (" + n.visits + " steps)";
    grp.addEventListener("click", function () { showNode(n); });
    nodeEls[n.id] = grp; drawnNodes++;
  });
  document.getElementById("drawn-nodes").textContent = String(drawnNodes);
  document.getElementById("drawn-edges").textContent = String(drawnEdges);

  function select(kind, key) {
    Array.prototype.forEach.call(document.querySelectorAll(".selected"), function (x) { x.classList.remove("selected"); });
    var m = kind === "edge" ? edgeEls[key] : nodeEls[key];
    if (m) m.classList.add("selected");
  }
  function diffBlock(text, parent) {
    var pre = h("pre", null, null, parent);
    (text || "(no change)").split("\n").forEach(function (line) {
      var cls = line.indexOf("@@") === 0 ? "hunk" : (line[0] === "+" && line.indexOf("+++") !== 0 ? "add" : (line[0] === "-" && line.indexOf("---") !== 0 ? "del" : ""));
      var s = h("span", line + "\n", cls, pre);
    });
  }
  function showEdge(e) {
    select("edge", e.source + "->" + e.target);
    panel.textContent = "";
    panel.setAttribute("data-showing", "edge:" + e.source + "->" + e.target);
    h("h2", e.source + " \u2192 " + e.target, null, panel);
    var st = e.stats, kv = h("div", null, "kv", panel);
    kv.textContent = "taken " + st.taken + " \u00b7 verified " + st.verified + " \u00b7 failures " + st.failures +
      " \u00b7 tasks " + st.tasks + " \u00b7 geomean " + fmt(st.speedup ? st.speedup.geomean : null) +
      (st.speedup ? " (min " + fmt(st.speedup.min) + ", median " + fmt(st.speedup.median) + ", max " + fmt(st.speedup.max) + ")" : "");
    var gpus = Object.keys(st.gpus);
    if (gpus.length) h("div", "measured on: " + gpus.map(function (g) { return g + " (" + st.gpus[g].n + ", " + fmt(st.gpus[g].geomean) + ")"; }).join(", "), "kv", panel);
    e.examples.forEach(function (x) {
      var box = h("div", null, "example", panel);
      var head = h("div", null, null, box);
      var ok = x.status === "correct", fail = !ok && x.status !== "unverified";
      h("span", x.status, "badge" + (ok ? " correct" : (fail ? " fail" : "")), head);
      h("span", "  " + x.task + " step " + x.step + " \u00b7 speedup " + fmt(x.speedup ? x.speedup.value : null) +
        (x.gpu ? " on " + x.gpu : "") + (x.author ? " \u00b7 by " + x.author : "") + " \u00b7 named \u201c" + x.raw_method + "\u201d", null, head);
      if (x.message) h("div", x.message, "hint", box);
      h("div", "Reasoning", "label", box); h("div", x.think, null, box);
      h("div", "Change", "label", box); h("div", x.detail, null, box);
      h("div", "Before \u2192 after", "label", box); diffBlock(x.diff, box);
    });
  }
  function showNode(n) {
    select("node", n.id);
    panel.textContent = "";
    panel.setAttribute("data-showing", "node:" + n.id);
    h("h2", n.id, null, panel);
    h("div", (n.category ? n.category + " \u00b7 " : "") + n.origin + " \u00b7 " + n.visits + " steps", "kv", panel);
    h("p", n.definition, null, panel);
    var outs = G.edges.filter(function (e) { return e.source === n.id; });
    if (!outs.length) return;
    h("div", "Next methods taken from here", "label", panel);
    var tbl = h("table", null, null, panel), tr = h("tr", null, null, tbl);
    ["to", "taken", "verified", "geomean"].forEach(function (c) { h("th", c, null, tr); });
    outs.forEach(function (e) {
      var r = h("tr", null, null, tbl);
      h("td", e.target, null, r); h("td", String(e.stats.taken), null, r); h("td", String(e.stats.verified), null, r);
      h("td", fmt(e.stats.speedup ? e.stats.speedup.geomean : null), null, r);
      r.style.cursor = "pointer"; r.addEventListener("click", function () { showEdge(e); });
    });
  }
  function fromHash() {
    var hsh = decodeURIComponent(location.hash.slice(1));
    if (hsh.indexOf("edge=") === 0) {
      var key = hsh.slice(5), e = G.edges.filter(function (x) { return x.source + "->" + x.target === key; })[0];
      if (e) showEdge(e);
    } else if (hsh.indexOf("node=") === 0 && byId[hsh.slice(5)]) {
      showNode(byId[hsh.slice(5)]);
    }
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
</script>
</body>
</html>
"""
