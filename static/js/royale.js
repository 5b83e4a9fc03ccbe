// The royale player portal: actions over the websocket (act.js; the HTTP API when it is not open),
// results live over the websocket.
// Same approach as live.js: each of the character's two streams (public, private) is numbered
// without gaps; a gap, a hello with newer heads, or a reconnect fetches what was missed over HTTP.
// Player-written text (whispers, names) is only ever set with textContent, never as HTML.
(function () {
  "use strict";
  var configEl = document.getElementById("royale-config");
  if (!configEl) return;
  var config = JSON.parse(configEl.textContent);
  var gameId = config.game;
  var names = config.names || {};
  // the banner's words, translated by the page (data-* of #r-texts)
  var textsEl = document.getElementById("r-texts");
  var texts = textsEl ? {
    hurt_mark: textsEl.dataset.hurtMark, mine: textsEl.dataset.mine,
    hurt: textsEl.dataset.hurt, dismiss: textsEl.dataset.dismiss,
  } : {};
  var log = document.getElementById("royale-log");
  var status = document.getElementById("live-status");
  var flash = document.getElementById("r-flash");
  var stateBox = document.getElementById("royale-state");
  var seen = { public: 0, private: 0 };
  var socket = null;
  var retry = 1000;
  var loading = true; // the first backfill replays history: no state refresh for it
  var pendingKeys = {}; // request body → idempotency key, kept until a definite answer
  var acts = window.SocketActions ? new window.SocketActions() : null;

  // --- small helpers -------------------------------------------------------------------------

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function nameOf(id) {
    return names[String(id)] || "未知角色";
  }

  function itemName(item) {
    if (!item) return "?";
    return "【" + (item.name || item.kind || "?") + "】";
  }

  function itemList(items) {
    if (!items || !items.length) return "无";
    return items.map(itemName).join("、");
  }

  function cookie(name) {
    var parts = document.cookie ? document.cookie.split("; ") : [];
    for (var i = 0; i < parts.length; i++) {
      var eq = parts[i].indexOf("=");
      if (parts[i].slice(0, eq) === name) return decodeURIComponent(parts[i].slice(eq + 1));
    }
    return "";
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID().replace(/-/g, "");
    var bytes = new Uint8Array(16);
    (window.crypto || window.msCrypto).getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }

  function showFlash(text, kind) {
    if (!flash) return;
    flash.textContent = text;
    flash.className = "r-flash " + (kind || "bad");
    flash.hidden = false;
    clearTimeout(showFlash.timer);
    showFlash.timer = setTimeout(function () { flash.hidden = true; }, 8000);
  }

  // --- describing events (Chinese) -----------------------------------------------------------

  var PHASES = {
    day: "白天开始（开门）",
    dusk: "白天结束（关门）",
    night: "夜间行动开始",
    late: "夜间行动截止",
    dawn: "夜晚结算",
    before: "未开始",
    over: "游戏结束",
  };
  var FOUND = { nothing: "什么也没有发现", character: "发现了一名未知角色" };

  function deathsLine(deaths) {
    if (!deaths || !deaths.length) return "昨夜无人出局。";
    return "出局：" + deaths.map(function (d) {
      return (d.name || nameOf(d.character)) + "（" + (d.cause || "?") + "）";
    }).join("、") + "。";
  }

  // What the log already says once: the morning report of each day (its 公示 repeats it) and
  // the places it said would vanish (night_opened repeats them).
  var reported = {};

  function describe(frame) {
    var p = frame.payload || {};
    switch (frame.kind) {
      // public. Each phase change is told once, by the core's phase_changed: the engine's own
      // day_closed / night_ended / night_closed say the same and are not shown.
      case "phase_changed": return "第 " + p.day + " 天 · " + (PHASES[p.phase] || p.phase);
      case "announcement":
        // the site's own 公示 of the morning report: the 【晨报】 line above already says it
        if (p.report || (reported[p.day] !== undefined && /^(第 ?\d+ ?天 ?)?晨报$/.test(p.title || ""))) return null;
        return "【公示】" + (p.title || "") + "\n" + (p.body || "");
      case "dice_rolled": return "导演掷骰（" + p.purpose + "）：" + p.value + " / " + p.sides;
      case "game_paused": return "导演暂停了游戏。";
      case "game_resumed": return "游戏继续。";
      case "game_finished": return "游戏结束，种子已公开。";
      case "game_created": return "游戏创建：" + (p.title || "") + "，" + p.characters + " 名角色。";
      case "day_closed": return null;
      case "night_opened": {
        var tonight = (p.vanishing || []).join("、");
        if (!tonight || reported[p.day] === tonight) return null;
        return "今晚将消失：" + tonight + "。";
      }
      case "night_ended": return null;
      case "night_closed": return null;
      case "places_vanished": return "场所消失：" + (p.places || []).join("、") + "。";
      case "zone_open": return "特殊区开放：" + p.place;
      case "zone_closed": return "特殊区关闭：" + p.place;
      case "morning_report":
        reported[p.day] = (p.vanishing || []).join("、");
        return "【晨报】第 " + p.day + " 天" + (p.weather ? " · 天气：" + p.weather : "") + "。"
          + (p.day > 1 || (p.deaths && p.deaths.length) ? deathsLine(p.deaths) : "") + (p.vanishing && p.vanishing.length
          ? "今晚将消失：" + p.vanishing.join("、") + "。" : "");
      case "red_card": return "【红牌】" + (p.name || nameOf(p.character)) + " 被罚下。";
      case "airdrop": return "【空投】" + itemList((p.items || []).map(function (n) { return { name: n }; }));
      case "megaphone":
        return "【大喇叭】" + p.place + "：道具 " + itemList(p.items) + "；角色 "
          + ((p.characters || []).map(function (c) { return c.name; }).join("、") || "无") + "。";
      case "phone_answer": return "【电话】" + (p.text || "");
      case "vote_result":
        if (!p.revealed || !p.revealed.length) return "【投票】第 " + p.day + " 天无人投票，没有最高票。";
        return "【投票结果】" + p.revealed.map(function (r) {
          return (r.rank === 1 ? "最高票" : "第 " + r.rank + " 名") + "：" + r.name + "（生命 " + r.hp
            + "，体力 " + r.mp + "，位置 " + (r.place || "未出生") + "）道具：" + itemList(r.items);
        }).join("；") + "。" + (p.totals && p.totals.length ? "候选人票数：" + p.totals.map(function (t) {
          return t.name + " " + t.total + " 票";
        }).join("、") + "。" : "");
      case "vote_reward":
        if (!p.item) return "【投票奖励】奖池中的道具已全部出现，" + p.name + " 本次没有获得道具。";
        return "【投票奖励】导演掷骰（1–" + p.die + "）：" + p.rolls.join(" → ") + "，"
          + p.name + " 获得" + itemName(p.item) + "。";
      case "game_over":
        return "【游戏结束】" + (p.winner ? "获胜者：" + nameOf(p.winner) : "无人存活，导演获胜") + "。";
      // private
      case "spawned": return "你出生在【" + p.place + "】。";
      case "resting": return "你选择了静养。";
      case "moved":
        return "你移动到【" + p.place + "】" + (p.free ? "（静养移动，免费）" : "") + "，体力剩余 " + p.mp + "。";
      case "searched":
        return "在【" + p.place + "】搜索：" + (p.found === "item" ? "发现道具" + itemName(p.item)
          : (FOUND[p.found] || p.found)) + "。体力剩余 " + p.mp + "。";
      case "attack_result": {
        var s = p.outcome === "killed" ? "攻击击杀了目标！" : "攻击命中。";
        if (p.others_hit) s += " 另有 " + p.others_hit + " 人受到波及";
        if (p.others_killed) s += "，其中 " + p.others_killed + " 人出局";
        if (p.others_hit) s += "。";
        if (p.loot) s += " 获得：" + itemList(p.loot) + "。";
        return s;
      }
      case "hit":
        return "你受到 " + p.damage + " 点伤害，生命剩余 " + p.hp + "。" + (p.bleeding ? "你正在流血。" : "");
      case "bleeding": return "流血造成 " + p.damage + " 点伤害，生命剩余 " + p.hp + "。";
      case "died": return "你已出局（" + p.cause + "）。";
      case "item_broken": return itemName(p.item) + " 已损坏。";
      case "bomb_used": return "你引爆了" + itemName(p.item) + "。";
      case "picked_up": return "你捡起了" + itemName(p.item) + "。";
      case "equipped":
        return "你把" + itemName(p.item) + "拿到手中" + (p.put_away ? "，" + itemName(p.put_away) + "放回背包" : "") + "。";
      case "unequipped": return "你把" + itemName(p.item) + "放回背包。";
      case "dropped": return "你把" + itemName(p.item) + "丢在了【" + p.place + "】。";
      case "used": {
        var b = p.before || {}, a = p.after || {};
        return "你使用了" + itemName(p.item) + "：生命 " + b.hp + "→" + a.hp + "，体力 " + b.mp + "→" + a.mp
          + (b.bleeding && !a.bleeding ? "，止住了流血" : "") + "。";
      }
      case "upgraded":
        return "你用" + itemName(p.upgrader) + "把" + itemName(p.from) + "升级为" + itemName(p.into) + "。";
      case "gps_result":
        return "GPS：" + itemName(p.kind) + (p.places && p.places.length ? " 位于：" + p.places.join("、") : " 没有找到") + "。";
      case "telescope_result":
        return "望远镜：" + (p.seen || []).map(function (x) {
          return nameOf(x.character) + " 持有 " + itemList(x.items);
        }).join("；") + "。";
      case "whisper": return "【传音】" + (p.sender_name || nameOf(p.sender)) + "：" + p.text;
      case "whisper_sent": return "你向 " + nameOf(p.target) + " 传音：" + p.text + "（体力剩余 " + p.mp + "）";
      case "phone_call": return "【电话】" + (p.sender_name || nameOf(p.sender)) + " 用" + (p.item ? "【" + p.item + "】" : "电话") + "给你打来电话。";
      case "phone_placed": return "你给 " + nameOf(p.target) + " 打了电话，等待对方回应。";
      case "phone_answered": return "电话" + (p.answer === "accepted" ? "已接听" : "被拒听") + "。";
      case "vote_cast": return "你投票给了 " + p.target_name + "（票数 " + p.weight + "）。";
      case "vote_changed": return "你改投给了 " + p.target_name + "（票数 " + p.weight + "）。";
      case "item_granted": return "你获得了" + itemName(p.item) + "。";
      case "recovered":
        return (p.how === "rest" ? "静养恢复" : "白天恢复") + "：生命 " + p.hp + "，体力 " + p.mp + "。";
      case "window_extended":
        return "导演延长了夜间行动时间" + (p.night_end ? "，截止 " + new Date(p.night_end).toLocaleTimeString() : "") + "。";
      // The core's events carry their sentence (frame.text); director interventions
      // (director_adjusted, director_moved, director_took) carry the engine's (p.text).
      default: return frame.text || p.text || "（其他事件）";
    }
  }

  var PRIVATE_CLASS = {
    hit: "bad", bleeding: "bad", died: "bad", item_broken: "bad", whisper: "msg",
    phone_call: "msg", attack_result: "good", picked_up: "good", item_granted: "good",
  };

  function clock(at) {
    // game times are 北京时间 whatever the phone's own zone
    try {
      return at.toLocaleTimeString("zh-CN", { hour12: false, timeZone: "Asia/Shanghai" });
    } catch (e) {
      return at.toLocaleTimeString();
    }
  }

  function show(frame) {
    if (!log) return;
    // told by the rooms panel, where the tab it took away was (rooms.js): not twice
    if (frame.kind === "room_removed") return;
    var text = describe(frame);
    if (text === null) return; // said once already (see describe)
    var li = el("li", "ev-" + frame.stream + " " + (PRIVATE_CLASS[frame.kind] || ""));
    var at = new Date(frame.at);
    li.appendChild(el("span", "when", isNaN(at) ? "" : clock(at)));
    li.appendChild(el("span", "text", text));
    if (frame.kind === "phone_call" && frame.payload && frame.payload.call) {
      li.appendChild(phoneButtons(frame.payload.call));
    }
    log.insertBefore(li, log.firstChild);
    while (log.children.length > 400) log.removeChild(log.lastChild);
  }

  function phoneButtons(call) {
    var form = el("form", "act r-phone");
    form.dataset.kind = "answer_phone";
    var id = el("input");
    id.type = "hidden"; id.name = "call"; id.value = String(call); id.dataset.type = "int";
    form.appendChild(id);
    [["true", "接听"], ["false", "拒听"]].forEach(function (pair) {
      var b = el("button", pair[0] === "true" ? "primary" : "", pair[1]);
      b.type = "submit"; b.name = "accept"; b.value = pair[0];
      form.appendChild(b);
    });
    return form;
  }

  // --- the banner: results where the player acted ------------------------------------------
  // The live log lies far below the buttons on a phone. The top of the night panel shows the
  // result of the player's own last action and the hits it took (live over the websocket); a
  // hit also marks the tab's title until the page is seen again. Both start afresh each night
  // and each day. The banner lives in the refreshed state region: setup() draws it again.

  var MINE = {
    attack_result: 1, bomb_used: 1, used: 1, upgraded: 1, picked_up: 1,
    gps_result: 1, telescope_result: 1,
  };
  var HURT = { hit: 1, bleeding: 1, died: 1 };
  var banner = { mine: null, hurt: [] };
  // A broken item is told just before what broke it (the attacker's weapon before its result,
  // the victim's armor before the hit): it joins the entry that follows.
  var broken = [];
  var baseTitle = document.title;
  var marked = false;

  function markTitle() {
    if (!texts.hurt_mark || marked) return;
    marked = true;
    document.title = texts.hurt_mark + baseTitle;
  }

  function unmarkTitle() {
    if (!marked) return;
    marked = false;
    document.title = baseTitle;
  }

  ["focus", "pointerdown", "keydown"].forEach(function (type) {
    window.addEventListener(type, unmarkTitle, true);
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && document.hasFocus()) unmarkTitle();
  });

  function note(frame) {
    var kind = frame.kind;
    if (kind === "phase_changed") {
      var phase = (frame.payload || {}).phase;
      if (phase === "night" || phase === "day") {
        banner = { mine: null, hurt: [] };
        broken = [];
        drawBanner();
      }
      return;
    }
    if (frame.stream !== "private") return;
    var text = describe(frame);
    if (!text) return;
    if (kind === "item_broken") {
      broken.push(text);
      return;
    }
    var lines = [text].concat(broken);
    broken = [];
    if (MINE[kind]) {
      banner.mine = lines;
    } else if (HURT[kind]) {
      banner.hurt.unshift(lines);
      banner.hurt.length = Math.min(banner.hurt.length, 5);
      if (!loading) markTitle();
    } else {
      return;
    }
    drawBanner();
  }

  function bannerEntry(cls, label, lines, dismiss) {
    var box = el("div", "r-banner-entry " + cls);
    box.setAttribute("role", cls === "hurt" ? "alert" : "status");
    var body = el("div", "r-banner-text");
    body.appendChild(el("span", "r-banner-label", label));
    lines.forEach(function (line) { body.appendChild(el("p", "", line)); });
    box.appendChild(body);
    var close = el("button", "", texts.dismiss || "×");
    close.type = "button";
    close.addEventListener("click", dismiss);
    box.appendChild(close);
    return box;
  }

  function drawBanner() {
    var box = document.getElementById("r-banner");
    if (!box) return;
    box.textContent = "";
    if (banner.mine) {
      box.appendChild(bannerEntry("mine", texts.mine || "", banner.mine, function () {
        banner.mine = null;
        drawBanner();
      }));
    }
    if (banner.hurt.length) {
      var lines = [];
      banner.hurt.forEach(function (entry) { lines.push(entry.join(" ")); });
      box.appendChild(bannerEntry("hurt", texts.hurt || "", lines, function () {
        banner.hurt = [];
        unmarkTitle();
        drawBanner();
      }));
    }
    box.hidden = !box.firstChild;
  }

  // --- the event streams ---------------------------------------------------------------------

  var refreshTimer = null;
  function changed() {
    if (loading) return;
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refresh, 250);
  }

  function accept(frame) {
    var k = frame.stream, n = frame.stream_seq;
    if (!(k in seen)) return true;
    if (n <= seen[k]) return true; // already shown
    if (n !== seen[k] + 1) return false; // a gap: fetch before showing
    seen[k] = n;
    show(frame);
    note(frame);
    changed();
    return true;
  }

  var backfilling = null;
  function backfill() {
    if (backfilling) return backfilling;
    function page() {
      var q = "after_public=" + seen.public + "&after_private=" + seen.private;
      return fetch("/api/games/" + gameId + "/events?" + q, { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.json() : { events: [] }; })
        .then(function (body) {
          var before = seen.public + seen.private;
          (body.events || []).forEach(accept);
          // a full page: there may be more (the endpoint returns at most 500)
          if ((body.events || []).length >= 500 && seen.public + seen.private > before) return page();
        });
    }
    backfilling = page().catch(function () {}).then(function () {
      backfilling = null;
      loading = false;
    });
    return backfilling;
  }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + "/ws/games/" + gameId + "/");
    socket.onopen = function () {
      retry = 1000;
      if (acts) acts.opened(socket);
      if (status) { status.textContent = status.dataset.open; status.className = "tag ok"; }
      backfill();
    };
    socket.onmessage = function (msg) {
      var frame;
      try { frame = JSON.parse(msg.data); } catch (e) { return; }
      if (acts && acts.answered(frame)) return;
      // every frame also goes to the rooms panel (rooms.js): room frames, hello's heads
      document.dispatchEvent(new CustomEvent("game-frame", { detail: frame }));
      if (frame.type === "hello") {
        var h = frame.heads || {};
        if ((h.public || 0) > seen.public || (h.private || 0) > seen.private) backfill();
      } else if (frame.type === "event" && !accept(frame)) {
        backfill();
      }
    };
    socket.onclose = function () {
      if (acts) acts.closed();
      if (status) { status.textContent = status.dataset.closed; status.className = "tag bad"; }
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 30000);
    };
  }

  // --- refreshing the state region -----------------------------------------------------------

  function refresh() {
    if (!stateBox) return Promise.resolve();
    var url = config.path + "?view=" + encodeURIComponent(config.view) + "&part=state";
    return fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (r) {
        if (r.redirected || !r.ok) return null;
        return r.text();
      })
      .then(function (html) {
        if (html === null || html === undefined) return;
        // keep what the player was choosing in the selects
        var chosen = {};
        stateBox.querySelectorAll("form.act select").forEach(function (s, i) {
          chosen[(s.closest("form").dataset.kind || "") + ":" + s.name + ":" + i] = s.value;
        });
        stateBox.innerHTML = html; // server-rendered, escaped by the template engine
        stateBox.querySelectorAll("form.act select").forEach(function (s, i) {
          var v = chosen[(s.closest("form").dataset.kind || "") + ":" + s.name + ":" + i];
          if (v && Array.prototype.some.call(s.options, function (o) { return o.value === v; })) s.value = v;
        });
        setup();
      })
      .catch(function () {});
  }

  // --- actions -------------------------------------------------------------------------------

  function bodyOf(form, submitter) {
    var body = { kind: form.dataset.kind };
    var targets = [];
    Array.prototype.forEach.call(form.elements, function (f) {
      if (!f.name || f.disabled || f.tagName === "BUTTON") return;
      var v = f.value;
      if (f.name === "targets") { if (v.trim()) targets.push(v.trim()); return; }
      if (f.dataset.list !== undefined) {
        // checkboxes and repeated selects of one name make a list (empty when none is chosen)
        var list = body[f.name] = body[f.name] || [];
        if (v !== "" && (f.type !== "checkbox" || f.checked)) {
          list.push(f.dataset.type === "int" ? parseInt(v, 10) : v);
        }
        return;
      }
      if (v === "") return;
      if (f.dataset.type === "int") v = parseInt(v, 10);
      else if (f.name === "target" || f.name === "place") v = v.trim();
      body[f.name] = v;
    });
    if (targets.length) body.targets = targets;
    if (submitter && submitter.name) {
      body[submitter.name] = submitter.value === "true" ? true
        : submitter.value === "false" ? false : submitter.value;
    }
    return body;
  }

  function send(body) {
    var text = JSON.stringify(body);
    var key = pendingKeys[text] || (pendingKeys[text] = newKey());
    var attempt = 0;
    function once() {
      attempt += 1;
      return fetch("/api/royale/games/" + gameId + "/actions", {
        method: "POST",
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/json",
          "Idempotency-Key": key, // the same key on every retry: applied at most once
          "X-CSRFToken": cookie("csrftoken"),
        },
        body: text,
      }).then(function (r) {
        // a 429 (busy: shed, nothing applied) is asked again like a server error
        if ((r.status >= 500 || r.status === 429) && attempt < 3) throw new Error("retry");
        return r.json().catch(function () { return {}; }).then(function (data) {
          return { ok: r.ok, status: r.status, data: data };
        });
      }).catch(function (err) {
        if (attempt < 3) {
          return new Promise(function (res) { setTimeout(res, 600 * attempt); }).then(once);
        }
        throw err;
      });
    }
    // Over the socket when it is open; the HTTP request, with the same key, otherwise.
    return (acts ? acts.send(body, key, once) : once()).then(function (answer) {
      delete pendingKeys[text]; // a definite answer: the next press is a new action
      return answer;
    });
  }

  function errorText(data) {
    var msg = (data && data.message) || "操作失败。";
    var d = (data && data.detail) || {};
    if (data && data.code === "search_cooldown" && d.seconds_left) msg += "（还需 " + d.seconds_left + " 秒）";
    return msg;
  }

  function submit(form, submitter) {
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
    var body = bodyOf(form, submitter);
    var buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    form.classList.add("busy");
    send(body).then(function (answer) {
      if (answer.ok) {
        (answer.data.events || []).forEach(function (frame) {
          if (!accept(frame)) backfill();
        });
        if (body.kind === "whisper") {
          var ta = form.querySelector("textarea");
          if (ta) { ta.value = ""; count(ta); }
        }
        if (body.kind === "answer_phone") form.remove();
        flash.hidden = true;
      } else {
        showFlash(errorText(answer.data), "bad");
      }
    }, function () {
      showFlash("网络错误，请重试（重试不会重复执行）。", "bad");
    }).then(function () {
      form.classList.remove("busy");
      buttons.forEach(function (b) { b.disabled = false; });
      return refresh();
    });
  }

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.classList || !form.classList.contains("act")) return;
    ev.preventDefault();
    submit(form, ev.submitter);
  });

  // tapping a tile of the map chooses it in the move / spawn / megaphone selects
  document.addEventListener("click", function (ev) {
    var tile = ev.target.closest && ev.target.closest(".r-tiles .tile[data-place]");
    if (!tile) return;
    var place = tile.dataset.place;
    var picked = false;
    document.querySelectorAll("select.r-place-select").forEach(function (s) {
      if (s.disabled) return;
      if (Array.prototype.some.call(s.options, function (o) { return o.value === place; })) {
        s.value = place;
        if (!picked) { s.scrollIntoView({ block: "center", behavior: "smooth" }); s.focus(); }
        picked = true;
      }
    });
  });

  // --- counters and clocks -------------------------------------------------------------------

  function count(ta) {
    var out = document.getElementById(ta.dataset.counter);
    if (out) out.textContent = String(ta.value.length);
  }
  document.addEventListener("input", function (ev) {
    if (ev.target.dataset && ev.target.dataset.counter) count(ev.target);
  });

  function fmt(seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    var h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
    var mm = (h ? String(m).padStart(2, "0") : String(m)) + ":" + String(s).padStart(2, "0");
    return h ? h + ":" + mm : mm;
  }

  var cooldownEnds = null;
  function setup() {
    var btn = document.querySelector("button[data-cooldown]");
    var left = btn ? parseInt(btn.dataset.cooldown, 10) || 0 : 0;
    cooldownEnds = left > 0 ? Date.now() + left * 1000 : null;
    // the whisper box lives outside the refreshed region; the region says whether it may send
    var ws = document.getElementById("r-whisper-state");
    var sendBtn = document.getElementById("r-whisper-send");
    var why = document.getElementById("r-whisper-reason");
    if (ws && sendBtn) {
      sendBtn.disabled = !ws.dataset.enabled;
      if (why) why.textContent = ws.dataset.reason || "";
    }
    drawBanner();
    tick();
  }

  var refreshedAtZero = false;
  function tick() {
    var now = Date.now();
    document.querySelectorAll("[data-until]").forEach(function (node) {
      var left = (Date.parse(node.dataset.until) - now) / 1000;
      var out = node.querySelector(".r-left");
      if (out) out.textContent = left > 0 ? fmt(left) : "0:00";
      node.classList.toggle("soon", left > 0 && left < 120);
      if (left <= 0 && !refreshedAtZero) {
        refreshedAtZero = true; // the transition is due: the phase event will follow
        setTimeout(function () { refreshedAtZero = false; refresh(); }, 5000);
      }
    });
    var btn = document.querySelector("button[data-cooldown]");
    if (btn) {
      var reason = btn.parentNode.querySelector("[data-cooldown-reason]");
      var label = btn.querySelector(".label");
      var left = cooldownEnds ? Math.ceil((cooldownEnds - now) / 1000) : 0;
      if (left > 0) {
        btn.disabled = true;
        if (label) label.textContent = btn.dataset.label + " " + left + "s";
        if (reason && !btn.dataset.blocked) reason.textContent = "搜索冷却 " + left + " 秒";
      } else {
        if (!btn.dataset.blocked && !btn.closest(".busy")) btn.disabled = false;
        if (label) label.textContent = btn.dataset.label;
        if (reason && !btn.dataset.blocked) reason.textContent = "";
        cooldownEnds = null;
      }
    }
  }

  setup();
  setInterval(tick, 1000);
  connect();
})();
