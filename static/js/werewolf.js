// The role game's portal: redraw the state region whenever a live event reaches this player.
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("ww-config").textContent);
  var region = document.getElementById("ww-state");
  var retry = 1000;
  var acts = window.SocketActions ? new window.SocketActions() : null;

  // One fetch at a time, and one more after a burst of events: an older, slower answer can
  // never overwrite a newer state, and a night's publication does not fire a fetch per frame.
  var fetching = false;
  var again = false;
  function redraw() {
    if (fetching) { again = true; return; }
    fetching = true;
    fetch(location.pathname + "?part=state", { credentials: "same-origin" })
      .then(function (r) { return r.ok && !r.redirected ? r.text() : null; })
      .then(function (html) {
        if (html !== null) {
          var chosen = choices();
          region.innerHTML = html;
          restore(chosen);
          arm();
        }
        mark(socketOpen);
      })
      .catch(function () { /* the next event or reconnect redraws */ })
      .then(function () {
        fetching = false;
        if (again) { again = false; redraw(); }
      });
  }

  // A redraw keeps what the player has chosen but not sent yet (a skill's target, a vote):
  // each select is known by its form's skill (or action) and its own name.
  function selectKey(select) {
    var form = select.form;
    var skill = form && form.querySelector("input[name=skill]");
    return (skill ? skill.value : (form && form.getAttribute("action")) || "") + "|" + select.name;
  }
  function choices() {
    var chosen = {};
    region.querySelectorAll("select, input[type=text]").forEach(function (field) {
      if (field.value) chosen[selectKey(field)] = field.value;
    });
    // Checkboxes (several targets, 查证's 公示): the ticked values of each form's field.
    region.querySelectorAll("input[type=checkbox]:checked").forEach(function (box) {
      var key = selectKey(box) + "|checked";
      (chosen[key] = chosen[key] || []).push(box.value);
    });
    return chosen;
  }
  function restore(chosen) {
    region.querySelectorAll("select").forEach(function (select) {
      var value = chosen[selectKey(select)];
      if (value && select.querySelector('option[value="' + CSS.escape(value) + '"]')) {
        select.value = value;
      }
    });
    region.querySelectorAll("input[type=text]").forEach(function (field) {
      var value = chosen[selectKey(field)];
      if (value) field.value = value;
    });
    region.querySelectorAll("input[type=checkbox]").forEach(function (box) {
      var ticked = chosen[selectKey(box) + "|checked"];
      if (ticked && ticked.indexOf(box.value) !== -1) box.checked = true;
    });
  }

  var socketOpen = false;
  function mark(open) {
    var status = document.getElementById("live-status");
    // the words are the page's (data-open, data-closed), in its language
    if (status) status.textContent = open ? status.dataset.open : status.dataset.closed;
  }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + "/ws/games/" + config.game + "/");
    socket.onopen = function () {
      retry = 1000; socketOpen = true; mark(true); redraw();
      if (acts) acts.opened(socket);
    };
    socket.onmessage = function (msg) {
      var frame;
      try { frame = JSON.parse(msg.data); } catch (e) { return; }
      if (acts && acts.answered(frame)) return;
      // every frame also goes to the rooms panel (rooms.js): room frames, hello's heads
      document.dispatchEvent(new CustomEvent("game-frame", { detail: frame }));
      if (frame.type === "event") redraw();
    };
    socket.onclose = function () {
      if (acts) acts.closed();
      socketOpen = false;
      mark(false);
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    };
  }
  // Deadlines count down live. Each countdown carries the seconds left when the server drew
  // it (data-left), so the player's own clock being off does not matter; without JavaScript the
  // page shows the deadline's time alone.
  var text = config.text || {};
  function fill(template, values) {
    return String(template).replace(/%\((\w+)\)s/g, function (_, k) { return values[k]; });
  }
  function span(left) {
    var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
    var parts = [];
    if (h) parts.push(fill(text.hours, { n: h }));
    if (h || m) parts.push(fill(text.minutes, { n: h ? ("0" + m).slice(-2) : m }));
    if (!h) parts.push(fill(text.seconds, { n: (h || m) ? ("0" + s).slice(-2) : s }));
    return fill(text.left, { time: parts.join("") });
  }
  function arm() {
    var now = Date.now();
    region.querySelectorAll(".ww-countdown[data-left]").forEach(function (el) {
      el.dataset.end = String(now + Number(el.dataset.left) * 1000);
      el.hidden = false;
    });
    tick();
  }
  var expired = false;
  function tick() {
    var now = Date.now();
    region.querySelectorAll(".ww-countdown[data-end]").forEach(function (el) {
      var left = Math.max(0, Math.round((Number(el.dataset.end) - now) / 1000));
      el.textContent = left > 0 ? span(left) : text.over;
      if (left === 0 && !el.dataset.done) { el.dataset.done = "1"; expired = true; }
    });
    // A deadline just passed: the scheduler settles it within moments; redraw to show it.
    if (expired) { expired = false; setTimeout(redraw, 3000); }
  }
  setInterval(tick, 1000);
  arm();

  // A skill form: a target must be chosen ("请选择" is no target), and an irreversible use
  // (data-confirm, the question naming the target) is confirmed before it is posted.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList || !form.classList.contains("ww-skill")) return;
    var button = event.submitter;
    if (!button || button.value !== "use_skill") return;
    var select = form.querySelector("select[name=target]");
    var need = form.querySelector(".ww-need");
    // A window's optional target (096's 许愿 effect 1 names nobody) may stay empty.
    if (select && !select.value && !select.hasAttribute("data-optional")) {
      event.preventDefault();
      if (need) need.hidden = false;
      select.focus();
      return;
    }
    if (need) need.hidden = true;
    var question = form.dataset.confirm;
    if (!question) return;
    var name = select ? select.options[select.selectedIndex].text : "";
    if (!window.confirm(question.replace("{target}", name))) {
      event.preventDefault();
      return;
    }
    var confirmed = form.querySelector("input[name=confirmed]");
    if (confirmed) confirmed.value = "1";
  });

  // A form of the page goes over the socket when it is open, as the action the page's POST
  // makes of it (werewolf/views.py ``_submit``: the same fields, the same key), and its answer
  // is shown as the page shows a posted form's: the message on top, the state afresh. The page's
  // own POST, with the same key, whenever the socket cannot say the same: no socket or no answer
  // in time, a form it would answer with a question or a hint (no target chosen), a session
  // that no longer holds the character (the page sends the player to sign in).
  function actionOf(form, submitter) {
    var fields = new FormData(form);
    if (submitter && submitter.name) fields.append(submitter.name, submitter.value);
    function last(name) { var all = fields.getAll(name); return all.length ? String(all[all.length - 1]) : ""; }
    var op = last("op");
    var body = { kind: op };
    if (op === "use_skill" || op === "forgo") body.skill = last("skill");
    if (op === "ask") body = { kind: "use_skill", skill: "ask", targets: [] };
    if (op === "use_skill") {
      var posted = fields.getAll("target").map(String).filter(function (t) { return t !== ""; });
      if (!posted.every(function (t) { return /^[0-9]+$/.test(t); })) return null;
      if (!posted.length && form.querySelector("select[name=target]:not([data-optional])")) return null;
      if (posted.length === 1 && fields.has("confirmed") && last("confirmed") !== "1") return null;
      body.targets = posted.map(function (t) { return parseInt(t, 10); });
      var option = last("option").trim();
      if (option) body.option = option;
    }
    if (op === "vote") {
      if (!/^[0-9]+$/.test(last("target"))) return null;
      body.target = parseInt(last("target"), 10);
    }
    if (op === "surrender_answer") body.accept = last("accept") === "1";
    var key = last("key");
    return key ? { key: key, body: body } : null;
  }
  function postForm(form, submitter) {
    if (submitter && submitter.name) {
      var chosen = document.createElement("input");
      chosen.type = "hidden";
      chosen.name = submitter.name;
      chosen.value = submitter.value;
      form.appendChild(chosen);
    }
    HTMLFormElement.prototype.submit.call(form); // no submit event: asked and checked already
    return new Promise(function () {}); // the page is leaving
  }
  function flash(answer) {
    var box = document.querySelector(".ww > .ww-flash");
    if (!box) {
      box = document.createElement("ul");
      box.className = "ww-flash";
      var before = document.getElementById("ww-confirm") || region;
      before.parentNode.insertBefore(box, before);
    }
    var line = document.createElement("li");
    line.className = answer.ok ? "success" : "error";
    line.textContent = answer.ok ? text.submitted : answer.data.message;
    box.replaceChildren(line);
    box.scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !acts || !form.closest) return;
    if (!form.closest("#ww-state, #ww-confirm") || form.getAttribute("action")) return;
    var submitter = event.submitter;
    var action = actionOf(form, submitter);
    if (!action) return;
    event.preventDefault();
    var buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    function native() { return postForm(form, submitter); }
    acts.send(action.body, action.key, native).then(function (answer) {
      if (answer.status === 401 || answer.status === 403) return native();
      flash(answer);
      var asked = document.getElementById("ww-confirm");
      if (asked) asked.remove();
      buttons.forEach(function (b) { b.disabled = false; });
      redraw();
    });
  });

  connect();
})();
