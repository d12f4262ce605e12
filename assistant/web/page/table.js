// Lifeguard's table on a phone: draws /state.json and follows /events (server-sent events).
// Read only. Every name and announcement is put in the page as text (textContent), never as
// markup: names are typed or spoken by people. Reconnects by itself: the browser retries a
// dropped stream; a stream that was refused is tried again after a pause, and a server that
// answers 404 has restarted with a new link, which the page says.
//
// For screen readers: each new announcement is added once to one polite status region (#news);
// the state's error and a dead link are alerts; nothing else is live. The lists are updated in
// place: a node whose content did not change is kept, so a reader keeps their place. Symbols
// (hearts, "?", "−2 ♥") are hidden from readers and said in words by visually hidden text.
//
// Every word it shows is in the table's language: the server puts the page's messages in the
// data block's data-messages (assistant/web/messages.py, through the gettext catalogs); a
// message's fields are {name}, and a Korean one may attach a particle ({name:이/가}) as
// assistant.i18n does.
(function () {
  "use strict";

  var T = JSON.parse(document.getElementById("initial-state").dataset.messages);

  var token = new URLSearchParams(window.location.search).get("t") || "";
  var query = "?t=" + encodeURIComponent(token);
  var source = null;
  var retryTimer = null;
  var delay = 1000;
  var lastVersion = -1;
  // The state the page was served with: the first stream starts after it (no repeat).
  var since = null;

  var ROW_SIZES = [1, 2, 3, 4];
  var NEWS_KEPT = 3;

  // ------------------------------------------------------------------ the page's words
  // Korean particles by the last sound of the word before them (assistant/i18n/particles.py):
  // a Hangul syllable's final consonant, a Latin letter's vowel or not, a digit's reading.
  var PAIRS = ["이/가", "은/는", "을/를", "과/와", "으로/로", "아/야", "이다/다", "이나/나", "이랑/랑"];
  var DIGIT_FINALS = { 0: 21, 1: 8, 2: 0, 3: 16, 4: 0, 5: 0, 6: 1, 7: 8, 8: 8, 9: 0 };
  var RIEUL = 8;

  function finalConsonant(word) {
    var text = String(word).trim();
    for (var i = text.length - 1; i >= 0; i--) {
      var ch = text.charAt(i);
      var code = text.charCodeAt(i);
      if (code >= 0xAC00 && code <= 0xD7A3) { return (code - 0xAC00) % 28; }
      if (DIGIT_FINALS.hasOwnProperty(ch)) { return DIGIT_FINALS[ch]; }
      if (/[A-Za-z]/.test(ch)) { return /[aeiouyAEIOUY]/.test(ch) ? 0 : 1; }
      if (/[\p{L}\p{N}]/u.test(ch)) { return null; }
    }
    return null;
  }

  function attach(word, spec) {
    var forms = spec.split("/");
    var last = finalConsonant(word);
    if (last === null) { return word + forms[0] + "(" + forms[1] + ")"; }
    if (forms[0] === "으로" && last === RIEUL) { return word + forms[1]; }
    return word + (last ? forms[0] : forms[1]);
  }

  // A message with its fields filled in; ``n`` picks a counted message's form (1 or more).
  function say(key, fields, n) {
    var text = T[key];
    if (typeof text !== "string") { text = n === 1 ? text.one : text.other; }
    return text.replace(/\{(\w+)(?::([^}]+))?\}/g, function (all, name, spec) {
      if (!fields || !Object.prototype.hasOwnProperty.call(fields, name)) { return all; }
      var value = String(fields[name]);
      return spec && PAIRS.indexOf(spec) >= 0 ? attach(value, spec) : value;
    });
  }

  function count(key, n) { return say(key, { n: n }, n); }

  function animalName(name, n) {
    var forms = T.animals[name];
    return forms ? (n === 1 ? forms.one : forms.other) : name;
  }

  // "all bears" of a sudden death: the state names the animal (canonical), the page says it.
  function suddenAnimals(sudden) {
    return sudden.animal ? animalName(sudden.animal, 2) : sudden.animals;
  }

  function ordinal(n) {
    return T["place_" + n] ? say("place_" + n, { n: n }) : say("place_n", { n: n });
  }

  function $(id) { return document.getElementById(id); }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  // What the eye sees (hidden from readers) and what a reader hears (hidden from the eye).
  function shown(tag, className, seen, heard) {
    var node = el(tag, className);
    var look = el("span", "", seen);
    look.setAttribute("aria-hidden", "true");
    node.appendChild(look);
    node.appendChild(el("span", "visually-hidden", heard));
    return node;
  }

  function title(name) { return name ? name.charAt(0).toUpperCase() + name.slice(1) : ""; }

  function names(list) {
    var items = list.map(title);
    if (items.length <= 1) { return items.join(""); }
    return say("and", { others: items.slice(0, -1).join(T.list_separator),
                        last: items[items.length - 1] });
  }

  function setText(node, text) {
    if (node.textContent !== text) { node.textContent = text; }
  }

  // Brings ``parent``'s children in line with ``items``: a child is kept while its key and its
  // content (``sig``) are the same, made anew by ``make`` otherwise; removed when gone.
  function patch(parent, items, key, sig, make) {
    var old = {};
    Array.prototype.forEach.call(parent.children, function (child) {
      if (child.lgKey !== undefined) { old[child.lgKey] = child; }
    });
    var at = parent.firstChild;
    items.forEach(function (item, i) {
      var k = key(item, i);
      var s = sig(item, i);
      var node = old[k];
      if (node && node.lgSig === s) {
        delete old[k];
      } else {
        node = make(item, i);
        node.lgKey = k;
        node.lgSig = s;
      }
      if (node !== at) { parent.insertBefore(node, at); } else { at = at.nextSibling; }
    });
    while (at) {
      var next = at.nextSibling;
      parent.removeChild(at);
      at = next;
    }
  }

  // ------------------------------------------------------------------ the header
  function headline(state) {
    switch (state.phase) {
      case "no_game": return T.no_game;
      case "rows": return T.lay_out;
      case "turns": return state.turn ? say("turn", { player: title(state.turn) }) : T.who_starts;
      case "final_turns": return say("last_turn", { player: title(state.turn) });
      case "reveal": return T.show_hands;
      case "game_over":
        return say("wins", { names: names(state.winners) }, state.winners.length);
      default: return "";
    }
  }

  function drawHeader(state) {
    var round = "Lifeguard";
    if (state.phase !== "no_game") {
      var phase = T["phase_" + state.phase] || state.phase;
      round = say("round_phase", { round: state.round, phase: phase });
    }
    setText($("round"), round);
    setText($("turn"), headline(state));
    // "Bob's turn: swap or knock." under "Bob's turn" in big type (and "Round 2: enter row 1."
    // under "Round 2"): say the rest only (whatever the language, the part after the colon).
    var expecting = state.expecting || "";
    if (state.phase === "rows" || state.phase === "final_turns" ||
        (state.phase === "turns" && state.turn)) {
      expecting = expecting.replace(/^[^:]*: /, "");
    }
    // The table's "'new game' to play again" is for the table: a phone only watches.
    if (state.phase === "game_over") { expecting = count("game_over_after", state.round); }
    // "Who starts? e.g. 'alice starts'." shows the table how to type it: a phone only waits.
    if (state.phase === "turns" && !state.turn) { expecting = T.waiting_starter; }
    setText($("expecting"), expecting.charAt(0).toUpperCase() + expecting.slice(1));
    document.body.dataset.phase = state.phase;
    var game = state.game;
    setText($("game"), game ? say("game", { id: game.id }) : "");
    alertText($("problem"), state.error || "");
  }

  // An alert region holds one paragraph while there is something to say; the same words are
  // not put in again (that would be read again).
  function alertText(region, text) {
    var now = region.firstChild ? region.firstChild.textContent : "";
    if (now === text) { return; }
    while (region.firstChild) { region.removeChild(region.firstChild); }
    if (text) { region.appendChild(el("p", "problem", text)); }
  }

  // ------------------------------------------------------------------ players
  // A heart as a drawing (a filled one per life left, an outline per life lost): a graphic
  // has its contrast checked as one (3:1), and a reader hears the words beside it instead.
  var SVG = "http://www.w3.org/2000/svg";
  var HEART = "M12 21C5.5 15.4 2 12 2 8.1A5 5 0 0 1 12 6a5 5 0 0 1 10 2.1C22 12 18.5 15.4 12 21z";

  function heart(full) {
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("class", full ? "heart" : "heart lost");
    var path = document.createElementNS(SVG, "path");
    path.setAttribute("d", HEART);
    svg.appendChild(path);
    return svg;
  }

  function hearts(lives) {
    var box = el("span", "hearts");
    var look = el("span");
    look.setAttribute("aria-hidden", "true");
    for (var i = 0; i < 5; i++) { look.appendChild(heart(i < lives)); }
    box.appendChild(look);
    box.appendChild(el("span", "visually-hidden", count("lives", lives)));
    return box;
  }

  // The marks that matter now: during a round whose turn it is, who starts, who knocked, who
  // has had their last turn after the knock ("done") and who has shown their hand; at the end
  // only the winner, who is out, or (neither) the place. A mark is its key (its class), a
  // place its number.
  function playerFacts(state, p) {
    var turn = state.turn === p.name && (state.phase === "turns" || state.phase === "final_turns");
    var winner = (state.winners || []).indexOf(p.name) >= 0;
    var marks = [];
    if (state.phase === "game_over") {
      var place = (state.places || []).filter(function (q) { return q.name === p.name; })[0];
      if (winner) { marks.push("winner"); } else if (p.out) { marks.push("out"); } else if (place) {
        marks.push(place.place);
      }
    } else {
      if (turn) { marks.push("turn"); }
      if (state.starter === p.name) { marks.push("starts"); }
      if (p.knocked) { marks.push("knocked"); }
      if ((state.last_turn_taken || []).indexOf(p.name) >= 0) { marks.push("done"); }
      if (p.declared) { marks.push("shown"); }
      if (p.out) { marks.push("out"); }
    }
    return { name: p.name, lives: p.lives, turn: turn, out: !!p.out, winner: winner, marks: marks };
  }

  function playerItem(f) {
    var item = el("li", "player");
    if (f.turn) { item.classList.add("turn"); }
    if (f.out) { item.classList.add("out"); }
    if (f.winner) { item.classList.add("winner"); }
    var top = el("div", "who");
    top.appendChild(el("span", "name", title(f.name)));
    f.marks.forEach(function (m) {
      if (m === "done") {
        top.appendChild(shown("span", "mark done", T.mark_done, T.done_heard));
      } else if (typeof m === "number") {
        top.appendChild(el("span", "mark place", ordinal(m)));
      } else {
        top.appendChild(el("span", "mark " + m, T["mark_" + m]));
      }
    });
    item.appendChild(top);
    item.appendChild(hearts(f.lives));
    return item;
  }

  function drawPlayers(state) {
    var facts = state.players.map(function (p) { return playerFacts(state, p); });
    patch($("players"), facts, function (f) { return f.name; }, JSON.stringify, playerItem);
  }

  // ------------------------------------------------------------------ rows
  function card(animal, points) {
    if (!animal) {
      return shown("div", "card unknown", "?", T.not_entered);
    }
    var known = Object.prototype.hasOwnProperty.call(points, animal);
    var node = el("div", "card " + (known ? animal : "unknown"));
    var label = el("span", "name", animalName(animal, 1));
    node.appendChild(label);
    if (known) {
      node.appendChild(shown("span", "points", points[animal], count("card_points", points[animal])));
    }
    return node;
  }

  function rowNode(row) {
    var node = el("div", "row");
    node.setAttribute("role", "group");
    node.setAttribute("aria-label", say("row_aria", { n: row.size }));
    var label = el("div", "row-label");
    label.setAttribute("aria-hidden", "true");
    label.appendChild(el("span", "", T.row_word));
    label.appendChild(el("b", "", row.size));
    node.appendChild(label);
    var cards = el("div", "cards");
    row.animals.forEach(function (a) { cards.appendChild(card(a, row.points)); });
    node.appendChild(cards);
    return node;
  }

  function drawRows(state) {
    // At the end of the game the places and the last round's result take the rows' place
    // (a sudden death may end it before any row was entered).
    $("rows-box").hidden = state.phase === "game_over";
    var rows = state.rows || [];
    var points = state.points || {};
    var items = state.phase === "no_game" ? [] : ROW_SIZES.map(function (size, i) {
      return { size: size, animals: rows[i] || new Array(size).fill(null), points: points };
    });
    patch($("rows"), items, function (r) { return r.size; },
      function (r) { return JSON.stringify(r.animals); }, rowNode);
  }

  // ------------------------------------------------------------------ announcements
  function drawSaid(state, fresh) {
    var items = (state.announcements || []).slice(0, 5);
    var seen = {};
    var keyed = items.map(function (a) {
      var text = a.said + "\n" + a.command;
      seen[text] = (seen[text] || 0) + 1;
      return { said: a.said, command: a.command, key: text + "\n" + seen[text] };
    });
    if (!keyed.length) {
      keyed = [{ quiet: state.phase === "no_game" ? T.nothing_yet : "…", key: "quiet" }];
    }
    var list = $("said");
    var before = Array.prototype.slice.call(list.children);
    patch(list, keyed, function (a) { return a.key; }, function (a) { return a.key; }, function (a) {
      if (a.quiet) { return el("li", "quiet", a.quiet); }
      var item = el("li");
      if (!a.said) {  // nothing was said for it (an imported game): the command, once
        item.appendChild(el("span", "text", a.command));
        return item;
      }
      var text = el("span", "text");
      sentences(a.said).forEach(function (line, i) {
        // a space between the lines, for copying and for the text as a whole (not drawn)
        if (i) { text.appendChild(document.createTextNode(" ")); }
        text.appendChild(el("span", "line", line));
      });
      item.appendChild(text);
      if (T.show_commands) { item.appendChild(el("span", "command", a.command)); }
      return item;
    });
    // the newest, when it is new (after an undo the top one is an older one, kept)
    if (fresh && list.firstChild && before.indexOf(list.firstChild) < 0) {
      list.firstChild.classList.add("fresh");
    }
  }

  // An announcement a sentence a line (a round's end says eight or more). Names are one word of
  // letters, so a full stop followed by a capital (a German umlaut too) or by Hangul ends one.
  function sentences(text) {
    return text.replace(/([.!?])\s+(?=[A-Z0-9ÄÖÜ\uAC00-\uD7A3])/g, "$1\u0000").split("\u0000");
  }

  // Each new announcement once, in the polite status region: added as a paragraph of its own
  // (an addition is read; the few kept before it are not read again).
  function announce(text) {
    if (!text) { return; }
    var news = $("news");
    news.appendChild(el("p", "", text));
    while (news.children.length > NEWS_KEPT) { news.removeChild(news.firstChild); }
  }

  function spoken(event) {
    if (event.kind === "undo") {
      return T.show_commands ? say("taken_back", { command: event.command }) : T.taken_back_plain;
    }
    return event.said || event.command || "";
  }

  // ------------------------------------------------------------------ the round's result
  // The round that just ended, from the score sheet: from its end until the next round's first
  // row is entered, and at the end of the game; null otherwise.
  function justEnded(state) {
    var sheet = state.sheet || [];
    var last = sheet[sheet.length - 1];
    if (!last) { return null; }
    if (state.phase === "game_over") { return last; }
    var noRow = (state.rows || []).every(function (r) { return !r; });
    return state.phase === "rows" && noRow && last.round === state.round - 1 ? last : null;
  }

  function out(s) { return s.lives === 0 ? 1 : 0; }

  // One line a player: what the round did to them in big words, the points and lives left small.
  function resultItem(s) {
    var item = el("li", out(s) ? "out" : (s.lost ? "lost" : "kept"));
    item.appendChild(el("span", "name", title(s.name)));
    var what = out(s) ? T.is_out : (s.lost ? count("loses", s.lost) : T.loses_none);
    item.appendChild(el("span", "what", what));
    var detail = [];
    if (s.points !== null && s.points !== undefined) { detail.push(count("points", s.points)); }
    detail.push(out(s) ? count("lost_lives", s.lost) : count("lives_left", s.lives));
    item.appendChild(el("span", "detail", detail.join(" · ")));
    return item;
  }

  function drawResult(state) {
    var box = $("result-box");
    var ended = justEnded(state);
    box.hidden = !ended;
    if (ended) { document.body.dataset.result = "shown"; } else { delete document.body.dataset.result; }
    if (!ended) { return; }
    setText($("result-title"), say("result_round", { round: ended.round }));
    var sudden = ended.sudden_death;
    var note = $("result-note");
    setText(note, sudden ? say("sudden_note", { player: title(sudden.player),
                                                animals: suddenAnimals(sudden) }) : "");
    note.hidden = !sudden;
    // Who went out first, then who lost most; the seating order among equals.
    var order = ended.players.map(function (s, i) { return { s: s, i: i }; });
    order.sort(function (a, b) {
      return (out(b.s) - out(a.s)) || (b.s.lost - a.s.lost) || (a.i - b.i);
    });
    patch($("result"), order.map(function (o) { return o.s; }),
      function (s) { return ended.round + " " + s.name; }, JSON.stringify, resultItem);
  }

  function placeItem(p) {
    var item = el("li", p.winner ? "winner" : "");
    item.appendChild(el("span", "place", ordinal(p.place)));
    item.appendChild(el("span", "name", title(p.name)));
    if (p.winner) { item.appendChild(el("span", "mark winner", T.mark_winner)); }
    return item;
  }

  function drawPlaces(state) {
    var over = state.phase === "game_over" && (state.places || []).length > 0;
    $("places-box").hidden = !over;
    var winners = state.winners || [];
    var places = over ? state.places.map(function (p) {
      return { name: p.name, place: p.place, winner: winners.indexOf(p.name) >= 0 };
    }) : [];
    patch($("places"), places, function (p) { return p.name; }, JSON.stringify, placeItem);
  }

  // ------------------------------------------------------------------ score sheet
  function cell(s) {
    var td = el("td");
    if (!s) {
      td.appendChild(shown("span", "quiet", "—", T.not_in_round));
      return td;
    }
    td.appendChild(el("span", "pts", s.points === null ? "–" : say("pts", { n: s.points })));
    if (s.lost) {
      td.appendChild(shown("span", "lost", "−" + s.lost + " ♥", count("lost_lives", s.lost)));
    } else {
      td.appendChild(shown("span", "kept", "±0", T.lost_none));
    }
    td.appendChild(el("span", "left", say("left", { n: s.lives })));
    return td;
  }

  // At the end of the game: each player's place and lives left, under the rounds.
  function placesRow(state, players) {
    var tr = el("tr");
    var first = el("th", "", T.sheet_place);
    first.setAttribute("scope", "row");
    tr.appendChild(first);
    var placeOf = {};
    (state.places || []).forEach(function (q) { placeOf[q.name] = q.place; });
    players.forEach(function (p) {
      var td = el("td");
      var n = placeOf[p.name];
      td.appendChild(el("span", "pts", n ? ordinal(n) : "–"));
      td.appendChild(el("span", "left", p.lives ? count("lives_left", p.lives) : T.sheet_out));
      tr.appendChild(td);
    });
    return tr;
  }

  function sheetRow(r, players) {
    var tr = el("tr");
    var first = el("th", "", String(r.round));
    first.setAttribute("scope", "row");
    if (r.sudden_death) {
      first.appendChild(el("span", "note", say("sheet_sudden", {
        player: title(r.sudden_death.player), animals: suddenAnimals(r.sudden_death) })));
    }
    tr.appendChild(first);
    var byName = {};
    r.players.forEach(function (s) { byName[s.name] = s; });
    players.forEach(function (p) { tr.appendChild(cell(byName[p.name])); });
    return tr;
  }

  function drawSheet(state) {
    var box = $("sheet");
    var sheet = state.sheet || [];
    var players = state.players.map(function (p) { return p.name; });
    var columns = JSON.stringify(players);
    if (!sheet.length) {
      if (box.lgColumns !== "none") {
        box.lgColumns = "none";
        while (box.firstChild) { box.removeChild(box.firstChild); }
        box.appendChild(el("p", "quiet", T.sheet_empty));
      }
      return;
    }
    if (box.lgColumns !== columns) {  // another game: a new table
      box.lgColumns = columns;
      while (box.firstChild) { box.removeChild(box.firstChild); }
      var table = el("table");
      var head = el("tr");
      head.appendChild(el("th", "", T.sheet_round));
      players.forEach(function (name) { head.appendChild(el("th", "", title(name))); });
      Array.prototype.forEach.call(head.children, function (th) { th.setAttribute("scope", "col"); });
      var thead = el("thead");
      thead.appendChild(head);
      table.appendChild(thead);
      table.appendChild(el("tbody"));
      table.appendChild(el("tfoot"));
      // the columns share the width evenly, and never get narrower than their words
      table.style.setProperty("--players", String(players.length));
      box.appendChild(table);
    }
    var columnsOf = state.players;
    patch(box.querySelector("tbody"), sheet, function (r) { return r.round; }, JSON.stringify,
      function (r) { return sheetRow(r, columnsOf); });
    var over = state.phase === "game_over" && (state.places || []).length > 0;
    patch(box.querySelector("tfoot"), over ? [state] : [], function () { return "places"; },
      function (s) { return JSON.stringify([s.places, s.players]); },
      function (s) { return placesRow(s, columnsOf); });
    sheetCue();
  }

  // A sheet wider than its box scrolls sideways: a line above it says how many players are
  // further right (or left), and a fade at the edge shows where (both only while true).
  function sheetCue() {
    var box = $("sheet");
    var cue = $("sheet-more");
    var view = box.getBoundingClientRect();
    var right = 0;
    var left = 0;
    var sticky = box.querySelector("thead th");
    var edge = sticky ? sticky.getBoundingClientRect().right : view.left;
    Array.prototype.forEach.call(box.querySelectorAll("thead th:not(:first-child)"), function (th) {
      var r = th.getBoundingClientRect();
      if (r.right > view.right + 1) { right++; } else if (r.left < edge - 1) { left++; }
    });
    var words = [];
    if (left) { words.push(say("more_left", { n: left })); }
    if (right) { words.push(count("more_right", right)); }
    cue.hidden = !words.length || !view.width;
    setText(cue, words.join(" · "));
    $("sheet-fade-right").hidden = !right;
    $("sheet-fade-left").hidden = !left;
  }

  function render(state, fresh) {
    drawHeader(state);
    drawPlaces(state);
    drawResult(state);
    drawPlayers(state);
    drawRows(state);
    drawSaid(state, fresh);
    drawSheet(state);
  }

  // ------------------------------------------------------------------ the connection

  // A lost or dead link is said at the top (an alert), and everything under it is dimmed and
  // marked as not live (body[data-stale]) until the stream is back.
  function setLink(how) {
    var link = $("link");
    link.dataset.state = how;
    setText(link, T["link_" + how]);
    var stale = how === "gone" || how === "reconnecting";
    if (stale) { document.body.dataset.stale = how; } else { delete document.body.dataset.stale; }
    alertText($("gone"), how === "gone" ? T.gone : (how === "reconnecting" ? T.lost : ""));
    bannerHeight();
  }

  // The banner is fixed at the top: the page (and a header that stays on screen) starts below it.
  function bannerHeight() {
    var banner = $("gone");
    var height = banner.firstChild ? banner.getBoundingClientRect().height : 0;
    document.documentElement.style.setProperty("--banner", height + "px");
  }

  function later() {
    setLink("reconnecting");
    clearTimeout(retryTimer);
    retryTimer = setTimeout(probe, delay);
    delay = Math.min(delay * 2, 10000);
  }

  function connect() {
    if (source) { source.close(); }
    source = new EventSource("/events" + query + (since === null ? "" : "&since=" + since));
    since = null;  // a later stream (after a refusal) starts with the whole state
    source.onopen = function () { delay = 1000; setLink("live"); };
    source.onmessage = function (event) {
      var data = JSON.parse(event.data);
      // A change the page has not drawn yet (each is sent once; a stream opened again starts
      // with the whole state, which is drawn and not announced).
      var fresh = data.kind !== "state" && data.version > lastVersion;
      lastVersion = Math.max(lastVersion, data.version);
      render(data.state, fresh);
      if (fresh) { announce(spoken(data)); }
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

  $("sheet").addEventListener("scroll", sheetCue, { passive: true });
  $("sheet-box").addEventListener("toggle", sheetCue);
  window.addEventListener("resize", function () { sheetCue(); bannerHeight(); });

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
    since = initial.dataset.serial || null;
    connect();
  } catch (err) {
    probe();
  }
}());
