#include "observability/dashboard_assets.h"

namespace floe::observability {

namespace {

constexpr std::string_view kHtml = R"floe(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>floe</title>
<link rel="stylesheet" href="/dashboard.css">
<script src="/dashboard.js" defer></script>
</head>
<body>
<header>
  <h1>floe <span id="pipeline"></span></h1>
  <div id="health" class="pill">loading…</div>
  <div id="updated" class="muted"></div>
</header>
<main>
  <section id="errors" hidden></section>
  <section>
    <h2>Tables</h2>
    <table id="tables"><thead><tr>
      <th>source</th><th>table</th><th>state</th><th class="n" title="files waiting for a batch">pending</th>
      <th class="n">bytes</th><th class="n" title="age of the oldest pending file">oldest</th>
      <th class="n" title="stream records not yet in the table">lag</th><th class="n">last commit</th>
      <th class="n">rows 1 h</th><th class="n">rows 24 h</th><th class="n" title="files quarantined in 24 h">quar. 24 h</th>
      <th class="n" title="data files of the current snapshot">data files</th><th class="n">delete files</th>
      <th class="n" title="data files under the small-file threshold">small</th><th>last compaction</th>
    </tr></thead><tbody></tbody></table>
    <div id="reasons"></div>
  </section>
  <section>
    <h2>Rows and commit latency, last hours</h2>
    <div id="chart"></div>
  </section>
  <section id="streams-section" hidden>
    <h2>Stream partitions</h2>
    <table id="streams"><thead><tr>
      <th>partition</th><th>table</th><th class="n">committed</th><th class="n">high watermark</th><th class="n">lag</th>
    </tr></thead><tbody></tbody></table>
  </section>
  <section>
    <h2>Recent batches</h2>
    <table id="batches"><thead><tr>
      <th class="n">batch</th><th>table</th><th>state</th><th>committed</th><th class="n">files</th><th class="n">rows</th>
      <th class="n">inserted</th><th class="n">updated</th><th class="n">deleted</th><th class="n">stale</th>
      <th class="n">quarantined</th><th class="n">duration</th><th class="n">commit</th><th>snapshot</th>
    </tr></thead><tbody></tbody></table>
  </section>
  <section>
    <h2>Quarantined files</h2>
    <table id="quarantined"><thead><tr>
      <th>when</th><th>table</th><th>file</th><th>reason</th>
    </tr></thead><tbody></tbody></table>
  </section>
  <section>
    <h2>Maintenance runs</h2>
    <table id="maintenance"><thead><tr>
      <th>when</th><th>table</th><th>kind</th><th>snapshot</th>
    </tr></thead><tbody></tbody></table>
  </section>
</main>
</body>
</html>
)floe";

constexpr std::string_view kStyle =
    R"floe(:root { color-scheme: light; --ink: #1d2330; --muted: #667085; --line: #e4e7ec; --bg: #f7f8fa;
  --ok: #067647; --warn: #b54708; --bad: #b42318; --accent: #2e5aac; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
  background: var(--bg); }
header { display: flex; align-items: center; gap: 16px; padding: 14px 24px; background: #fff;
  border-bottom: 1px solid var(--line); }
