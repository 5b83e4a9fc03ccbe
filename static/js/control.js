// The directors' control room: every event of the game as it happens, one Chinese sentence
// each (rendered by the server, shown in 北京时间), filterable by character and by kind, the
// engine steps behind a toggle; and the state panel re-fetched (server-rendered HTML) after
// each burst of events.
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
  var showSteps = document.getElementById("log-steps");
  var byCharacter = document.getElementById("log-character");
  var byKind = document.getElementById("log-kind");
  var names = config.names || {};
  // Show the recent past on arrival; older events are in the admin's event log.
  var seen = Math.max(0, config.head - 150);
  var socket = null, retry = 1000, refreshTimer = null, fetching = false;
  var kindLabels = {};

  // The server renders each line (games/eventlog.py); this is only for a frame without one.
  var BEIJING = new Intl.DateTimeFormat("zh-CN", {
    timeZone: "Asia/Shanghai", month: "numeric", day: "numeric",
    hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false
  });

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    // textContent, never innerHTML: sentences quote player-written text (whispers).
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function when(frame) {
    if (frame.at_text) return frame.at_text;
    var at = new Date(frame.at);
    return isNaN(at) ? "" : BEIJING.format(at);
  }

  // The character filter lists the game's characters; the kind filter the labels seen so far.
  function fillCharacters() {
    if (!byCharacter) return;
    Object.keys(names).sort(function (a, b) { return Number(a) - Number(b); }).forEach(function (id) {
      var option = el("option", "", names[id]);
      option.value = id;
      byCharacter.appendChild(option);
    });
  }

  function addKindLabel(label) {
    if (!byKind || !label || kindLabels[label]) return;
    kindLabels[label] = true;
    var option = el("option", "", label);
    option.value = label;
    var after = Array.prototype.find.call(byKind.options, function (o) {
      return o.value && o.value.localeCompare(label, "zh-CN") > 0;
    });
    byKind.insertBefore(option, after || null);
  }

  function visible(li) {
    if (li.dataset.step === "1" && !(showSteps && showSteps.checked)) return false;
    var who = byCharacter ? byCharacter.value : "";
    if (who && li.dataset.characters.indexOf("," + who + ",") < 0) return false;
    var what = byKind ? byKind.value : "";
    return !what || li.dataset.kind === what;
  }

  function applyFilters() {
    Array.prototype.forEach.call(log.children, function (li) { li.hidden = !visible(li); });
  }

  // The same private line to several characters in a row (a team's pick, told to each
  // member) is one entry naming all of them.
  var last = null;
  function merged(frame) {
    if (!last || frame.audience !== "character" || last.frame.audience !== "character") return false;
    if (frame.seq !== last.frame.seq + 1 || frame.text !== last.frame.text) return false;
    last.frame = frame;
    last.who.push((frame.audience_label || "").replace(/^仅 /, ""));
    last.aud.textContent = "（仅 " + last.who.join("、") + "）";
    last.li.dataset.characters += (frame.character_ids || []).join(",") + ",";
    last.li.hidden = !visible(last.li);
    return true;
  }

  function show(frame) {
    if (merged(frame)) return;
    var label = frame.kind_label || "其他";
    var li = el("li", "ev aud-" + frame.audience + (frame.step ? " step" : "")
      + (frame.director ? " by-director" : ""));
    li.dataset.step = frame.step ? "1" : "0";
    li.dataset.kind = label;
    li.dataset.characters = "," + (frame.character_ids || []).join(",") + ",";
    li.appendChild(el("span", "when", when(frame)));
    li.appendChild(el("b", "kind", "[" + label + "]"));
    li.appendChild(el("span", "text", frame.text || "（未归类事件）"));
    var aud = el("span", "aud", "（" + (frame.audience_label || "") + "）");
    li.appendChild(aud);
    if (frame.director_name || frame.reason) {
      var by = frame.director_name ? "导演 " + frame.director_name : "导演";
      li.appendChild(el("span", "reason", frame.reason ? by + "：" + frame.reason : by));
    }
    last = { li: li, aud: aud, frame: frame, who: [(frame.audience_label || "").replace(/^仅 /, "")] };
    addKindLabel(label);
    li.hidden = !visible(li);
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
    socket.onopen = function () {
      retry = 1000; setStatus(status.dataset.open, true); backfill();
      document.dispatchEvent(new CustomEvent("room-reconnect"));
    };
    socket.onmessage = function (msg) {
      var frame = JSON.parse(msg.data);
      if (frame.type === "hello") { backfill(); return; }
      if (frame.type !== "event") return;
      // A room's event also feeds the rooms card (control_rooms.js), which numbers by room.
      if (frame.room) document.dispatchEvent(new CustomEvent("room-frame", { detail: frame }));
      if (accept(frame)) scheduleRefresh(); else backfill();
    };
    socket.onclose = function () {
      setStatus(status.dataset.closed, false);
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

  [showSteps, byCharacter, byKind].forEach(function (control) {
    if (control) control.addEventListener("change", applyFilters);
  });
  fillCharacters();
  setInterval(tick, 1000);
  tick();
  backfill();
  connect();
})();
