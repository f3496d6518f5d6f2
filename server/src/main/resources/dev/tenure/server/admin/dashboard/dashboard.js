'use strict';
// The Tenure dashboard: reads /api/cluster, /api/locks and /api/lock, and follows /api/events
// (server-sent events from the node's change feed). No framework: plain DOM.

const $ = (sel) => document.querySelector(sel);
const BUCKET_MS = 10000;
const BUCKETS = 30;
const SERIES = [
  ['grants', '#2f6fdf'], ['expiries', '#d98b00'], ['disconnects', '#b3261e'], ['stale writes', '#6b3fa0'],
];
const state = {
  prefix: '', after: '', locks: new Map(), permits: new Map(), selected: null, recent: [],
  listNowMs: 0, listReadAt: 0, lastStaleWrites: null, buckets: [], source: null, refetch: null,
};
// For the browser test: when each lock's token cell last changed (epoch ms), by token.
window.tenureTokenShown = {};

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function num(v) { return v === undefined || v === null || v === '' ? 0 : Number(v); }
function time(ms) { return ms ? new Date(num(ms)).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—'; }
function span(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return s + ' s';
  if (s < 7200) return Math.floor(s / 60) + ' min';
  return Math.floor(s / 3600) + ' h';
}
function endName(e) { return String(e || '').replace(/^TENURE_END_/, '').toLowerCase(); }
function text(b64) {
  try { return new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))); } catch (e) { return b64; }
}

async function getJson(path) {
  const r = await fetch(path, { cache: 'no-store' });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || body.denied || ('HTTP ' + r.status));
  return body;
}

function dl(target, rows) {
  target.replaceChildren();
  for (const [k, v] of rows) { target.append(el('dt', k), el('dd', String(v))); }
}

// --- cluster ---
async function loadCluster() {
  let c;
  try { c = await getJson('/api/cluster'); } catch (e) { markQuorum(false, 0, 'the node does not answer: ' + e.message); return; }
  const s = c.status;
  if (!s) { markQuorum(false, 0, 'the node has not probed itself yet'); return; }
  const ok = s.health === 'ok' && !c.stale;
  markQuorum(ok, s.health_since_ms, ok ? '' : (c.stale ? 'status probe stale' : s.health_detail));
  dl($('#cluster'), [
    ['node', s.node_id], ['leader', num(s.leader_id) < 0 ? 'none known' : s.leader_id],
    ['health', s.health + (s.health_detail ? ' (' + s.health_detail + ')' : '')],
    ['since', time(s.health_since_ms)], ['sessions', s.sessions], ['locks / held', s.locks + ' / ' + s.held],
    ['last token', s.last_token], ['revision', s.revision],
    ['log position', s.replica_log_position], ['log start', s.log_start_position],
    ['snapshot position', s.snapshot_position], ['snapshots', s.snapshots],
    ['stale writes rejected', s.stale_writes_rejected],
  ]);
  const tbody = $('#members tbody');
  tbody.replaceChildren();
  for (const m of s.members || []) {
    const tr = el('tr');
    tr.append(el('td', m.id), el('td', m.endpoint), el('td', m.leader ? 'leader' : 'follower'));
    tbody.append(tr);
  }
  if (ok) {
    const stale = num(s.stale_writes_rejected);
    if (state.lastStaleWrites !== null && stale > state.lastStaleWrites) count('stale writes', stale - state.lastStaleWrites);
    state.lastStaleWrites = stale;
  }
}

function markQuorum(ok, sinceMs, why) {
  const q = $('#quorum');
  q.className = ok ? 'ok' : 'bad';
  q.textContent = ok ? 'quorum since ' + time(sinceMs) : 'no quorum since ' + time(sinceMs) + (why ? ' — ' + why : '');
  document.body.classList.toggle('no-quorum', !ok);
  if (!ok) { markStale('#locks-panel', '#locks-state'); markStale('#lock-panel', '#lock-state'); }
}

function markStale(panel, note) {
  $(panel).classList.add('stale');
  $(note).replaceChildren(el('span', 'stale: last read ' + (state.listReadAt ? time(state.listReadAt) : 'never'), 'stale-note'));
}

function fresh(panel, note) { $(panel).classList.remove('stale'); $(note).replaceChildren(); }

// --- locks ---
function kind(lock) {
  const hs = lock.holders || [];
  const h = hs[0];
  const permits = state.permits.get(lock.lock);
  if (h && h.value) return 'election: ' + text(h.value);
  if (h && h.shared) return 'shared lease ×' + hs.length;
  if (hs.length > 1 || permits > 1) return 'semaphore ' + hs.length + '/' + (permits || '?');
  return 'exclusive';
}

