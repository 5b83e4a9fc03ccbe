// Live events for one game: a websocket for speed, the HTTP log for completeness.
// Each stream is numbered without gaps; a gap or a reconnect triggers a fetch of what was missed.
(function () {
  "use strict";
  var log = document.getElementById("live-log");
  if (!log) return;
  var status = document.getElementById("live-status");
  var gameId = log.dataset.game;
  var director = log.dataset.role === "director";
  var seen = director ? { all: 0 } : { public: 0, private: 0 };
  var socket = null;
  var retry = 1000;

  function show(frame) {
    var li = document.createElement("li");
    var when = document.createElement("span");
    when.className = "when";
    when.textContent = new Date(frame.at).toLocaleTimeString();
    li.appendChild(when);
    // textContent, never innerHTML: payloads can hold player-written text.
    li.appendChild(document.createTextNode(describe(frame)));
    log.insertBefore(li, log.firstChild);
  }

  function describe(frame) {
    var p = frame.payload || {};
    if (frame.kind === "phase_changed") return "第 " + p.day + " 天 · " + p.phase;
    if (frame.kind === "announcement") return "【公示】" + p.title + "\n" + p.body;
    if (frame.kind === "dice_rolled") return "导演掷骰（" + p.purpose + "）：" + p.value + " / " + p.sides;
    if (frame.text) return frame.text;
    if (p.text) return p.text;
    return "（其他事件）";
  }

  function key(frame) { return director ? "all" : frame.stream; }
  function number(frame) { return director ? frame.seq : frame.stream_seq; }

  function accept(frame) {
    var k = key(frame), n = number(frame);
    if (n <= seen[k]) return true;          // already shown
    if (n !== seen[k] + 1) return false;    // a gap: fetch before showing
    seen[k] = n;
    show(frame);
    return true;
  }

  function backfill() {
    var q = director ? "after=" + seen.all
      : "after_public=" + seen.public + "&after_private=" + seen.private;
    return fetch("/api/games/" + gameId + "/events?" + q, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : { events: [] }; })
      .then(function (body) { body.events.forEach(accept); });
  }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + "/ws/games/" + gameId + "/");
    socket.onopen = function () { retry = 1000; status.textContent = status.dataset.open; backfill(); };
    socket.onmessage = function (msg) {
      var frame = JSON.parse(msg.data);
      if (frame.type === "event" && !accept(frame)) backfill();
    };
    socket.onclose = function () {
      status.textContent = status.dataset.closed;
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    };
  }
  connect();
})();
