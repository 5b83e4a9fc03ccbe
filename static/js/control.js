// The directors' control room: every event of the game as it happens, and the state panel
// re-fetched (server-rendered HTML) after each burst of events.
// The directors' stream is numbered by the global sequence without gaps: a gap or a reconnect
// fetches what was missed from /api/games/<id>/events?after=N.
(function () {
  "use strict";
  var configEl = document.getElementById("control-config");
  if (!configEl) return;
  var config = JSON.parse(configEl.textContent);
  var log = document.getElementById("control-log");
  var panel = document.getElementById("control-state");
  var status = document.getElementById("live-status");
  var quiet = document.getElementById("log-quiet");
  var names = config.names || {};
  // Show the recent past on arrival; older events are in the admin's event log.
  var seen = Math.max(0, config.head - 150);
  var socket = null, retry = 1000, refreshTimer = null, fetching = false;

  var NOISE = { engine_step: 1, stage: 1, vote_weights: 1 };
  var AUDIENCE = { "public": "公开", directors: "导演" };

  function nameOf(id) { return names[String(id)] || ("#" + id); }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    // textContent, never innerHTML: payloads hold player-written text (whispers).
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function audience(frame) {
    if (frame.audience === "character") return "→ " + nameOf(frame.audience_character);
    return AUDIENCE[frame.audience] || frame.audience;
  }

  // Character ids in payloads are shown with their names, the rest as compact JSON.
  var ID_KEYS = { character: 1, actor: 1, target: 1, sender: 1, killer: 1, caller: 1, winner: 1 };
  function summary(payload) {
    var parts = [];
    Object.keys(payload || {}).forEach(function (k) {
      var v = payload[k];
      if (ID_KEYS[k] && typeof v === "number") v = nameOf(v);
      else if (typeof v === "object" && v !== null) v = JSON.stringify(v);
      parts.push(k + "=" + v);
    });
    return parts.join(" ");
  }

  function show(frame) {
    var li = el("li", "ev aud-" + frame.audience + (NOISE[frame.kind] ? " noise" : "")
      + (frame.director ? " by-director" : ""));
    var at = new Date(frame.at);
    li.appendChild(el("span", "seq", "#" + frame.seq));
    li.appendChild(el("span", "when", isNaN(at) ? "" : at.toLocaleTimeString("zh-CN", { hour12: false })));
    li.appendChild(el("b", "kind", frame.kind));
    li.appendChild(el("span", "aud", audience(frame)));
    if (frame.actor) li.appendChild(el("span", "actor", nameOf(frame.actor)));
    var text = frame.payload && frame.payload.text ? frame.payload.text : summary(frame.payload);
    var shown = el("span", "payload", text.length > 240 ? text.slice(0, 240) + "…" : text);
    shown.title = text;  // the whole payload on hover; the event log in the admin has it too
    li.appendChild(shown);
    if (frame.reason) li.appendChild(el("span", "reason", "导演理由：" + frame.reason));
    log.insertBefore(li, log.firstChild);
    while (log.children.length > 1000) log.removeChild(log.lastChild);
  }

  function accept(frame) {
    if (frame.seq <= seen) return true;          // already shown
    if (frame.seq !== seen + 1) return false;    // a gap: fetch before showing
    seen = frame.seq;
    show(frame);
    return true;
  }

  function backfill() {
    if (fetching) return Promise.resolve();
    fetching = true;
    return fetch("/api/games/" + config.game + "/events?after=" + seen, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : { events: [] }; })
      .then(function (body) {
        var before = seen;
        body.events.forEach(accept);
        if (seen !== before) scheduleRefresh();
        fetching = false;
        // a page holds at most 500: keep going until caught up
        if (body.events.length >= 500) return backfill();
      })
      .catch(function () { fetching = false; });
  }

  function scheduleRefresh() {
    if (refreshTimer) return;
    // Many events arrive together (a night close); one fetch of the panel after the burst.
    refreshTimer = setTimeout(function () {
      refreshTimer = null;
      fetch(config.state_url, { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) { if (html !== null) { panel.innerHTML = html; tick(); } });
    }, 400);
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function clock(seconds) {
    if (seconds <= 0) return "0:00";
    var h = Math.floor(seconds / 3600), m = Math.floor(seconds % 3600 / 60), s = seconds % 60;
    return (h ? h + ":" + pad(m) : m) + ":" + pad(s);
  }

  function tick() {
    var now = Date.now();
    Array.prototype.forEach.call(document.querySelectorAll(".ctl-countdown[data-due]"), function (node) {
      var left = Math.round((Date.parse(node.dataset.due) - now) / 1000);
      node.textContent = left > 0 ? "还有 " + clock(left) : "已到时";
    });
    Array.prototype.forEach.call(document.querySelectorAll(".ctl-cooldown[data-until]"), function (node) {
      var left = Math.ceil(parseFloat(node.dataset.until) - now / 1000);
      node.textContent = left > 0 ? left + "s" : "—";
    });
  }

  function setStatus(text, ok) {
    status.textContent = text;
    status.className = "ctl-tag " + (ok ? "ok" : "bad");
  }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + "/ws/games/" + config.game + "/");
    socket.onopen = function () { retry = 1000; setStatus("实时连接", true); backfill(); };
    socket.onmessage = function (msg) {
      var frame = JSON.parse(msg.data);
      if (frame.type === "hello") { backfill(); return; }
      if (frame.type !== "event") return;
      if (accept(frame)) scheduleRefresh(); else backfill();
    };
    socket.onclose = function () {
      setStatus("已断开，正在重连…", false);
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    };
  }

  // Clicking a character's row in the table preselects it in every intervention form.
  panel.addEventListener("click", function (event) {
    var row = event.target.closest ? event.target.closest("tr[data-character]") : null;
    if (!row) return;
    Array.prototype.forEach.call(document.querySelectorAll(".ctl-form select[name=character]"), function (sel) {
      sel.value = row.dataset.character;
    });
    Array.prototype.forEach.call(panel.querySelectorAll("tr.picked"), function (r) { r.classList.remove("picked"); });
    row.classList.add("picked");
  });

  function applyQuiet() { log.classList.toggle("quiet", !!(quiet && quiet.checked)); }
  if (quiet) quiet.addEventListener("change", applyQuiet);
  applyQuiet();
  setInterval(tick, 1000);
  tick();
  backfill();
  connect();
})();
