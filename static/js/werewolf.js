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
      .then(function (html) { if (html !== null) region.innerHTML = html; mark(socketOpen); })
      .catch(function () { /* the next event or reconnect redraws */ })
      .then(function () {
        fetching = false;
        if (again) { again = false; redraw(); }
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
      if (frame.type === "event") redraw();
    };
    socket.onclose = function () {
      socketOpen = false;
      mark(false);
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    };
  }
  connect();
})();
