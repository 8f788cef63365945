// The HTML form of `segue timeline`: zoom, and a seq cursor showing each navigator's stack as of the
// chosen event (time travel). The data comes from the #timeline-data element the CLI wrote.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("timeline-data").textContent);
  const svg = document.querySelector("#scroll svg");
  const slider = document.getElementById("cursor");
  const label = document.getElementById("cursor-label");
  const panel = document.getElementById("stacks");
  const SVG = "http://www.w3.org/2000/svg";
  let zoom = 1;

  function setZoom(value) {
    zoom = Math.min(16, Math.max(0.05, value));
    svg.setAttribute("width", data.width * zoom);
    svg.setAttribute("height", data.height * zoom);
  }

  const line = document.createElementNS(SVG, "line");
  line.setAttribute("class", "cursor-line");
  line.setAttribute("y1", 48);
  line.setAttribute("y2", data.height - 28);
  svg.appendChild(line);

  // For each navigator, the indexes of its events: its state at a cursor is its last one at or before it.
  const byNavigator = {};
  data.marks.forEach((mark, index) => (byNavigator[mark.navigator] = byNavigator[mark.navigator] || []).push(index));

  function stateAt(name, index) {
    const list = byNavigator[name] || [];
    let found = null;
    for (const i of list) { if (i <= index) found = data.marks[i]; else break; }
    return found;
  }

  function chip(text, modal) {
    const span = document.createElement("span");
    span.className = modal ? "chip modal" : "chip";
    span.textContent = text;
    return span;
  }

  function show(index) {
    const mark = data.marks[index];
    if (!mark) { label.textContent = "no events"; return; }
    slider.value = index;
    label.textContent = "seq " + mark.seq + " · " + mark.navigator + " · " + mark.type + " · frame " + mark.frame;
    line.setAttribute("x1", mark.x);
    line.setAttribute("x2", mark.x);
    panel.replaceChildren();
    for (const name of data.navigators) {
      const box = document.createElement("div");
      box.className = "nav";
      const title = document.createElement("h3");
      title.textContent = name;
      box.appendChild(title);
      const state = stateAt(name, index);
      if (!state) {
        box.appendChild(Object.assign(document.createElement("span"), { className: "muted", textContent: "no event yet" }));
      } else {
        state.stack.forEach((s) => box.appendChild(chip(s, false)));
        state.modals.forEach((s) => box.appendChild(chip(s, true)));
        const extra = document.createElement("div");
        extra.className = "flight";
        extra.textContent = (state.inFlight || "idle") + (state.queued ? " · " + state.queued + " queued" : "");
        box.appendChild(extra);
      }
      panel.appendChild(box);
    }
    const scroller = document.getElementById("scroll");
    const x = mark.x * zoom;
    if (x < scroller.scrollLeft || x > scroller.scrollLeft + scroller.clientWidth) {
      scroller.scrollLeft = x - scroller.clientWidth / 2;
    }
  }

  slider.addEventListener("input", () => show(Number(slider.value)));
  document.getElementById("zoom-in").onclick = () => setZoom(zoom * 1.5);
  document.getElementById("zoom-out").onclick = () => setZoom(zoom / 1.5);
  document.getElementById("zoom-fit").onclick = () => setZoom(document.getElementById("scroll").clientWidth / data.width);
  svg.addEventListener("click", (e) => {
    const g = e.target.closest("g.event");
    if (!g) return;
    const seq = Number(g.dataset.seq);
    const index = data.marks.findIndex((m) => m.seq === seq);
    if (index >= 0) show(index);
  });
  document.getElementById("scroll").addEventListener("wheel", (e) => {
    if (!e.ctrlKey) return;
    e.preventDefault();
    setZoom(zoom * (e.deltaY < 0 ? 1.2 : 1 / 1.2));
  }, { passive: false });
  document.addEventListener("keydown", (e) => {
    if (e.key === "+" || e.key === "=") setZoom(zoom * 1.5);
    else if (e.key === "-") setZoom(zoom / 1.5);
    // preventDefault: a focused slider would take its own step too.
    else if (e.key === "ArrowRight") { e.preventDefault(); show(Math.min(data.marks.length - 1, Number(slider.value) + 1)); }
    else if (e.key === "ArrowLeft") { e.preventDefault(); show(Math.max(0, Number(slider.value) - 1)); }
  });
  window.segueTimeline = { show, setZoom, data };
  show(0);
})();
