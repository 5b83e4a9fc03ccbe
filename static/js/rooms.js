// The player's rooms (templates/games/_rooms.html): a tab per room with its unread count, the
// room's messages and its form. Each room is numbered by the reader's own count (1 is the first
// message after its joining, games/live.py frame_for_member), so a room is a stream without
// gaps: a number seen already is dropped (the POST's answer and the socket's frame are the same
// message), a gap fetches what is missing over HTTP (?after=N), as after a reconnect.
//
// The page's socket is werewolf.js's or royale.js's; they hand every frame over as a
// "game-frame" event. Labels are the server's (data attributes, templates): this script
// writes no text of its own, and messages go in with textContent only (players wrote them).
(function () {
  "use strict";
  var panel = document.getElementById("rooms");
  var configNode = document.getElementById("rooms-config");
  if (!panel || !configNode) return;
  var config = JSON.parse(configNode.textContent);
  var api = "/api/games/" + config.game + "/rooms";
  var tabs = panel.querySelector(".rooms-tabs");
  var panes = panel.querySelector(".rooms-panes");
  var notice = document.getElementById("rooms-notice");
  var none = document.getElementById("rooms-none");
  var labels = panel.dataset;
  var PAGE = 200; // the messages endpoint's page size
  var rooms = {}; // token -> room (its row, tab, pane, how far it is shown and read)
  var active = null;
  var prefix = "rooms:" + config.game + ":" + config.me + ":";

  // Where the reader stopped reading each room, kept across reloads (a private window may
  // refuse storage: the counts then start afresh with each page).
  function recall(key) {
    try { return window.localStorage.getItem(prefix + key); } catch (e) { return null; }
  }
  function remember(key, value) {
    try { window.localStorage.setItem(prefix + key, String(value)); } catch (e) { /* see above */ }
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function clock(at) {
    var when = new Date(at);
    if (isNaN(when)) return null;
    return { short: pad(when.getHours()) + ":" + pad(when.getMinutes()), full: when.toLocaleString() };
  }
  function clone(id) {
    return document.getElementById(id).content.firstElementChild.cloneNode(true);
  }

  // --- the rooms ------------------------------------------------------------------------------

  function track(row, tab, pane) {
    var read = Number(recall(row.room)) || 0;
    // Numbers count from the reader's joining: one that left a group and came back counts
    // afresh, and what it had read before says nothing of the new numbers.
    if (read > row.head) read = 0;
    var room = {
      token: row.room,
      row: row,
      tab: tab,
      pane: pane,
      list: pane.querySelector(".rooms-messages"),
      seen: 0,                           // the last number shown
      read: read,                        // the last number read
      unread: 0,
      fetching: false,
      again: false
    };
    rooms[row.room] = room;
    return room;
  }

  function add(row) {
    var tab = clone("rooms-tab-template");
    var pane = clone("rooms-pane-template");
    tab.id = "rooms-tab-" + row.room;
    tab.dataset.room = row.room;
    tab.setAttribute("aria-controls", "rooms-pane-" + row.room);
    pane.id = "rooms-pane-" + row.room;
    pane.dataset.room = row.room;
    pane.setAttribute("aria-labelledby", tab.id);
    tabs.appendChild(tab);
    panes.appendChild(pane);
    var room = track(row, tab, pane);
    apply(room, row);
    none.hidden = true;
    if (!active) activate(row.room, false);
    return room;
  }

  // A room's row from the server (its name, whether the reader may post and why not).
  function apply(room, row) {
    room.row = row;
    room.tab.querySelector(".rooms-tab-name").textContent = row.label || row.name;
    room.tab.title = row.label || row.name;
    var compose = room.pane.querySelector(".rooms-compose");
    var form = compose.querySelector("form");
    if (row.can_post && !form) {
      compose.textContent = "";
      form = clone("rooms-form-template");
      if (!row.topics) {
        var topic = form.querySelector(".rooms-topic");
        if (topic) topic.remove();
      }
      compose.appendChild(form);
    } else if (!row.can_post) {
      var why = compose.querySelector(".rooms-why");
      if (form || !why) {
        compose.textContent = "";
        why = compose.appendChild(el("p", "rooms-why"));
      }
      why.textContent = row.why || "";
      // what the refusal said is now the line above: not twice
      error(room, "");
    }
  }

  function remove(token, why) {
    // told even when a reload of the rows (a phase change's) took the tab away first
    if (why) { notice.textContent = why; notice.hidden = false; }
    var room = rooms[token];
    if (!room) return;
    delete rooms[token];
    room.tab.remove();
    room.pane.remove();
    if (active === token) {
      active = null;
      var first = tabs.querySelector(".rooms-tab");
      if (first) activate(first.dataset.room, false);
    }
    none.hidden = Object.keys(rooms).length > 0;
  }

  function activate(token, focus) {
    var room = rooms[token];
    if (!room) return;
    active = token;
    remember("active", token);
    Object.keys(rooms).forEach(function (key) {
      var other = rooms[key], on = key === token;
      other.tab.setAttribute("aria-selected", on ? "true" : "false");
      other.tab.tabIndex = on ? 0 : -1;
      other.pane.hidden = !on;
    });
    if (focus) room.tab.focus();
    reveal(room.tab);
    room.list.scrollTop = room.list.scrollHeight;
    markRead(room);
  }

  // Scroll the strip of tabs (not the page) so that the chosen tab is in view on a phone.
  function reveal(tab) {
    var left = tab.offsetLeft, right = left + tab.offsetWidth;
    if (left < tabs.scrollLeft) tabs.scrollLeft = left;
    else if (right > tabs.scrollLeft + tabs.clientWidth) tabs.scrollLeft = right - tabs.clientWidth;
  }

  function markRead(room) {
    if (document.hidden || active !== room.token) return;
    if (room.read < room.seen) { room.read = room.seen; remember(room.token, room.read); }
    room.unread = 0;
    badge(room);
  }

  function badge(room) {
    var mark = room.tab.querySelector(".rooms-unread");
    mark.hidden = room.unread === 0;
    mark.textContent = room.unread > 99 ? "99+" : String(room.unread);
    var said = labels.unread.replace("{n}", String(room.unread));
    if (room.unread) mark.setAttribute("aria-label", said); else mark.removeAttribute("aria-label");
    mark.title = room.unread ? said : "";
  }

  // --- messages -------------------------------------------------------------------------------

  function line(frame) {
    var at = clock(frame.at);
    if (frame.kind !== "room_message") {
      var note = el("li", "rooms-note", frame.text);
      if (at) note.title = at.full;
      return note;
    }
    var li = el("li", "rooms-msg");
    if (frame.by_director) li.classList.add("director");
    if (frame.author === config.me) li.classList.add("mine");
    var meta = li.appendChild(el("div", "rooms-meta"));
    meta.appendChild(el("span", "rooms-author", frame.author_name));
    if (at) {
      var time = meta.appendChild(el("time", "rooms-time", at.short));
      time.dateTime = frame.at;
      time.title = at.full;
    }
    if (frame.topic) meta.appendChild(el("span", "rooms-topic-tag", frame.topic));
    li.appendChild(el("p", "rooms-text", frame.body));
    return li;
  }

  // true when the frame is shown or was shown already; false for a gap (fetched instead)
  function accept(room, frame) {
    var n = Number(frame.seq);
    if (!n || n <= room.seen) return true;
    if (n !== room.seen + 1) { fetchRoom(room); return false; }
    var list = room.list;
    var bottom = list.scrollHeight - list.scrollTop - list.clientHeight < 48;
    room.seen = n;
    list.appendChild(line(frame));
    room.pane.querySelector(".rooms-empty").hidden = true;
    var mine = frame.author === config.me;
    if (bottom || mine) list.scrollTop = list.scrollHeight;
    if (n > room.read) {
      if (mine) {
        // what the reader wrote was read by it
        room.read = n;
        remember(room.token, n);
      } else if (frame.kind === "room_message") {
        room.unread += 1;
      }
    }
    markRead(room);
    badge(room);
    return true;
  }

  function fetchRoom(room) {
    if (room.fetching) { room.again = true; return; }
    room.fetching = true;
    fetch(api + "/" + encodeURIComponent(room.token) + "/messages?after=" + room.seen, {
      credentials: "same-origin"
    })
      .then(function (r) {
        if (r.status === 404) { loadRooms(); return null; } // no longer a member
        return r.ok ? r.json() : null;
      })
      .then(function (data) {
        var messages = (data && data.messages) || [];
        messages.forEach(function (frame) { accept(room, frame); });
        if (messages.length >= PAGE) room.again = true;
        emptyLine(room);
      })
      .catch(function () { /* the next frame or reconnect fetches again */ })
      .then(function () {
        room.fetching = false;
        if (room.again && rooms[room.token] === room) { room.again = false; fetchRoom(room); }
      });
  }

  function emptyLine(room) {
    room.pane.querySelector(".rooms-empty").hidden = room.list.children.length > 0;
  }

  // The reader's rooms as the server has them now: new ones get a tab, gone ones lose theirs,
  // the rest learn whether the reader may post (the lobby is muted from the start).
  var loading = false, reload = false;
  function loadRooms() {
    if (loading) { reload = true; return; }
    loading = true;
    fetch(api, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (!data) return;
        var keep = {};
        data.rooms.forEach(function (row, index) {
          keep[row.room] = true;
          var room = rooms[row.room];
          if (room) apply(room, row); else room = add(row);
          // the server's order (the groups first, then the directors, then the lobby); a tab
          // in its place is not moved, which would take the focus off it
          if (tabs.children[index] !== room.tab) tabs.insertBefore(room.tab, tabs.children[index] || null);
          if (row.head > room.seen) fetchRoom(room);
        });
        Object.keys(rooms).forEach(function (token) { if (!keep[token]) remove(token, null); });
      })
      .catch(function () { /* the next frame or reconnect loads again */ })
      .then(function () {
        loading = false;
        if (reload) { reload = false; loadRooms(); }
      });
  }

  // --- the socket's frames ----------------------------------------------------------------------

  // The core's events after which whether a player may post can change (the start mutes the
  // lobby, the end opens it again).
  var STATUS_KINDS = { game_started: true, game_finished: true, phase_changed: true };

  document.addEventListener("game-frame", function (event) {
    var frame = event.detail || {};
    if (frame.type === "room") {
      var room = rooms[frame.room];
      if (room) accept(room, frame); else loadRooms(); // joined it just now
    } else if (frame.type === "hello") {
      // a (re)connect: each room's last number; what is missing is fetched, a room left
      // while away goes, one joined comes
      var heads = frame.rooms || {};
      var unknown = false;
      Object.keys(rooms).forEach(function (token) {
        if (!(token in heads)) remove(token, null);
      });
      Object.keys(heads).forEach(function (token) {
        var known = rooms[token];
        if (!known) unknown = true;
        else if (heads[token] > known.seen) fetchRoom(known);
      });
      if (unknown) loadRooms();
    } else if (frame.type === "event" && frame.kind === "room_removed") {
      remove((frame.payload || {}).room, frame.text);
    } else if (frame.type === "event" && STATUS_KINDS[frame.kind]) {
      loadRooms();
    }
  });

  // --- the reader's hands -----------------------------------------------------------------------

  function error(room, message) {
    var node = room.pane.querySelector(".rooms-error");
    node.textContent = message || "";
    node.hidden = !message;
  }

  tabs.addEventListener("click", function (event) {
    var tab = event.target.closest(".rooms-tab");
    if (!tab || !tab.dataset.room) return;
    notice.hidden = true; // a room gone was told; the player has moved on
    activate(tab.dataset.room, false);
  });
  tabs.addEventListener("keydown", function (event) {
    var step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    var all = Array.prototype.slice.call(tabs.querySelectorAll(".rooms-tab"));
    var at = all.indexOf(document.activeElement);
    if (at < 0) return;
    event.preventDefault();
    var next = all[(at + step + all.length) % all.length];
    activate(next.dataset.room, true);
  });

  panel.addEventListener("keydown", function (event) {
    // Ctrl+Enter sends (Enter alone is a new line: messages may have several)
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && event.target.form) {
      event.preventDefault();
      event.target.form.requestSubmit();
    }
  });

  panel.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList.contains("rooms-form")) return;
    event.preventDefault();
    var pane = form.closest(".rooms-pane");
    var room = rooms[pane.dataset.room];
    if (!room) return;
    var button = form.querySelector("button[type=submit]");
    var field = form.querySelector("textarea[name=body]");
    var topic = form.querySelector("select[name=topic]");
    var data = { body: field.value };
    if (topic) data.topic = topic.value;
    var token = form.querySelector("input[name=csrfmiddlewaretoken]");
    button.disabled = true;
    error(room, "");
    fetch(api + "/" + encodeURIComponent(room.token) + "/messages", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": token ? token.value : "" },
      body: JSON.stringify(data)
    })
      .then(function (r) {
        return r.json().then(function (json) { return { ok: r.ok, json: json }; });
      })
      .then(function (answer) {
        if (answer.ok) {
          field.value = "";
          if (answer.json.message && answer.json.message.seq) accept(room, answer.json.message);
          return;
        }
        error(room, answer.json.message || labels.failed);
        var code = answer.json.code;
        // muted, ended, or no longer a member: the room's row says so from now on
        if (code === "lobby_muted" || code === "room_closed" || code === "room_not_found") loadRooms();
      })
      .catch(function () { error(room, labels.failed); })
      .then(function () { button.disabled = false; });
  });

  document.addEventListener("visibilitychange", function () {
    if (active && rooms[active]) markRead(rooms[active]);
  });

  // --- start: the rooms the page was drawn with -------------------------------------------------

  (config.rooms || []).forEach(function (row) {
    var tab = document.getElementById("rooms-tab-" + row.room);
    var pane = document.getElementById("rooms-pane-" + row.room);
    if (!tab || !pane) return;
    var room = track(row, tab, pane);
    if (row.head > 0) fetchRoom(room);
  });
  var last = recall("active");
  var first = tabs.querySelector(".rooms-tab");
  if (last && rooms[last]) activate(last, false);
  else if (first) activate(first.dataset.room, false);
})();