async function loadLocks() {
  let page;
  try {
    page = await getJson('/api/locks?prefix=' + encodeURIComponent(state.prefix) + '&after=' + encodeURIComponent(state.after));
  } catch (e) { markStale('#locks-panel', '#locks-state'); return; }
  state.listNowMs = num(page.now_ms);
  state.listReadAt = Date.now();
  state.locks = new Map((page.locks || []).map((l) => [l.lock, l]));
  $('#more').hidden = !page.more;
  state.lastListed = page.locks && page.locks.length ? page.locks[page.locks.length - 1].lock : '';
  renderLocks();
  fresh('#locks-panel', '#locks-state');
  if (!document.body.dataset.locksLoaded) {
    document.body.dataset.locksLoaded = String(Math.round(performance.now()));
  }
}

function renderLocks() {
  const tbody = $('#locks tbody');
  const rows = [];
  for (const lock of state.locks.values()) {
    const h = (lock.holders || [])[0];
    const tr = el('tr');
    tr.dataset.lock = lock.lock;
    const heldFor = h ? span(state.listNowMs - num(h.since_ms) + (Date.now() - state.listReadAt)) : '';
    tr.append(el('td', lock.lock), el('td', h ? kind(lock) : 'free'),
      el('td', h ? h.session_id : '—', 'holder'), el('td', h ? (h.principal || '—') : '—'),
      el('td', h ? (lock.holders.length > 1 ? lock.holders.map((x) => x.token).join(', ') : h.token) : '—', 'token'),
      el('td', heldFor), el('td', num(lock.waiters), 'waiters'));
    tr.addEventListener('click', () => select(lock.lock));
    rows.push(tr);
  }
  tbody.replaceChildren(...rows);
  for (const tr of rows) tokenShown(tr);
}

function tokenShown(tr) {
  const t = tr.querySelector('.token').textContent;
  if (t !== '—' && !(t in window.tenureTokenShown)) window.tenureTokenShown[t] = Date.now();
}

// --- one lock ---
async function select(name) {
  state.selected = name;
  $('#lock-panel').hidden = false;
  $('#lock-name').textContent = name;
  renderRecent();
  let s;
  try { s = await getJson('/api/lock?name=' + encodeURIComponent(name)); } catch (e) { markStale('#lock-panel', '#lock-state'); return; }
  if (state.selected !== name) return;
  fresh('#lock-panel', '#lock-state');
  state.permits.set(name, num(s.permits));
  const cp = s.checkpoint;
  const sw = s.stale_writes || {};
  dl($('#lock'), [
    ['holders', (s.holders || []).map((h) => 'session ' + h.session_id + ' token ' + h.token + (h.principal ? ' (' + h.principal + ')' : '')).join('; ') || 'free'],
    ['permits', s.permits], ['waiters', (s.waiters || []).map((w) => w.session_id + (w.shared ? ' (shared)' : '')).join(', ') || 'none'],
    ['checkpoint', cp ? 'token ' + cp.token + ' at ' + time(cp.at_ms || cp.written_at_ms) + ', ' + atob(cp.value || '').length + ' bytes' : 'none'],
    ['stale writes refused', num(sw.count) ? sw.count + ' (last: token ' + sw.last_token + ' to ' + sw.last_target + ' while ' + sw.last_current_token + ' held it, ' + time(sw.last_at_ms) + ')' : 'none'],
  ]);
  const tbody = $('#history tbody');
  tbody.replaceChildren(...(s.history || []).slice().reverse().map((t) => {
    const tr = el('tr');
    tr.append(el('td', t.session_id), el('td', t.principal || '—'), el('td', t.token), el('td', time(t.granted_at_ms)),
      el('td', time(t.ended_at_ms)), el('td', endName(t.end) + (num(t.forced_by_session_id) ? ' by ' + t.forced_by_session_id : '')));
    return tr;
  }));
}

function renderRecent() {
  const items = state.recent.filter((c) => c.name === state.selected).slice(-30).reverse();
  $('#recent').replaceChildren(...items.map((c) => el('li', '#' + c.revision + ' ' + c.kind.toLowerCase() + ' session ' + c.session_id
    + (c.token ? ' token ' + c.token : '') + (c.kind === 'ENDED' ? ' (' + endName(c.end) + ')' : ''))));
}