h1 { font-size: 20px; margin: 0; }
h1 span { color: var(--accent); }
h2 { font-size: 15px; margin: 0 0 8px; }
main { padding: 16px 24px 40px; display: grid; gap: 18px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 7px; border-bottom: 1px solid var(--line); white-space: nowrap;
  vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
td.wrap { white-space: normal; overflow-wrap: anywhere; max-width: 560px; }
.muted { color: var(--muted); }
.pill { padding: 2px 10px; border-radius: 999px; font-weight: 600; font-size: 13px; background: var(--line); }
.state-ok, .ready { color: var(--ok); background: #ecfdf3; }
.state-pending, .state-ingesting { color: var(--accent); background: #eef4ff; }
.state-failing { color: var(--warn); background: #fffaeb; }
.state-stopped, .not-ready { color: var(--bad); background: #fef3f2; }
#errors { border-color: #fda29b; background: #fef3f2; color: var(--bad); }
#reasons p { margin: 8px 0 0; color: var(--bad); }
svg text { font-size: 11px; fill: var(--muted); }
.legend { display: flex; gap: 16px; margin-top: 4px; font-size: 12px; color: var(--muted); }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; }
)floe";

constexpr std::string_view kScript = R"floe('use strict';
// Every value shown comes from /api/status and is set with textContent:
// file names and messages are untrusted and never parsed as HTML.
(function () {
  const REFRESH_MS = 5000;
  const SVG = 'http://www.w3.org/2000/svg';
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get('token')) {
    sessionStorage.setItem('floe-token', fragment.get('token'));
    history.replaceState(null, '', location.pathname);
  }
  const token = sessionStorage.getItem('floe-token');

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }
  function svg(tag, attributes) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
    return node;
  }
  function number(n) { return n === null || n === undefined ? '–' : Number(n).toLocaleString('en-US'); }
  function bytes(n) {
    if (n === null || n === undefined) return '–';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let v = Number(n), i = 0;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; ++i; }
    return (i === 0 ? v : v.toFixed(1)) + ' ' + units[i];
  }
  function ago(seconds) {
    if (seconds === null || seconds === undefined) return '–';
    if (seconds < 60) return seconds + ' s ago';
    if (seconds < 3600) return Math.floor(seconds / 60) + ' min ago';
    if (seconds < 86400) return (seconds / 3600).toFixed(1) + ' h ago';
    return (seconds / 86400).toFixed(1) + ' d ago';
  }
  function duration(ms) {
    if (ms === null || ms === undefined) return '–';
    return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(1) + ' s';
  }
  function when(iso) { return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '–'; }
  function changed(stats) { return stats ? stats.inserted + stats.updated + stats.deleted : 0; }
  function row(cells) {
    const tr = el('tr');
    for (const cell of cells) {
      const [text, className] = Array.isArray(cell) ? cell : [cell, ''];
      tr.appendChild(el('td', text, className));
    }
    return tr;
  }
  function fill(id, rows, empty) {
    const body = document.querySelector('#' + id + ' tbody');
    body.replaceChildren();
    for (const r of rows) body.appendChild(r);
    if (rows.length === 0) {
      const tr = el('tr');
      const td = el('td', empty, 'muted');
      td.colSpan = document.querySelectorAll('#' + id + ' thead th').length;
      tr.appendChild(td);
      body.appendChild(tr);
    }
  }
  function state(text) {
    const td = el('td');
    td.appendChild(el('span', text, 'pill state-' + text));
    return td;
  }

  function renderTables(status) {
    const lag = new Map();
    for (const p of status.streams || []) lag.set(p.table, (lag.get(p.table) || 0) + p.lag);
    const rows = [];
    const reasons = document.getElementById('reasons');
    reasons.replaceChildren();
    for (const t of status.tables) {
      const m = t.maintenance;
      const tr = row([t.source_table, t.table]);
      tr.appendChild(state(t.state));
      const small = m.small_files === null ? '–'
        : number(m.small_files) + (m.small_file_ratio === null ? '' : ' (' + Math.round(m.small_file_ratio * 100) + '%)');
      for (const cell of [[number(t.pending_files), 'n'], [bytes(t.pending_bytes), 'n'],
        [t.oldest_pending_age_seconds === null ? '–' : ago(t.oldest_pending_age_seconds).replace(' ago', ''), 'n'],
        [status.streams ? number(lag.get(t.source_table) || 0) : '–', 'n'], [ago(t.seconds_since_commit), 'n'],
        [number(changed(t.last_hour)), 'n'], [number(changed(t.last_day)), 'n'], [number(t.quarantined_last_day), 'n'],
        [m.table_exists ? number(m.data_files) : '–', 'n'], [m.table_exists ? number(m.delete_files) : '–', 'n'],
        [small, 'n'], [m.last_compaction
          ? ago(Math.max(0, Math.round((status.generated_at_ms - Date.parse(m.last_compaction)) / 1000))) : '–']]) {
        tr.appendChild(el('td', cell[0], cell[1] || ''));
      }
      rows.push(tr);
      if (t.reason) reasons.appendChild(el('p', t.source_table + ' is ' + t.state + ': ' + t.reason));
    }
    fill('tables', rows, 'No tables yet: nothing was discovered.');
  }

  function renderChart(history) {
    const box = document.getElementById('chart');
    box.replaceChildren();
    const width = 760, height = 200, left = 56, right = 56, top = 12, bottom = 28;
    const plotW = width - left - right, plotH = height - top - bottom;
    const chart = svg('svg', { viewBox: '0 0 ' + width + ' ' + height, width: '100%', role: 'img',
      'aria-label': 'rows committed and commit latency per hour' });
    chart.style.maxWidth = width + 'px';
    const maxRows = Math.max(1, ...history.map((h) => h.rows));
    const maxMs = Math.max(1, ...history.map((h) => h.max_commit_ms));
    const slot = plotW / Math.max(1, history.length);
    chart.appendChild(svg('line', { x1: left, y1: top + plotH, x2: left + plotW, y2: top + plotH, stroke: '#d0d5dd' }));
    for (const [value, y] of [[maxRows, top], [0, top + plotH]]) {
      const label = svg('text', { x: left - 6, y: y + 4, 'text-anchor': 'end' });
      label.textContent = number(value);
      chart.appendChild(label);
    }
    const msLabel = svg('text', { x: left + plotW + 6, y: top + 4 });
    msLabel.textContent = duration(maxMs);
    chart.appendChild(msLabel);
    const points = [];
    history.forEach((h, i) => {
      const barH = (h.rows / maxRows) * plotH;
      const rect = svg('rect', { x: left + i * slot + slot * 0.15, y: top + plotH - barH, width: slot * 0.7,
        height: Math.max(barH, h.rows > 0 ? 1 : 0), fill: '#84adff', rx: 2 });
      const tip = svg('title');
      tip.textContent = when(h.start) + ': ' + number(h.rows) + ' rows in ' + h.batches + ' batches, commit max ' +
        duration(h.max_commit_ms) + ', avg ' + duration(h.avg_commit_ms);
      rect.appendChild(tip);
      chart.appendChild(rect);
      points.push((left + i * slot + slot / 2) + ',' + (top + plotH - (h.max_commit_ms / maxMs) * plotH));
      const label = svg('text', { x: left + i * slot + slot / 2, y: height - 8, 'text-anchor': 'middle' });
      label.textContent = h.start.slice(11, 16);
      chart.appendChild(label);
    });
    chart.appendChild(svg('polyline', { points: points.join(' '), fill: 'none', stroke: '#b54708', 'stroke-width': 2 }));
    for (const p of points) {
      const [x, y] = p.split(',');
      chart.appendChild(svg('circle', { cx: x, cy: y, r: 3, fill: '#b54708' }));
    }
    box.appendChild(chart);
    const legend = el('div', null, 'legend');
    for (const [color, text] of [['#84adff', 'rows committed per hour (left axis)'],
      ['#b54708', 'slowest commit in the hour (right axis)']]) {
      const item = el('span');
      const swatch = el('span', null, 'swatch');
      swatch.style.background = color;
      item.appendChild(swatch);
      item.appendChild(document.createTextNode(text));
      legend.appendChild(item);
    }
    box.appendChild(legend);
  }

  function render(status, health) {
    document.getElementById('pipeline').textContent = status.pipeline;
    document.title = 'floe ' + status.pipeline;
    const pill = document.getElementById('health');
    pill.textContent = health.ok ? 'ready' : 'not ready: ' + health.text.trim();
    pill.className = 'pill ' + (health.ok ? 'ready' : 'not-ready');
    document.getElementById('updated').textContent = 'updated ' + when(status.generated_at) +
      (status.running ? ' · pid ' + status.pid : ' · not running');
    const errors = document.getElementById('errors');
    errors.replaceChildren();
    errors.hidden = status.errors.length === 0;
    for (const e of status.errors) errors.appendChild(el('div', e));
    renderTables(status);
    renderChart(status.history);
    const streams = status.streams || [];
    document.getElementById('streams-section').hidden = status.streams === null;
    fill('streams', streams.map((p) => row([p.topic + '[' + p.partition + ']', p.table, [number(p.committed), 'n'],
      [number(p.high), 'n'], [number(p.lag), 'n']])), 'No partitions.');
    fill('batches', status.recent_batches.map((b) => {
      const s = b.stats || {};
      return row([[b.batch, 'n'], b.table, b.committed ? 'committed' : 'open', when(b.committed_at),
        [number(s.files), 'n'], [number(s.rows), 'n'], [number(s.inserted), 'n'], [number(s.updated), 'n'],
        [number(s.deleted), 'n'], [number(s.stale), 'n'], [number(s.quarantined), 'n'], [duration(b.duration_ms), 'n'],
        [duration(b.commit_ms), 'n'], b.snapshot || '–']);
    }), 'No batches yet.');
    // A reason that rose through the file's reader starts with its path: shown once.
    const reasonOf = (q) => (q.reason.startsWith(q.uri + ': ') ? q.reason.slice(q.uri.length + 2) : q.reason);
    fill('quarantined', status.quarantined.map((q) => row([when(q.at), q.table, [q.uri, 'wrap'], [reasonOf(q), 'wrap']])),
      'Nothing quarantined.');
    fill('maintenance', status.maintenance_runs.map((r) => row([when(r.at), r.table, r.kind, r.snapshot || '–'])),
      'No maintenance commits yet.');
  }

  async function get(path) {
    const headers = token ? { Authorization: 'Bearer ' + token } : {};
    return fetch(path, { headers, cache: 'no-store' });
  }

  async function refresh() {
    try {
      const [statusResponse, readyResponse] = await Promise.all([get('/api/status'), get('/readyz')]);
      if (!statusResponse.ok) throw new Error('/api/status answered ' + statusResponse.status +
        (statusResponse.status === 401 ? ' (open the page as /#token=<token>)' : ''));
      const status = await statusResponse.json();
      render(status, { ok: readyResponse.ok, text: await readyResponse.text() });
    } catch (error) {
      const pill = document.getElementById('health');
      pill.textContent = String(error.message || error);
      pill.className = 'pill not-ready';
    } finally {
      setTimeout(refresh, REFRESH_MS);
    }
  }
  refresh();
})();
)floe";

}  // namespace

std::string_view DashboardHtml() {
  return kHtml;
}
std::string_view DashboardScript() {
  return kScript;
}
std::string_view DashboardStyle() {
  return kStyle;
}

}  // namespace floe::observability
