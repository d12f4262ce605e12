// Lifeguard's table on a phone: draws /state.json and follows /events (server-sent events).
// Read only. Every name and announcement is put in the page as text (textContent), never as
// markup: names are typed or spoken by people. Reconnects by itself: the browser retries a
// dropped stream; a stream that was refused is tried again after a pause, and a server that
// answers 404 has restarted with a new link, which the page says.
(function () {
  "use strict";

  var token = new URLSearchParams(window.location.search).get("t") || "";
  var query = "?t=" + encodeURIComponent(token);
  var source = null;
  var retryTimer = null;
  var delay = 1000;
  var lastVersion = -1;

  var ROW_SIZES = [1, 2, 3, 4];
  var PHASES = {
    rows: "entering the rows",
    turns: "turns",
    final_turns: "final turns",
    reveal: "reveal",
    game_over: "game over"
  };

  function $(id) { return document.getElementById(id); }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function title(name) { return name ? name.charAt(0).toUpperCase() + name.slice(1) : ""; }

  function names(list) {
    var items = list.map(title);
    if (items.length <= 1) { return items.join(""); }
    return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  // ------------------------------------------------------------------ the header
  function headline(state) {
    switch (state.phase) {
      case "no_game": return "No game yet";
      case "rows": return "Lay out the rows";
      case "turns": return state.turn ? title(state.turn) + "’s turn" : "Who starts?";
      case "final_turns": return title(state.turn) + "’s last turn";
      case "reveal": return "Show your hands";
      case "game_over":
        return names(state.winners) + (state.winners.length === 1 ? " wins!" : " win!");
      default: return "";
    }
  }

  function drawHeader(state) {
    var round = "Lifeguard";
    if (state.phase !== "no_game") {
      round = "Round " + state.round + " · " + (PHASES[state.phase] || state.phase);
    }
    $("round").textContent = round;
    $("turn").textContent = headline(state);
    // "Bob's turn: swap or knock." under "Bob's turn" in big type (and "Round 2: enter row 1."
    // under "Round 2"): say the rest only.
    var expecting = (state.expecting || "").replace(/^([^:]*turn|Round \d+): /, "");
    $("expecting").textContent = expecting.charAt(0).toUpperCase() + expecting.slice(1);
    document.body.dataset.phase = state.phase;
    var game = state.game;
    $("game").textContent = game ? "Game " + game.id : "";
    var problem = $("problem");
    problem.hidden = !state.error;
    problem.textContent = state.error || "";
  }

  // ------------------------------------------------------------------ players
  function hearts(lives) {
    var box = el("span", "hearts");
    box.setAttribute("aria-label", lives === 1 ? "1 life" : lives + " lives");
    for (var i = 0; i < 5; i++) {
      box.appendChild(el("span", i < lives ? "heart" : "heart lost", i < lives ? "♥" : "♡"));
    }
    return box;
  }

  function drawPlayers(state) {
    var list = $("players");
    clear(list);
    state.players.forEach(function (p) {
      var item = el("li", "player");
      var turn = state.turn === p.name && (state.phase === "turns" || state.phase === "final_turns");
      if (turn) { item.classList.add("turn"); }
      if (p.out) { item.classList.add("out"); }
      if ((state.winners || []).indexOf(p.name) >= 0) { item.classList.add("winner"); }
      var top = el("div", "who");
      top.appendChild(el("span", "name", title(p.name)));
      var marks = [];
      if (turn) { marks.push("turn"); }
      if (state.starter === p.name && state.phase !== "game_over") { marks.push("starts"); }
      if (p.knocked) { marks.push("knocked"); }
      if (p.declared) { marks.push("shown"); }
      if (p.out) { marks.push("out"); }
      if ((state.winners || []).indexOf(p.name) >= 0) { marks.push("winner"); }
      marks.forEach(function (m) { top.appendChild(el("span", "mark " + m, m)); });
      item.appendChild(top);
      item.appendChild(hearts(p.lives));
      list.appendChild(item);
    });
  }

  // ------------------------------------------------------------------ rows
  function card(animal, points) {
    if (!animal) {
      var blank = el("div", "card unknown");
      blank.appendChild(el("span", "name", "?"));
      blank.setAttribute("aria-label", "not entered yet");
      return blank;
    }
    var known = Object.prototype.hasOwnProperty.call(points, animal);
    var node = el("div", "card " + (known ? animal : "unknown"));
    node.appendChild(el("span", "name", animal));
    node.appendChild(el("span", "points", known ? points[animal] : ""));
    return node;
  }

  function drawRows(state) {
    var box = $("rows");
    clear(box);
    if (state.phase === "no_game") { return; }
    var rows = state.rows || [];
    var points = state.points || {};
    ROW_SIZES.forEach(function (size, i) {
      var row = el("div", "row");
      var label = el("div", "row-label", "row");
      label.appendChild(el("b", "", size));
      row.appendChild(label);
      var cards = el("div", "cards");
      var animals = rows[i] || new Array(size).fill(null);
      animals.forEach(function (a) { cards.appendChild(card(a, points)); });
      row.appendChild(cards);
      box.appendChild(row);
    });
  }

  // ------------------------------------------------------------------ announcements
  function drawSaid(state, fresh) {
    var list = $("said");
    clear(list);
    var items = (state.announcements || []).slice(0, 5);
    if (!items.length) {
      list.appendChild(el("li", "quiet", state.phase === "no_game" ? "Nothing yet." : "…"));
    }
    items.forEach(function (a, i) {
      var item = el("li", i === 0 && fresh ? "fresh" : "");
      item.appendChild(el("span", "text", a.said || a.command));
      item.appendChild(el("span", "command", a.command));
      list.appendChild(item);
    });
  }

  // ------------------------------------------------------------------ score sheet
  function drawSheet(state) {
    var box = $("sheet");
    clear(box);
    var sheet = state.sheet || [];
    if (!sheet.length) {
      box.appendChild(el("p", "quiet", "No round has ended yet."));
      return;
    }
    var table = el("table");
    var head = el("tr");
    head.appendChild(el("th", "", "Round"));
    state.players.forEach(function (p) { head.appendChild(el("th", "", title(p.name))); });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var body = el("tbody");
    sheet.forEach(function (r) {
      var tr = el("tr");
      var first = el("th", "", String(r.round));
      if (r.sudden_death) {
        first.appendChild(el("span", "note",
          "sudden death: " + title(r.sudden_death.player) + ", all " + r.sudden_death.animal));
      }
      tr.appendChild(first);
      var byName = {};
      r.players.forEach(function (s) { byName[s.name] = s; });
      state.players.forEach(function (p) {
        var s = byName[p.name];
        var td = el("td");
        if (!s) { td.appendChild(el("span", "quiet", "—")); tr.appendChild(td); return; }
        td.appendChild(el("span", "pts", s.points === null ? "–" : s.points + " pts"));
        td.appendChild(el("span", s.lost ? "lost" : "kept", s.lost ? "−" + s.lost + " ♥" : "±0"));
        td.appendChild(el("span", "left", s.lives + " left"));
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    box.appendChild(table);
  }

  function render(state, fresh) {
    drawHeader(state);
    drawPlayers(state);
    drawRows(state);
    drawSaid(state, fresh);
    drawSheet(state);
  }

  // ------------------------------------------------------------------ the connection
  function setLink(how) {
    var link = $("link");
    link.dataset.state = how;
    link.textContent = {
      connecting: "connecting",
      live: "live",
      reconnecting: "reconnecting…",
      gone: "This link no longer works: the server was restarted. Scan the new code at the table."
    }[how];
  }

  function later() {
    setLink("reconnecting");
    clearTimeout(retryTimer);
    retryTimer = setTimeout(probe, delay);
    delay = Math.min(delay * 2, 10000);
  }

  function connect() {
    if (source) { source.close(); }
    source = new EventSource("/events" + query);
    source.onopen = function () { delay = 1000; setLink("live"); };
    source.onmessage = function (event) {
      var data = JSON.parse(event.data);
      var fresh = data.kind !== "state" && data.version > lastVersion && lastVersion >= 0;
      lastVersion = data.version;
      render(data.state, fresh);
      setLink("live");
    };
    source.onerror = function () {
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        source = null;
        later();  // refused (e.g. a restarted server): ask /state.json why, then try again
      } else {
        setLink("reconnecting");  // the browser retries by itself
      }
    };
  }

  function probe() {
    fetch("/state.json" + query, { cache: "no-store" }).then(function (answer) {
      if (answer.status === 404) { setLink("gone"); return null; }
      if (!answer.ok) { throw new Error("HTTP " + answer.status); }
      return answer.json().then(function (state) { render(state, false); connect(); });
    }).catch(later);
  }

  document.addEventListener("visibilitychange", function () {
    // A phone that slept may have lost its stream without an error: look again on waking.
    if (document.visibilityState === "visible" && (!source || source.readyState === EventSource.CLOSED)) {
      clearTimeout(retryTimer);
      probe();
    }
  });

  // The state as it was when the page was served: drawn at once, before the stream opens.
  var initial = document.getElementById("initial-state");
  try {
    render(JSON.parse(initial.textContent), false);
    connect();
  } catch (err) {
    probe();
  }
}());