// --- live feed ---
function follow() {
  if (state.source) state.source.close();
  const source = new EventSource('/api/events');
  state.source = source;
  source.addEventListener('change', (m) => applyChange(JSON.parse(m.data)));
  source.addEventListener('reset', () => { follow(); loadLocks(); });
}

function applyChange(c) {
  if (c.kind.startsWith('KV_')) return;
  state.recent.push(c);
  if (state.recent.length > 500) state.recent.shift();
  if (c.permits) state.permits.set(c.name, c.permits);
  if (c.kind === 'GRANTED') count('grants', 1);
  if (c.kind === 'ENDED' && endName(c.end) === 'expired') count('expiries', 1);
  if (c.kind === 'ENDED' && endName(c.end) === 'disconnected') count('disconnects', 1);
  const lock = state.locks.get(c.name);
  if (lock || (c.kind === 'GRANTED' && c.name.startsWith(state.prefix))) {
    patch(lock || { lock: c.name, holders: [], waiters: 0 }, c);
    renderLocks();
  }
  if (c.name === state.selected) renderRecent();
  // The change is shown at once; the listing then fills in what a change does not carry.
  clearTimeout(state.refetch);
  state.refetch = setTimeout(() => { loadLocks(); if (state.selected) select(state.selected); }, 300);
}

function patch(lock, c) {
  const holders = (lock.holders || []).filter((h) => h.token !== String(c.token));
  if (c.kind === 'GRANTED' || c.kind === 'PROCLAIMED' || c.kind === 'DOWNGRADED') {
    holders.push({ session_id: String(c.session_id), token: String(c.token), since_ms: String(c.at_ms), principal: '', shared: c.shared, value: c.value || '' });
  }
  if (c.kind === 'QUEUED') lock.waiters = num(lock.waiters) + 1;
  if (c.kind === 'LEFT' || (c.kind === 'GRANTED' && num(lock.waiters) > 0)) lock.waiters = Math.max(0, num(lock.waiters) - 1);
  lock.holders = holders;
  state.locks.set(lock.lock, lock);
}

// --- chart ---
function bucket() {
  const start = Math.floor(Date.now() / BUCKET_MS) * BUCKET_MS;
  let b = state.buckets[state.buckets.length - 1];
  if (!b || b.start !== start) {
    b = { start, counts: {} };
    state.buckets.push(b);
    while (state.buckets.length > BUCKETS) state.buckets.shift();
  }
  return b;
}

function count(series, n) { const b = bucket(); b.counts[series] = (b.counts[series] || 0) + n; drawChart(); }

function drawChart() {
  bucket();
  const svg = $('#chart');
  const ns = 'http://www.w3.org/2000/svg';
  const now = Math.floor(Date.now() / BUCKET_MS) * BUCKET_MS;
  let max = 1;
  for (const b of state.buckets) for (const [s] of SERIES) max = Math.max(max, b.counts[s] || 0);
  svg.replaceChildren();
  SERIES.forEach(([s, color]) => {
    const pts = [];
    for (let i = 0; i < BUCKETS; i++) {
      const start = now - (BUCKETS - 1 - i) * BUCKET_MS;
      const b = state.buckets.find((x) => x.start === start);
      pts.push((i * 300 / (BUCKETS - 1)).toFixed(1) + ',' + (98 - 94 * ((b && b.counts[s]) || 0) / max).toFixed(1));
    }
    const line = document.createElementNS(ns, 'polyline');
    line.setAttribute('points', pts.join(' '));
    line.setAttribute('fill', 'none');
    line.setAttribute('stroke', color);
    line.setAttribute('stroke-width', '1.5');
    line.setAttribute('vector-effect', 'non-scaling-stroke');
    svg.append(line);
  });
  $('#legend').replaceChildren(...SERIES.map(([s, color]) => {
    const total = state.buckets.reduce((a, b) => a + (b.counts[s] || 0), 0);
    const e = el('span', '■ ' + s + ' ' + total);
    e.style.color = color;
    return e;
  }), el('span', 'top: ' + max));
}

// --- start ---
$('#filter').addEventListener('submit', (e) => { e.preventDefault(); state.prefix = $('#prefix').value; state.after = ''; loadLocks(); });
$('#next').addEventListener('click', () => { state.after = state.lastListed; loadLocks(); });
follow();
loadCluster();
loadLocks();
setInterval(loadCluster, 2000);
setInterval(() => { renderLocks(); drawChart(); }, 5000);
drawChart();
