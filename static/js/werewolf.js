// The role game's portal: redraw the state region whenever a live event reaches this player.
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("ww-config").textContent);
  var region = document.getElementById("ww-state");
  var retry = 1000;

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
    if (status) status.textContent = open ? "已连接" : "重新连接中…";
  }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + "/ws/games/" + config.game + "/");
    socket.onopen = function () { retry = 1000; socketOpen = true; mark(true); redraw(); };
    socket.onmessage = function (msg) {
      var frame;
      try { frame = JSON.parse(msg.data); } catch (e) { return; }
      // every frame also goes to the rooms panel (rooms.js): room frames, hello's heads
      document.dispatchEvent(new CustomEvent("game-frame", { detail: frame }));
      if (frame.type === "event") redraw();
    };
    socket.onclose = function () {
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

  connect();
})();
