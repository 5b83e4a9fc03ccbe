// The rooms card of the control room: every room of the game (GET /api/games/<id>/rooms
// answers a director with all of them), each room's messages fetched by the room's own
// numbers, then kept live by the frames control.js hands over ("room-frame" events: the
// directors' socket carries every room's events). A gap in a room's numbers or a reconnect
// fetches what was missed. Sentences are the server's; textContent only (players wrote them).
(function () {
  "use strict";
  var card = document.getElementById("ctl-rooms");
  if (!card) return;
  var game = card.dataset.game;
  var log = document.getElementById("rooms-log");
  var byRoom = document.getElementById("rooms-filter");
  var byKind = document.getElementById("rooms-kind");
  var target = document.getElementById("rooms-target");
  var body = document.getElementById("rooms-body");
  var error = document.getElementById("rooms-error");
  var form = document.getElementById("rooms-compose");
  var rooms = {};     // token -> room row
  var seen = {};      // token -> last room number shown
  var published = {}; // answer seq -> true
  var BEIJING = new Intl.DateTimeFormat("zh-CN", {
    timeZone: "Asia/Shanghai", month: "numeric", day: "numeric",
    hour: "2-digit", minute: "2-digit", hour12: false
  });

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function csrf() {
    var input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function label(room) {
    return room.owner ? room.name + " · " + room.owner : room.name;
  }

  function option(select, value, text) {
    var node = el("option", "", text);
    node.value = value;
    select.appendChild(node);
  }

  function fillSelects() {
    var keepRoom = byRoom.value, keepTarget = target.value;
    byRoom.textContent = "";
    target.textContent = "";
    option(byRoom, "", card.dataset.allRooms);
    Object.keys(rooms).forEach(function (token) {
      var room = rooms[token];
      var text = label(room) + (room.open ? "" : "（已结束）");
      option(byRoom, token, text);
      if (room.open) option(target, token, text);
    });
    byRoom.value = rooms[keepRoom] ? keepRoom : "";
    if (rooms[keepTarget] && rooms[keepTarget].open) target.value = keepTarget;
  }

  function applyFilters() {
    var room = byRoom.value, kind = byKind.value;
    Array.prototype.forEach.call(log.children, function (li) {
      li.hidden = (room && li.dataset.room !== room) || (kind && li.dataset.kind !== kind);
    });
    if (room && rooms[room] && rooms[room].open) target.value = room;
  }

  function publishButton(frame) {
    var button = el("button", "button ctl-rooms-publish", card.dataset.publish);
    button.type = "button";
    button.addEventListener("click", function () {
      if (!window.confirm(card.dataset.confirm)) return;
      button.disabled = true;
      post("/api/games/" + game + "/rooms/announce", { seq: frame.seq }).then(function (answer) {
        if (answer.ok) button.textContent = card.dataset.published;
        else { button.disabled = false; error.textContent = answer.message; }
      });
    });
    return button;
  }

  function show(frame) {
    var p = frame.payload || {};
    var token = p.room;
    if (!token) return;
    if (frame.kind === "room_announced" && p.answer) {
      published[p.answer] = true;
      var done = log.querySelector("li[data-seq='" + p.answer + "'] .ctl-rooms-publish");
      if (done) { done.disabled = true; done.textContent = card.dataset.published; }
    }
    if (log.querySelector("li[data-seq='" + frame.seq + "']")) return;
    var li = el("li", frame.kind === "room_message" ? "" : "step");
    li.dataset.room = token;
    li.dataset.kind = p.room_kind || "";
    li.dataset.seq = frame.seq;
    var at = new Date(frame.at);
    li.appendChild(el("span", "when", isNaN(at) ? "" : BEIJING.format(at)));
    li.appendChild(el("span", "text", frame.text));
    if (frame.kind === "room_message" && p.by_director && p.room_kind === "inbox") {
      if (published[frame.seq]) li.appendChild(el("span", "ctl-tag", card.dataset.published));
      else li.appendChild(publishButton(frame));
    }
    // In order of the game's log: a late fetch slots in where it belongs.
    var next = Array.prototype.find.call(log.children, function (n) {
      return Number(n.dataset.seq) > frame.seq;
    });
    log.insertBefore(li, next || null);
    var empty = log.querySelector(".ctl-rooms-empty");
    if (empty) empty.remove();
    applyFilters();
    log.scrollTop = log.scrollHeight;
  }

  function fetchRoom(token) {
    var after = seen[token] || 0;
    return fetch("/api/games/" + game + "/rooms/" + token + "/messages?after=" + after, {
      credentials: "same-origin"
    }).then(function (r) { return r.ok ? r.json() : { messages: [] }; }).then(function (data) {
      data.messages.forEach(function (frame) {
        seen[token] = Math.max(seen[token] || 0, frame.stream_seq);
        show(frame);
      });
    });
  }

  function load() {
    return fetch("/api/games/" + game + "/rooms", { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : { rooms: [] }; })
      .then(function (data) {
        data.rooms.forEach(function (room) { rooms[room.room] = room; });
        fillSelects();
        if (!data.rooms.some(function (room) { return room.head > 0; }) && !log.children.length) {
          log.appendChild(el("li", "ctl-rooms-empty", card.dataset.empty));
        }
        return Promise.all(data.rooms.map(function (room) {
          return room.head > (seen[room.room] || 0) ? fetchRoom(room.room) : null;
        }));
      });
  }

  function post(url, data) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
      body: JSON.stringify(data)
    }).then(function (r) {
      return r.json().then(function (json) { return { ok: r.ok, message: json.message, json: json }; });
    }).catch(function () { return { ok: false, message: card.dataset.sentError }; });
  }

  document.addEventListener("room-frame", function (event) {
    var frame = event.detail, token = (frame.payload || {}).room;
    if (!rooms[token]) { load(); return; } // a room opened since (a call, a new group)
    if (frame.stream_seq > (seen[token] || 0) + 1) { fetchRoom(token); return; }
    seen[token] = Math.max(seen[token] || 0, frame.stream_seq);
    show(frame);
    if (frame.kind === "room_closed" || frame.kind === "room_joined") load();
  });
  document.addEventListener("room-reconnect", function () { load(); });

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    error.textContent = "";
    if (!target.value || !body.value.trim()) return;
    post("/api/games/" + game + "/rooms/" + target.value + "/messages", { body: body.value })
      .then(function (answer) {
        if (answer.ok) body.value = "";
        else error.textContent = card.dataset.sentError + (answer.message || "");
      });
  });
  [byRoom, byKind].forEach(function (control) { control.addEventListener("change", applyFilters); });
  load();
})();
