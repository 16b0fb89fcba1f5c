/* Baton's snapshot viewer: one script for the report file (`baton view`) and for /console (`baton run`).
 * Every piece of data reaches the page through textContent or a property that takes text (title, value):
 * nothing from a snapshot is ever parsed as HTML, set as a URL or run. */
(function () {
  'use strict';
  var doc = document;
  var PAGE = 100;

  function el(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function txt(parent, s) { parent.appendChild(doc.createTextNode(String(s))); }
  function fmt(n) { return n === null || n === undefined ? '—' : Number(n).toLocaleString('en'); }
  function kv(rows) {
    var t = el('table', 'kv');
    rows.forEach(function (r) {
      var tr = add(t, el('tr'));
      add(tr, el('th', null, r[0]));
      var td = add(tr, el('td', null, r[1] === null || r[1] === undefined ? '—' : r[1]));
      if (r[2]) td.className = r[2];
    });
    return t;
  }

  /* ---------- one snapshot ---------- */

  function markersOf(snap) {
    return (snap.truncations || []).map(function (t, i) { return { text: t.marker, idx: i }; });
  }

  // Writes text into parent, each occurrence of a truncation marker as a <mark> linked to its entry.
  function markedText(parent, text, markers, found, onMark) {
    text = text === null || text === undefined ? '' : String(text);
    var hits = [];
    markers.forEach(function (m) {
      if (!m.text) return;
      var from = 0, p;
      while ((p = text.indexOf(m.text, from)) >= 0) { hits.push([p, p + m.text.length, m.idx]); from = p + m.text.length; }
    });
    hits.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
    var pos = 0;
    hits.forEach(function (h) {
      if (h[0] < pos) return;
      if (h[0] > pos) txt(parent, text.slice(pos, h[0]));
      var m = add(parent, el('mark', 'marker', text.slice(h[0], h[1])));
      m.setAttribute('data-t', String(h[2]));
      m.title = 'truncations[' + h[2] + ']';
      m.tabIndex = 0;
      m.addEventListener('click', function () { onMark(h[2]); });
      found[h[2]] = true;
      pos = h[1];
    });
    if (pos < text.length) txt(parent, text.slice(pos));
  }

  function isNarrated(m) {
    return m.role === 'system' && /^\[[A-Za-z0-9_-]{1,64} called /.test(m.content || '');
  }

  function messageBox(m, markers, found, onMark, extraClass) {
    var narrated = isNarrated(m);
    var box = el('div', 'msg ' + (narrated ? 'narrated' : String(m.role).replace(/[^a-z]/g, '')) + (extraClass ? ' ' + extraClass : ''));
    var who = add(box, el('div', 'who', narrated ? 'narrated (another agent\u2019s tool step)' : m.role));
    if (m.name) txt(who, ' \u00b7 ' + m.name);
    if (m.tool_call_id) txt(who, ' \u00b7 answers ' + m.tool_call_id);
    markedText(add(box, el('pre', 'content')), m.content, markers, found, onMark);
    if (m.tool_calls && m.tool_calls.length) {
      var calls = add(box, el('div', 'calls'));
      m.tool_calls.forEach(function (c) {
        var args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
        var p = add(calls, el('pre', 'call'));
        markedText(p, 'call ' + c.call_id + ': ' + c.tool + '(' + args + ')', markers, found, onMark);
      });
    }
    return box;
  }

  function seqRanges(snap, kind) {
    return (snap.truncations || []).filter(function (t) {
      return t.kind === kind && t.seq_from !== null && t.seq_from !== undefined;
    });
  }

  // Two lanes over the session's seqs 0..as_of_seq: what happened to each turn's tool trail (the R3 plan), and to the
  // turn in the transcript (kept, in the digest, omitted, missing), the worst first where entries overlap.
  var LANES = {
    trails: ['none', 'expanded', 'inlined', 'manifested'],
    transcript: ['kept', 'digested', 'omitted', 'missing']
  };

  function laneRuns(snap, lane) {
    var last = Number(snap.as_of_seq);
    if (!(last >= 0)) return [];
    var n = Math.min(last + 1, 5000000);
    var k = new Uint8Array(n);
    function setAll(seqs, v) { (seqs || []).forEach(function (s) { if (s >= 0 && s < n && k[s] < v) k[s] = v; }); }
    function setRange(kind, v) {
      seqRanges(snap, kind).forEach(function (t) {
        var to = t.seq_to === null || t.seq_to === undefined ? t.seq_from : t.seq_to;
        for (var s = Math.max(0, t.seq_from); s <= to && s < n; s++) if (k[s] < v) k[s] = v;
      });
    }
    var r = snap.retention || {};
    if (lane === 'trails') {
      setAll(r.expanded_seqs, 1); setAll(r.inlined_seqs, 2); setAll(r.manifest_seqs, 3);
    } else {
      setRange('TRANSCRIPT_MIDDLE_SUMMARIZED', 1); setRange('TRANSCRIPT_MIDDLE_DROPPED', 2); setRange('TURNS_MISSING', 3);
    }
    var names = LANES[lane], runs = [], start = 0;
    for (var s = 1; s <= n; s++) {
      if (s === n || k[s] !== k[start]) { runs.push({ from: start, to: s - 1, kind: names[k[start]] }); start = s; }
    }
    return runs;
  }

  function seqLabel(from, to) { return from === to ? 'seq ' + from : 'seq ' + from + '\u2013' + to; }

  function timeline(snap) {
    var wrap = el('div');
    if (!(Number(snap.as_of_seq) >= 0)) {
      add(wrap, el('p', 'muted', 'No turns applied (as_of_seq ' + snap.as_of_seq + ').'));
      return wrap;
    }
    Object.keys(LANES).forEach(function (lane) {
      var runs = laneRuns(snap, lane), counts = {};
      add(wrap, el('div', 'lane', lane === 'trails' ? 'tool trails (retention plan)' : 'turns in the transcript'));
      var bar = add(wrap, el('div', 'timeline'));
      bar.id = 'timeline-' + lane;
      runs.forEach(function (r) {
        counts[r.kind] = (counts[r.kind] || 0) + r.to - r.from + 1;
        var seg = add(bar, el('span', 'k-' + r.kind));
        seg.style.flexGrow = String(r.to - r.from + 1);
        seg.setAttribute('data-kind', r.kind);
        seg.setAttribute('data-from', String(r.from));
        seg.setAttribute('data-to', String(r.to));
        seg.title = seqLabel(r.from, r.to) + ': ' + r.kind;
      });
      var legend = add(wrap, el('div', 'legend'));
      LANES[lane].forEach(function (kind) {
        var s = add(legend, el('span'));
        add(s, el('i', 'k-' + kind));
        txt(s, (kind === 'none' ? 'no trail' : kind) + ' ' + fmt(counts[kind] || 0));
      });
      add(wrap, el('p', 'muted', runs.slice(0, 200).map(function (x) { return seqLabel(x.from, x.to) + ' ' + x.kind; })
        .join(' \u00b7 ') + (runs.length > 200 ? ' \u2026' : '')));
    });
    var r = snap.retention || {};
    if (r.manifest_unlisted) {
      add(wrap, el('p', 'muted', fmt(r.manifest_unlisted) + ' older trail-bearing turns are manifested without being listed.'));
    }
    return wrap;
  }

  function messageKey(m) {
    return JSON.stringify([m.role, m.name || null, m.content, m.tool_calls || [], m.tool_call_id || null]);
  }

  // Edit script from a to b (lists of keys): common head and tail, then a longest common subsequence.
  function diff(a, b) {
    var n = a.length, m = b.length, s = 0, e = 0, ops = [], i, j;
    while (s < n && s < m && a[s] === b[s]) s++;
    while (e < n - s && e < m - s && a[n - 1 - e] === b[m - 1 - e]) e++;
    for (i = 0; i < s; i++) ops.push(['=', i, i]);
    var A = n - s - e, B = m - s - e;
    if (A * B > 4000000) {
      for (i = 0; i < A; i++) ops.push(['-', s + i, -1]);
      for (j = 0; j < B; j++) ops.push(['+', -1, s + j]);
    } else {
      var L = new Uint32Array((A + 1) * (B + 1));
      for (i = A - 1; i >= 0; i--) {
        for (j = B - 1; j >= 0; j--) {
          L[i * (B + 1) + j] = a[s + i] === b[s + j] ? L[(i + 1) * (B + 1) + j + 1] + 1
            : Math.max(L[(i + 1) * (B + 1) + j], L[i * (B + 1) + j + 1]);
        }
      }
      i = 0; j = 0;
      while (i < A || j < B) {
        if (i < A && j < B && a[s + i] === b[s + j]) { ops.push(['=', s + i, s + j]); i++; j++; }
        else if (j < B && (i === A || L[i * (B + 1) + j + 1] >= L[(i + 1) * (B + 1) + j])) { ops.push(['+', -1, s + j]); j++; }
        else { ops.push(['-', s + i, -1]); i++; }
      }
    }
    for (i = 0; i < e; i++) ops.push(['=', n - e + i, m - e + i]);
    return ops;
  }

  function changes(prev, snap, markers, found, onMark) {
    var wrap = el('div');
    wrap.id = 'changes';
    if (!prev) { add(wrap, el('p', 'muted', 'First hand-off of this session here: nothing to compare with.')); return wrap; }
    var pm = prev.messages || [], sm = snap.messages || [];
    var ops = diff(pm.map(messageKey), sm.map(messageKey));
    var added = 0, removed = 0, same = 0;
    ops.forEach(function (o) { if (o[0] === '+') added++; else if (o[0] === '-') removed++; else same++; });
    add(wrap, el('p', 'summary', 'Since ' + prev.handoff_id + ' (as_of_seq ' + prev.as_of_seq + '): ' + added + ' added, '
      + removed + ' removed, ' + same + ' unchanged messages.'));
    var run = 0;
    function flush() { if (run) { add(wrap, el('div', 'same', '\u2026 ' + run + ' unchanged message' + (run === 1 ? '' : 's'))); run = 0; } }
    ops.forEach(function (o) {
      if (o[0] === '=') { run++; return; }
      flush();
      if (o[0] === '+') add(wrap, messageBox(sm[o[2]], markers, {}, onMark, 'added'));
      else add(wrap, messageBox(pm[o[1]], [], {}, onMark, 'removed'));
    });
    flush();
    return wrap;
  }

  function renderSnapshot(target, snap, prev) {
    clear(target);
    var markers = markersOf(snap);
    var found = {};
    function goTrunc(i) {
      var row = doc.getElementById('t-' + i);
      if (!row) return;
      Array.prototype.forEach.call(target.querySelectorAll('tr.target'), function (r) { r.classList.remove('target'); });
      row.classList.add('target');
      row.scrollIntoView({ block: 'center' });
    }
    var h = add(target, el('h2', 'snapshot-id', snap.snapshot_id));
    if (snap.synthetic) add(h, el('span', 'badge synthetic', 'synthetic'));
    add(target, kv([
      ['receiver', snap.to_agent], ['from', snap.from_agent || '(none)'], ['target', snap.target],
      ['hand-off', snap.handoff_id], ['occurred at', snap.occurred_at], ['as_of_seq', snap.as_of_seq],
      ['turns applied', fmt(snap.turn_count)], ['content_sha256', snap.content_sha256]
    ]));

    add(target, el('h3', null, 'Sizes and parity'));
    var st = snap.stats || {}, p = snap.parity || {};
    var rows = [['messages', fmt((snap.messages || []).length)], ['message characters', fmt(st.message_chars)],
      ['brick characters', fmt(st.brick_chars)], ['estimated tokens', fmt(st.estimated_tokens)]];
    (st.token_counts || []).forEach(function (t) {
      rows.push(['tokens (' + t.encoding + ')', fmt(t.transcript_tokens) + ' transcript + ' + fmt(t.brick_tokens) + ' brick']);
    });
    rows.push(['trail bytes', fmt((snap.retention || {}).trail_bytes)]);
    var full = p.covered_items === p.reference_items;
    rows.push(['parity', fmt(p.covered_items) + ' / ' + fmt(p.reference_items) + ' items of ' + p.reference_agent + '\u2019s rendering',
      full ? 'ok' : 'warn']);
    var sizes = add(target, kv(rows));
    sizes.id = 'sizes';

    add(target, el('h3', null, 'Retention plan'));
    add(target, timeline(snap));

    add(target, el('h3', null, 'Framing'));
    var fr = snap.framing || {};
    add(target, el('p', null, fr.kind));
    var fp = add(target, el('pre', 'box'));
    fp.id = 'framing';
    markedText(fp, fr.system_prompt, markers, found, goTrunc);

    add(target, el('h3', null, 'Brick'));
    var bp = add(target, el('pre', 'box'));
    bp.id = 'brick';
    markedText(bp, snap.brick, markers, found, goTrunc);

    add(target, el('h3', null, 'Messages (' + (snap.messages || []).length + ')'));
    var list = add(target, el('div'));
    list.id = 'messages';
    (snap.messages || []).forEach(function (m) { add(list, messageBox(m, markers, found, goTrunc)); });

    add(target, el('h3', null, 'Truncations (' + (snap.truncations || []).length + ')'));
    var tt = add(target, el('table', 'kv'));
    tt.id = 'truncations';
    var head = add(tt, el('tr'));
    ['#', 'kind', 'seqs', 'count', 'marker', ''].forEach(function (c) { add(head, el('th', null, c)); });
    (snap.truncations || []).forEach(function (t, i) {
      var tr = add(tt, el('tr'));
      tr.id = 't-' + i;
      add(tr, el('td', null, i));
      add(tr, el('td', null, t.kind));
      add(tr, el('td', null, t.seq_from === null || t.seq_from === undefined ? '—'
        : t.seq_from === t.seq_to ? t.seq_from : t.seq_from + '\u2013' + t.seq_to));
      add(tr, el('td', null, fmt(t.count)));
      add(add(tr, el('td')), el('pre', null, t.marker));
      add(tr, el('td', found[i] ? 'ok' : 'warn', found[i] ? 'shown' : 'not found in the text'));
    });

    add(target, el('h3', null, 'Changes since the previous hand-off'));
    add(target, changes(prev, snap, markers, {}, goTrunc));
  }

  /* ---------- report (baton view) ---------- */

  function report(app) {
    var data = JSON.parse(doc.getElementById('baton-index').textContent);
    var all = data.snapshots;
    var prevOf = new Int32Array(all.length), lastOf = {};
    all.forEach(function (x, i) {
      var key = x.t + '/' + x.s;
      prevOf[i] = lastOf.hasOwnProperty(key) ? lastOf[key] : -1;
      lastOf[key] = i;
    });
    var top = add(app, el('header', 'top'));
    add(top, el('h1', null, 'Baton snapshots'));
    add(top, el('span', 'sub', data.source + ' \u00b7 ' + fmt(all.length) + ' snapshots'
      + (data.skipped ? ' \u00b7 ' + fmt(data.skipped) + ' unreadable lines skipped' : '')));
    var layout = add(app, el('div', 'layout'));
    var side = add(layout, el('nav', 'side'));
    var main = add(layout, el('main', 'main'));
    main.id = 'detail';
    add(main, el('p', 'muted', 'Select a snapshot.'));

    var filters = add(side, el('div', 'filters'));
    function field(label, input, id) {
      var l = add(filters, el('label', null, label));
      input.id = id;
      add(l, input);
      return input;
    }
    var fSession = field('session', el('input'), 'filter-session');
    fSession.placeholder = 'tenant/session contains';
    function select(label, id, values) {
      var s = el('select');
      values.forEach(function (v) { var o = add(s, el('option', null, v[1])); o.value = v[0]; });
      return field(label, s, id);
    }
    function distinct(f) {
      var seen = {};
      all.forEach(function (x) { if (f(x) !== null && f(x) !== undefined) seen[f(x)] = true; });
      return Object.keys(seen).sort();
    }
    var fReceiver = select('receiver', 'filter-receiver', [['', 'any']].concat(distinct(function (x) { return x.to; })
      .map(function (v) { return [v, v]; })));
    var fSynthetic = select('hand-offs', 'filter-synthetic', [['', 'all'], ['real', 'real only'], ['synthetic', 'synthetic only']]);
    var fTrigger = select('trigger', 'filter-trigger', [['', 'any']].concat(distinct(function (x) { return x.tr; })
      .map(function (v) { return [v, v === 'error' ? 'error (after an ERROR step)' : v]; })));
    var list = add(side, el('ul', 'list'));
    list.id = 'list';
    var pager = add(side, el('div', 'pager'));
    var prevB = add(pager, el('button', null, '\u2039 prev'));
    var info = add(pager, el('span'));
    info.id = 'page-info';
    var nextB = add(pager, el('button', null, 'next \u203a'));

    var shown = [], page = 0, selected = -1;
    function apply() {
      var q = fSession.value.trim(), r = fReceiver.value, sy = fSynthetic.value, tr = fTrigger.value;
      shown = [];
      for (var i = 0; i < all.length; i++) {
        var x = all[i];
        if (q && (x.t + '/' + x.s).indexOf(q) < 0) continue;
        if (r && x.to !== r) continue;
        if (sy === 'real' && x.sy) continue;
        if (sy === 'synthetic' && !x.sy) continue;
        if (tr && x.tr !== tr) continue;
        shown.push(i);
      }
      page = 0;
      draw();
    }
    function draw() {
      clear(list);
      var pages = Math.max(1, Math.ceil(shown.length / PAGE));
      if (page >= pages) page = pages - 1;
      shown.slice(page * PAGE, page * PAGE + PAGE).forEach(function (i) {
        var x = all[i];
        var li = add(list, el('li', i === selected ? 'selected' : null));
        var b = add(li, el('button'));
        b.setAttribute('data-index', String(i));
        var r1 = add(b, el('div', 'row1', x.t + '/' + x.s));
        if (x.sy) add(r1, el('span', 'badge synthetic', x.tr ? 'synthetic: ' + x.tr : 'synthetic'));
        add(b, el('div', 'row2 handoff', x.h));
        add(b, el('div', 'row2', '\u2192 ' + x.to + ' \u00b7 ' + x.ta + ' \u00b7 seq ' + x.q + ' \u00b7 ' + fmt(x.c) + ' chars \u00b7 '
          + fmt(x.k) + ' tokens' + (x.x ? ' \u00b7 ' + x.x + ' truncations' : '')));
        b.addEventListener('click', function () { show(i); });
      });
      info.textContent = shown.length ? 'page ' + (page + 1) + ' of ' + pages + ' \u00b7 ' + fmt(shown.length) + ' shown'
        : 'nothing matches';
      prevB.disabled = page === 0;
      nextB.disabled = page >= pages - 1;
    }
    function load(i) { return JSON.parse(doc.getElementById('baton-s-' + i).textContent); }
    function show(i) {
      selected = i;
      Array.prototype.forEach.call(list.querySelectorAll('li'), function (li) {
        li.className = li.firstChild.getAttribute('data-index') === String(i) ? 'selected' : '';
      });
      renderSnapshot(main, load(i), prevOf[i] >= 0 ? load(prevOf[i]) : null);
      main.scrollTop = 0;
    }
    // a text field filters as one types; a select when it changes (not on blur: that would redraw the list under a click)
    fSession.addEventListener('input', apply);
    [fReceiver, fSynthetic, fTrigger].forEach(function (f) { f.addEventListener('change', apply); });
    prevB.addEventListener('click', function () { page--; draw(); });
    nextB.addEventListener('click', function () { page++; draw(); });
    apply();
  }

  /* ---------- console (baton run, /console) ---------- */

  function consolePage(app) {
    var token = null, tenant = null, lastPreview = {};
    var top = add(app, el('header', 'top'));
    add(top, el('h1', null, 'Baton console'));
    var who = add(top, el('span', 'sub', 'read-only \u00b7 not logged in'));
    var layout = add(app, el('div', 'layout'));
    var side = add(layout, el('nav', 'side'));
    var main = add(layout, el('main', 'main'));
    main.id = 'detail';
    var form = add(side, el('form', 'login'));
    function input(label, id, type) {
      var l = add(form, el('label', null, label));
      var i = add(l, el('input'));
      i.id = id; i.type = type; i.autocomplete = 'off';
      return i;
    }
    var tIn = input('tenant', 'login-tenant', 'text');
    var kIn = input('token', 'login-token', 'password');
    var go = add(form, el('button', null, 'Log in'));
    go.id = 'login-button';
    go.type = 'submit';
    var rIn = input('preview for receiver (optional)', 'receiver', 'text');
    var err = add(side, el('div', 'error'));
    err.id = 'error';
    var list = add(side, el('ul', 'list'));
    list.id = 'sessions';
    add(main, el('p', 'muted', 'Log in with a tenant and its token. The token stays in this page\u2019s memory and is sent '
      + 'only as an Authorization header to this server.'));

    function call(path) {
      return fetch(path, {
        headers: { 'Authorization': 'Bearer ' + token, 'Accept': 'application/json' },
        credentials: 'omit', cache: 'no-store', redirect: 'error', referrerPolicy: 'no-referrer'
      }).then(function (res) {
        return res.text().then(function (body) {
          var json = null;
          try { json = JSON.parse(body); } catch (e) { json = null; }
          if (!res.ok) throw new Error(res.status + ': ' + (json && json.error ? json.error : res.statusText));
          return json;
        });
      });
    }
    function fail(e) { err.textContent = String(e && e.message ? e.message : e); }
    function sessions() {
      err.textContent = '';
      clear(list);
      call('/console/api/tenants/' + encodeURIComponent(tenant) + '/sessions').then(function (body) {
        who.textContent = 'read-only \u00b7 tenant ' + tenant + ' \u00b7 ' + body.sessions.length + (body.sessions.length === 1 ? ' session on ' : ' sessions on ')
          + body.served_by + (body.truncated ? ' (first ' + body.sessions.length + ')' : '');
        body.sessions.forEach(function (s) {
          var li = add(list, el('li'));
          var b = add(li, el('button'));
          add(b, el('div', 'row1', s.session_id));
          b.setAttribute('data-session', s.session_id);
          b.addEventListener('click', function () { open(s.session_id); });
        });
        if (!body.sessions.length) add(list, el('li', 'muted', 'No session of this tenant in this instance\u2019s stores.'));
      }).catch(fail);
    }
    function open(session) {
      var t = tenant;
      err.textContent = '';
      var q = rIn.value.trim() ? '?to_agent=' + encodeURIComponent(rIn.value.trim()) : '';
      call('/sessions/' + encodeURIComponent(t) + '/' + encodeURIComponent(session) + q).then(function (body) {
        clear(main);
        var st = body.state || {};
        add(main, el('h2', null, t + '/' + session));
        var stTable = add(main, kv(Object.keys(st).map(function (k) {
          var v = st[k];
          return [k, typeof v === 'object' && v !== null ? JSON.stringify(v) : v];
        })));
        stTable.id = 'state';
        if (!body.preview) { add(main, el('p', 'muted', body.preview_note || 'no preview')); return; }
        add(main, el('p', 'muted', 'Preview: the snapshot a hand-off to ' + body.preview.to_agent
          + ' would get now (nothing is written). Changes are against the previous look at this session in this page.'));
        var box = add(main, el('div'));
        var key = t + '/' + session + '/' + body.preview.to_agent;
        renderSnapshot(box, body.preview, lastPreview[key] || null);
        lastPreview[key] = body.preview;
      }).catch(fail);
    }
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      tenant = tIn.value.trim();
      token = kIn.value;
      kIn.value = '';
      sessions();
    });
  }

  var app = doc.getElementById('app');
  if (doc.body.getAttribute('data-mode') === 'console') consolePage(app); else report(app);
})();
