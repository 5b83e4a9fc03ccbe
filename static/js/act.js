// A player's actions over the game's websocket, the HTTP request as the fallback.
// A portal (royale.js, werewolf.js) hands its socket's open, close and frames to one
// SocketActions and sends each action with its idempotency key: an "act" frame when the socket
// is open, answered on that socket by the API's own answer; the frame again, same key, when the
// socket reopens before its answer came; the portal's HTTP request (same key) when the socket
// is not open or no answer comes within WAIT. One key is one request both ways (the server keeps
// the first answer), so nothing is applied twice whichever way wins.
(function () {
  "use strict";
  var WAIT = 4000; // ms
  var BUSY_TRIES = 3; // a "busy" answer (the server shed it, nothing applied) is asked again

  function isOpen(socket) { return !!socket && socket.readyState === 1; }

  function SocketActions() {
    this.socket = null;
    this.pending = {}; // key -> {text, promise, resolve, timer}
  }

  // socket.onopen: the frames still without an answer go again, with their keys.
  SocketActions.prototype.opened = function (socket) {
    this.socket = socket;
    for (var key in this.pending) socket.send(this.pending[key].text);
  };

  // socket.onclose
  SocketActions.prototype.closed = function () { this.socket = null; };

  // socket.onmessage: true for an answer frame (the portal has nothing else to do with it).
  SocketActions.prototype.answered = function (frame) {
    if (!frame || frame.type !== "answer") return false;
    var entry = this.pending[frame.key];
    var error = frame.error || {};
    if (entry && frame.status === 429 && error.code === "busy" && (entry.busy || 0) < BUSY_TRIES) {
      // after the server's Retry-After, with the same key: still one request
      entry.busy = (entry.busy || 0) + 1;
      var self = this;
      var wait = ((error.detail || {}).retry_after || 1) * 1000 * (0.5 + Math.random());
      clearTimeout(entry.timer);
      setTimeout(function () {
        if (self.pending[frame.key] !== entry) return;
        entry.timer = setTimeout(entry.giveUp, WAIT);
        if (isOpen(self.socket)) self.socket.send(entry.text);
      }, wait);
      return true;
    }
    if (entry) {
      delete this.pending[frame.key];
      clearTimeout(entry.timer);
      var ok = frame.status === 200;
      entry.resolve({ ok: ok, status: frame.status, data: (ok ? frame.answer : frame.error) || {} });
    }
    return true;
  };

  // The action under its key. Resolves to {ok, status, data} — data the API's body: the
  // answer, or its {code, message, detail} — as `fallback` (the HTTP request with the same
  // key, returning a promise of that shape) does.
  SocketActions.prototype.send = function (action, key, fallback) {
    if (this.pending[key]) return this.pending[key].promise;
    if (!isOpen(this.socket)) return fallback();
    var pending = this.pending;
    var entry = { text: JSON.stringify({ type: "act", key: key, action: action }) };
    entry.promise = new Promise(function (resolve) {
      entry.resolve = resolve;
      entry.giveUp = function () {
        if (pending[key] !== entry) return;
        delete pending[key]; // a late answer on the socket is the same answer: dropped
        resolve(fallback());
      };
      entry.timer = setTimeout(entry.giveUp, WAIT);
    });
    pending[key] = entry;
    this.socket.send(entry.text);
    return entry.promise;
  };

  window.SocketActions = SocketActions;
})();
