// segue view: draws every navigator's stack as cards, and its transitions from the ticks' views alone
// (docs/protocol.md, "Ticks"). Live, ticks arrive as Server-Sent Events, a frame's in one message,
// and each navigator is drawn once per browser frame; in a replay the whole log arrives first and
// this page plays, pauses, steps and scrubs through it.
//
// How a view is drawn on a card of W × H pixels (the navigator's container, scaled to fit):
//   transform        translate(x·W px, y·H px) [perspective(500 pt) rotateY(rotationY deg)]
//                    [rotate(rotation deg)] [scale(scale)], each part only when it does something
//   transform-origin anchor (ax·W px, ay·H px)
//   opacity          alpha
//   clip-path        mask < 1: circle(mask·R px at the anchor), R the anchor's farthest corner
//   z-index          z
(function () {
  "use strict";

  const PERSPECTIVE_POINTS = 500; // UIKit flips' usual m34 = -1/500
  const DEFAULT_CONTAINER = { width: 390, height: 844 };
  const MAX_WIDTH = 260;
  const MAX_HEIGHT = 520;
  /// How many transitions' frames a live tab keeps for `window.segue.seen`: a tab left open for days
  /// must not grow with every transition it ever saw.
  const SEEN_KEPT = 256;
  const NAME_ORDER = new Intl.Collator("en", { numeric: true });

  const page = {
    mode: null, source: "", frameRate: 60,
    navigators: new Map(), // name -> {name, state, tick, lastEvent, screens, element}
    seen: {}, // "name#transition" -> frames of the ticks received (live), the newest SEEN_KEPT only
    finals: {}, // "name#transition" -> true once its final tick came
    seenOrder: [], // the keys of `seen`, oldest first
    frames: [], stateLog: {}, eventLog: {}, ready: false,
    index: -1, playing: false, speed: 1, playhead: 0, lastTime: 0, requested: null,
  };
  const $ = (id) => document.getElementById(id);

  // --- Geometry ------------------------------------------------------------------------------------

  function deviceSize(container) {
    const c = container || DEFAULT_CONTAINER;
    const width = Math.round(c.width * Math.min(MAX_WIDTH / c.width, MAX_HEIGHT / c.height));
    const scale = width / c.width;
    return { width, height: Math.round(c.height * scale), scale, perspective: PERSPECTIVE_POINTS * scale };
  }

  function cardStyle(v, size) {
    const ax = v.anchor[0] * size.width;
    const ay = v.anchor[1] * size.height;
    let transform = "translate(" + v.x * size.width + "px, " + v.y * size.height + "px)";
    if (v.rotationY !== 0) transform += " perspective(" + size.perspective + "px) rotateY(" + v.rotationY + "deg)";
    if (v.rotation !== 0) transform += " rotate(" + v.rotation + "deg)";
    if (v.scale !== 1) transform += " scale(" + v.scale + ")";
    let clipPath = "none";
    if (v.mask < 1) {
      const r = Math.hypot(Math.max(ax, size.width - ax), Math.max(ay, size.height - ay));
      clipPath = "circle(" + v.mask * r + "px at " + ax + "px " + ay + "px)";
    }
    return { transform, transformOrigin: ax + "px " + ay + "px", opacity: String(v.alpha), zIndex: String(v.z), clipPath };
  }

  const IDENTITY = { x: 0, y: 0, alpha: 1, scale: 1, rotation: 0, rotationY: 0, mask: 1, z: 0, anchor: [0.5, 0.5] };

  function screenColor(id) {
    const n = Number(String(id).replace(/\D/g, "")) || 0;
    return "hsl(" + ((n * 137.508) % 360).toFixed(1) + ", 70%, 78%)";
  }

  // --- Drawing -------------------------------------------------------------------------------------

  function navigatorPanel(name) {
    let nav = page.navigators.get(name);
    if (nav) return nav;
    const element = document.createElement("section");
    element.className = "navigator";
    element.dataset.navigator = name;
    element.innerHTML = '<h2></h2><div class="meta"></div><div class="stack"></div><div class="device"></div>' +
      '<div class="transition"></div><div class="last-event"></div>';
    element.querySelector("h2").textContent = name;
    nav = { name, state: null, stackDrawn: null, tick: null, lastEvent: null, screens: {}, element, cards: {} };
    page.navigators.set(name, nav);
    const list = $("navigators");
    // As a person numbers them (nav2 before nav10), as segue watch and ls do (case aside); found by
    // halves, so a thousand panels open without a million comparisons.
    const panels = list.children;
    let lo = 0, hi = panels.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (NAME_ORDER.compare(panels[mid].dataset.navigator, name) > 0) hi = mid; else lo = mid + 1;
    }
    list.insertBefore(element, panels[lo] || null);
    $("empty").hidden = true;
    return nav;
  }

  function learnScreens(nav, screens) {
    for (const s of screens) if (s && s.id) nav.screens[s.id] = s;
  }

  function card(nav, role, screenID) {
    let el = nav.cards[role];
    if (!el) {
      el = document.createElement("div");
      el.className = "card";
      el.dataset.role = role;
      el.innerHTML = '<div class="name"></div><div class="id"></div><pre></pre>';
      nav.element.querySelector(".device").appendChild(el);
      nav.cards[role] = el;
    }
    const screen = nav.screens[screenID] || { id: screenID, name: screenID };
    el.dataset.screen = screenID;
    el.querySelector(".name").textContent = screen.name;
    el.querySelector(".id").textContent = screen.id;
    el.querySelector("pre").textContent = screen.params ? JSON.stringify(screen.params, null, 1) : "";
    el.style.background = screenColor(screenID);
    return el;
  }

  function place(el, views, size) {
    const s = cardStyle(views, size);
    el.style.transform = s.transform;
    el.style.transformOrigin = s.transformOrigin;
    el.style.opacity = s.opacity;
    el.style.zIndex = s.zIndex;
    el.style.clipPath = s.clipPath;
  }

  function drop(nav, roles) {
    for (const role of roles) {
      if (nav.cards[role]) { nav.cards[role].remove(); delete nav.cards[role]; }
    }
  }

  /// Draws `nav` from its state, and from `tick` when one is to be shown (a transition in flight).
  function draw(nav, tick) {
    const s = nav.state;
    const size = deviceSize(s && s.container);
    const device = nav.element.querySelector(".device");
    device.style.width = size.width + "px";
    device.style.height = size.height + "px";
    nav.element.classList.toggle("closed", !!s && s.status === "closed");
    // The chips are rebuilt only for a new state, not for every tick drawn over it.
    if (nav.stackDrawn !== s) { drawStack(nav); nav.stackDrawn = s; }
    const info = nav.element.querySelector(".transition");
    if (tick) {
      drop(nav, ["top"]);
      place(card(nav, "from", tick.views.from.screen), tick.views.from, size);
      place(card(nav, "to", tick.views.to.screen), tick.views.to, size);
      info.textContent = "#" + tick.transition + " " + tick.operation + " " + tick.phase + " · frame " + tick.frame +
        " · fraction " + tick.fraction.toFixed(3) + " · progress " + tick.progress.toFixed(3);
    } else {
      drop(nav, ["from", "to"]);
      const top = s && (s.modals.length ? s.modals[s.modals.length - 1] : s.stack[s.stack.length - 1]);
      if (top) place(card(nav, "top", top.id), IDENTITY, size); else drop(nav, ["top"]);
      info.textContent = s && s.transition ? "#" + s.transition.id + " " + s.transition.operation + " " + s.transition.phase : "idle";
    }
    const e = nav.lastEvent;
    nav.element.querySelector(".last-event").textContent = e ? "seq " + e.seq + " " + e.type : "";
  }

  function drawStack(nav) {
    const s = nav.state;
    const box = nav.element.querySelector(".stack");
    box.replaceChildren();
    if (!s) return;
    const all = s.stack.map((x) => [x, false]).concat(s.modals.map((x) => [x, true]));
    all.forEach(([screen, modal], i) => {
      const chip = document.createElement("span");
      chip.className = "chip" + (modal ? " modal" : "") + (i === all.length - 1 ? " top" : "");
      chip.textContent = screen.name + " " + screen.id;
      box.appendChild(chip);
    });
    nav.element.querySelector(".meta").textContent = s.status + " · revision " + s.revision +
      (s.queued ? " · " + s.queued + " queued" : "");
  }

  // --- Live ----------------------------------------------------------------------------------------

  function liveState(obj) {
    const nav = navigatorPanel(obj.navigator);
    nav.state = obj;
    // The screens this state names, and no others: a tab left open must not keep every screen it
    // ever saw. A transition in flight names its own (and a later event teaches the next ones).
    nav.screens = {};
    learnScreens(nav, obj.stack.concat(obj.modals, obj.transition ? [obj.transition.from, obj.transition.to] : []));
    drawSoon(nav);
  }

  /// Live drawing waits for the browser's next frame and draws each navigator once however many ticks
  /// came for it meanwhile: a page drawing every tick of a fleet animating at once falls behind.
  const dirty = new Set();
  let drawRequested = false;

  function drawSoon(nav) {
    dirty.add(nav);
    if (drawRequested) return;
    drawRequested = true;
    requestAnimationFrame(() => {
      drawRequested = false;
      for (const n of dirty) drawLive(n);
      dirty.clear();
    });
  }

  /// A tick stays on screen until a state at least as new as it arrives (a final tick's picture is the
  /// transition's end, which the state shows too once it has caught up).
  function drawLive(nav) {
    const t = nav.tick;
    const showTick = t && (!t.final || !nav.state || nav.state.revision < t.revision);
    draw(nav, showTick ? t : null);
  }

  function liveEvent(e) {
    const nav = navigatorPanel(e.navigator);
    nav.lastEvent = e;
    if (e.type === "transition.started") learnScreens(nav, [e.data.from, e.data.to].concat(e.data.stack, e.data.modals));
    if (e.type === "navigator.created") learnScreens(nav, [e.data.root]);
    drawSoon(nav);
  }

  function liveTick(t) {
    const nav = navigatorPanel(t.navigator);
    nav.tick = t;
    const key = t.navigator + "#" + t.transition;
    if (!page.seen[key]) {
      page.seenOrder.push(key);
      if (page.seenOrder.length > SEEN_KEPT) {
        const oldest = page.seenOrder.shift();
        delete page.seen[oldest];
        delete page.finals[oldest];
      }
    }
    (page.seen[key] = page.seen[key] || []).push(t.frame);
    if (t.final) page.finals[key] = true;
    drawSoon(nav);
  }

  /// One frame's ticks (a message a tick is more than a browser takes from a fleet animating at once);
  /// to a page that fell behind, each navigator's newest, their frames differing.
  function liveTicks(ticks) {
    for (const t of ticks) liveTick(t);
    if (ticks.length) $("position").textContent = "frame " + Math.max(...ticks.map((t) => t.frame));
  }

  // --- Replay --------------------------------------------------------------------------------------

  function lastAtOrBefore(list, index) {
    let lo = 0, hi = (list || []).length - 1, found = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].index <= index) { found = list[mid].value; lo = mid + 1; } else hi = mid - 1;
    }
    return found;
  }

  function replayFrame(f) {
    page.frames.push(f);
    for (const s of f.navigators) {
      (page.stateLog[s.navigator] = page.stateLog[s.navigator] || []).push({ index: f.index, value: s });
      const nav = navigatorPanel(s.navigator);
      learnScreens(nav, s.stack.concat(s.modals, s.transition ? [s.transition.from, s.transition.to] : []));
    }
    for (const e of f.events) {
      (page.eventLog[e.navigator] = page.eventLog[e.navigator] || []).push({ index: f.index, value: e });
      const nav = navigatorPanel(e.navigator);
      if (e.type === "transition.started") learnScreens(nav, [e.data.from, e.data.to].concat(e.data.stack, e.data.modals));
    }
    $("scrubber").max = page.frames.length - 1;
    if (page.index < 0) seek(0);
  }

  function seek(index) {
    if (!page.frames.length) return;
    // Not a number (an address's `#index=abc`): the start, rather than no frame at all.
    page.index = Number.isFinite(index) ? Math.max(0, Math.min(page.frames.length - 1, Math.trunc(index))) : 0;
    const f = page.frames[page.index];
    for (const nav of page.navigators.values()) {
      nav.state = lastAtOrBefore(page.stateLog[nav.name], page.index);
      nav.lastEvent = lastAtOrBefore(page.eventLog[nav.name], page.index);
      nav.element.hidden = !nav.state;
      const ticks = f.ticks.filter((t) => t.navigator === nav.name);
      draw(nav, ticks.length ? ticks[ticks.length - 1] : null);
    }
    $("scrubber").value = page.index;
    $("position").textContent = "frame " + f.frame + " · " + (page.index + 1) + "/" + page.frames.length +
      (page.ready ? "" : "+") + " · +" + f.at.toFixed(3) + " s";
  }

  function play() {
    if (!page.frames.length) return;
    if (page.index >= page.frames.length - 1) seek(0);
    page.playing = true;
    page.playhead = page.frames[page.index].at;
    page.lastTime = performance.now();
    $("play").textContent = "⏸";
    requestAnimationFrame(advance);
  }

  function pause() {
    page.playing = false;
    $("play").textContent = "▶";
  }

  function advance(now) {
    if (!page.playing) return;
    page.playhead += ((now - page.lastTime) / 1000) * page.speed;
    page.lastTime = now;
    let i = page.index;
    while (i + 1 < page.frames.length && page.frames[i + 1].at <= page.playhead) i++;
    if (i !== page.index) seek(i);
    if (page.index >= page.frames.length - 1 && page.ready) pause(); else requestAnimationFrame(advance);
  }

  /// `#index=N` or `#frame=F` opens the replay paused there; `#paused` paused at the start.
  function requestedStart() {
    const hash = new URLSearchParams(location.hash.slice(1));
    if (hash.has("index")) return { index: Number(hash.get("index")) };
    if (hash.has("frame")) return { frame: Number(hash.get("frame")) };
    if (hash.has("paused")) return { index: 0 };
    return null;
  }

  /// The frame on screen at `frame`: the last one at or before it (a frame holds until the next),
  /// the first for one before them all or not a number, the last for one past them.
  function indexShowing(frame) {
    if (!Number.isFinite(frame)) return 0;
    const after = page.frames.findIndex((f) => f.frame > frame);
    return after === -1 ? page.frames.length - 1 : Math.max(0, after - 1);
  }

  function replayEnd() {
    page.ready = true;
    const r = requestedStart();
    if (r && r.frame !== undefined) seek(indexShowing(r.frame));
    else if (r) seek(r.index);
    else { seek(0); play(); }
    setStatus(page.frames.length + " frames", false);
  }

  // --- Connection ----------------------------------------------------------------------------------

  function setStatus(text, problem) {
    $("status").textContent = text;
    $("status").classList.toggle("problem", problem);
  }

  function forgetNavigators() {
    for (const nav of page.navigators.values()) nav.element.remove();
    page.navigators.clear();
    dirty.clear();
  }

  function hello(h) {
    pause();
    Object.assign(page, { mode: h.mode, source: h.source, frameRate: h.frameRate, frames: [], stateLog: {},
      eventLog: {}, ready: false, index: -1 });
    forgetNavigators();
    $("empty").hidden = h.mode !== "live";
    $("source").textContent = (h.mode === "live" ? "live: " : "replay: ") + h.source + " · " + h.frameRate + " Hz";
    $("controls").hidden = h.mode !== "replay";
    setStatus(h.mode === "live" ? "connected" : "loading…", false);
  }

  const events = new EventSource("events");
  const on = (name, handler) => events.addEventListener(name, (e) => handler(JSON.parse(e.data)));
  on("hello", hello);
  on("navigator", liveState);
  on("event", liveEvent);
  on("ticks", liveTicks);
  on("reset", () => {
    forgetNavigators();
    setStatus("the daemon's log went back (a restore); starting over", true);
  });
  on("status", (s) => { if (page.mode === "live") setStatus(s.stale ? s.message : "connected", s.stale); });
  on("frame", replayFrame);
  on("end", () => { events.close(); replayEnd(); });
  events.onerror = () => { if (page.mode !== "replay" || !page.ready) setStatus("disconnected; reconnecting…", true); };
  events.onopen = () => { if (page.mode === "live") setStatus("connected", false); };

  $("play").onclick = () => (page.playing ? pause() : play());
  $("back").onclick = () => { pause(); seek(page.index - 1); };
  $("forward").onclick = () => { pause(); seek(page.index + 1); };
  $("speed").onchange = () => (page.speed = Number($("speed").value));
  $("scrubber").oninput = () => { pause(); seek(Number($("scrubber").value)); };
  document.addEventListener("keydown", (e) => {
    if (page.mode !== "replay" || e.target.tagName === "SELECT") return;
    if (e.key === " ") { e.preventDefault(); page.playing ? pause() : play(); }
    // preventDefault: a focused scrubber would take its own step too.
    else if (e.key === "ArrowLeft") { e.preventDefault(); pause(); seek(page.index - 1); }
    else if (e.key === "ArrowRight") { e.preventDefault(); pause(); seek(page.index + 1); }
  });

  // For scripts and tests: the same operations as the controls, and what the page has seen.
  window.segue = {
    get mode() { return page.mode; },
    get ready() { return page.ready; },
    get frameCount() { return page.frames.length; },
    get index() { return page.index; },
    frame(index) { const f = page.frames[index === undefined ? page.index : index]; return f ? f.frame : null; },
    indexOfFrame(frame) { return page.frames.findIndex((f) => f.frame === frame); },
    seek(index) { pause(); seek(index); return page.index; },
    play, pause,
    step(delta) { pause(); seek(page.index + delta); return page.index; },
    setSpeed(x) { page.speed = x; $("speed").value = String(x); },
    seen(name, transition) { return (page.seen[name + "#" + transition] || []).slice(); },
    finalSeen(name, transition) { return !!page.finals[name + "#" + transition]; },
    navigators() { return [...page.navigators.keys()]; },
    revision(name) { const nav = page.navigators.get(name); return nav && nav.state ? nav.state.revision : 0; },
    memory(name) {
      const nav = page.navigators.get(name);
      return { screens: nav ? Object.keys(nav.screens).length : 0, transitions: page.seenOrder.length };
    },
    geometry(name) { const nav = page.navigators.get(name); return deviceSize(nav && nav.state && nav.state.container); },
  };
})();
