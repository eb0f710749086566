// Decode step by step in the browser: every step of one decoding arrives at once (viz/decode_steps.py), and a new step
// (a button, the ← → keys, the slider) is drawn here with no round trip to the server. Two parts follow one step: the
// "step" part (the controls, what the step reads and chooses, the bars) and the "looked" part below the layer and
// head pickers (the step's attention rows and what the key/value cache holds). The step is kept in the URL (`step`,
// left out at step 0) and outlives a rerun of the page (a new word, another head) and a visit to another page; a
// link naming a step wins once. Every sentence arrives as HTML escaped by the server; every label is escaped here.
export default function (component) {
  const root = component.parentElement.querySelector(".decode");
  const data = JSON.parse(new TextDecoder().decode(component.data));
  const kept = openingStep(data.chosen, data.views.length);
  root.classList.toggle("projector", data.projector);  // its headings as projector mode sets the page's
  const draw = data.part === "step" ? stepPart(root, data) : lookedPart(root, data);
  const unlisten = keepOneListener(root, "_stepListener", STEP_EVENT, (e) => draw(e.detail));   // one a part
  draw(kept.view);
  const unkey = root._unkey;                          // this call's own (the step part's ← → keys)
  return () => {
    unlisten();
    if (unkey) unkey();
  };
}

const GROUP = "decode-step", STEP_EVENT = viewEvent(GROUP);   // KEPT, viewEvent, chooseView, keepOneListener,
                                                               // writeUrl: views.js

// The step both parts open on: a link's (chosen > 0) once, else the learner's last, brought within a new word's steps
// (heatmap.js's openingView starts again at the link's head instead: another head is not "the nearest" one, but a
// shorter word's last step is where a learner stepping to the end would be).
function openingStep(chosen, n) {
  let kept = KEPT[GROUP];
  if (!kept || (chosen !== 0 && kept.server !== chosen)) kept = KEPT[GROUP] = { server: chosen, view: chosen };
  kept.view = Math.min(kept.view, n - 1);
  return kept;
}


// ---- the step part ------------------------------------------------------------------------------------------------

function stepPart(root, data) {
  const n = data.views.length, last = n - 1;
  root.innerHTML = `
    <div class="buttons">
      <button type="button" data-to="first">⏮ First</button>
      <button type="button" data-to="previous" title="Previous step (← key)" aria-keyshortcuts="ArrowLeft">Previous <span aria-hidden="true">←</span></button>
      <button type="button" data-to="next" title="Next step (→ key)" aria-keyshortcuts="ArrowRight">Next <span aria-hidden="true">→</span></button>
      <button type="button" data-to="last">Last ⏭</button>
    </div>
    ${n > 1 ? `<div class="slider"><label for="step">Step t</label>
      <div class="track"><output for="step" aria-hidden="true"></output>
      <input type="range" id="step" min="0" max="${last}" step="1"></div></div>` : ""}
    <div class="said" aria-live="polite"></div>
    <div class="step"></div>`;
  const buttons = Object.fromEntries([...root.querySelectorAll("button[data-to]")].map((b) => [b.dataset.to, b]));
  const slider = root.querySelector("input[type=range]"), shown = root.querySelector("output");
  const said = root.querySelector(".said"), body = root.querySelector(".step");
  const at = () => KEPT[GROUP].view;
  const target = { first: () => 0, previous: () => at() - 1, next: () => at() + 1, last: () => last };
  for (const [name, button] of Object.entries(buttons)) {
    button.onclick = () => {                          // a button at its end stays focusable: aria-disabled
      if (button.getAttribute("aria-disabled") === "true") return;
      const t = Math.max(0, Math.min(last, target[name]()));
      if (t !== at()) chooseView(GROUP, t);
    };
  }
  if (slider) slider.oninput = () => chooseView(GROUP, Number(slider.value));
  // ← and → anywhere on the page but in a box, a list or a chart that takes the arrow keys itself (Streamlit's
  // shortcuts skip the same); the slider moves by itself when it has the focus.
  root._unkey = keepOneListener(root, "_keys", "keydown", (e) => {
    if ((e.key !== "ArrowLeft" && e.key !== "ArrowRight") || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey
        || e.shiftKey || takesArrows(e.composedPath()[0])) return;
    e.preventDefault();
    buttons[e.key === "ArrowLeft" ? "previous" : "next"].click();
  });

  let spoken = false;
  return function draw(t) {
    const v = data.views[t];
    buttons.previous.setAttribute("aria-disabled", String(t === 0));
    buttons.next.setAttribute("aria-disabled", String(t === last));
    if (slider) {
      slider.value = String(t);
      slider.setAttribute("aria-valuetext", `step ${t} (steps 0 to ${last})`);
      shown.textContent = String(t);
      shown.style.left = `calc(${(100 * t) / Math.max(last, 1)}% + ${8 - (16 * t) / Math.max(last, 1)}px)`;
    }
    body.innerHTML = `
      <div class="metrics">
        ${metric(`Decoder input at step ${t}`, v.input)}
        ${metric("Chosen token", v.chosen, v.p)}
        ${metric("Written so far", v.written)}
      </div>
      <div class="caption">${v.caption}</div>
      <div class="row">
        <div class="top"><p><strong>Top ${v.top.length} next tokens</strong></p>
          <div class="table" role="region" tabindex="0" aria-label="Top ${v.top.length} next tokens"><table>
            <thead><tr><th scope="col">token</th><th scope="col">probability</th></tr></thead>
            <tbody>${v.top.map(([token, p]) => `<tr><td>${esc(token)}</td><td>${p}</td></tr>`).join("")}</tbody>
          </table></div></div>
        <div class="bars">${probabilityColumns(data, v, `Next-token distribution at step ${t}`)}</div>
      </div>
      <h2>The same step at different temperatures</h2>
      ${temperatureColumns(data, v)}
      <div class="caption">${v.temperature_caption}</div>`;
    if (spoken) said.textContent = `Step ${t} (steps 0 to ${last}): chosen token ${v.chosen}, ${v.p}. Written so far: ` +
      `${v.written}.`;
    spoken = true;                                    // not on opening: the page says it already
    writeUrl(data.param, String(t), t !== 0);
    root.step = t;                                    // for the browser tests to read
  };
}

// A box, a list or a chart that takes the arrow keys itself, or a box that scrolls sideways (a wide table, reached by
// Tab so that the keys scroll it).
function takesArrows(element) {
  if (!element || !element.closest) return false;
  if (element.scrollWidth > element.clientWidth && getComputedStyle(element).overflowX !== "visible") return true;
  return Boolean(element.closest("input, textarea, select, [contenteditable=''], [contenteditable=true], " +
    "[role=slider], [role=radio], [role=radiogroup], [role=listbox], [role=option], [role=combobox], [role=tab], " +
    "[role=menu], [role=menuitem], [role=application], [role=grid]"));
}

function metric(label, value, delta) {
  return `<div class="metric"><div class="label">${esc(label)}</div><div class="value">${esc(value)}</div>` +
    (delta ? `<div class="delta"><span aria-hidden="true">↑</span> ${esc(delta)}</div>` : "") + "</div>";
}

function temperatureColumns(data, v) {
  const names = data.temperature_names, colours = data.colours.temperatures;
  const columns = v.temperature_order.map((i) => {
    const label = data.labels[i];
    const bars = names.map((name, k) => bar(data.bar_height, v.temperatures[k][i], colours[k],
      `token ${label} at ${name}: probability ${fixed(v.temperatures[k][i], 4)}`, "18%", label, name)).join("");
    return [`<div style="display:flex;align-items:flex-end;gap:1px;width:100%;justify-content:center">${bars}</div>`, label];
  });
  const legend = `<div style="margin-bottom:4px">` + names.map((name, k) =>
    `<span style="margin-right:0.8rem;font-size:0.85rem"><span style="display:inline-block;width:0.8rem;` +
    `height:0.8rem;background:${colours[k]};margin-right:0.3rem"></span>${esc(name)}</span>`).join("") + "</div>";
  return frame(data.bar_height, "", columns, "3.5rem", v.temperature_summary, legend, "");
}

// ---- the looked part ----------------------------------------------------------------------------------------------

function lookedPart(root, data) {
  root.innerHTML = `<div class="looked"></div><h2>What the key/value cache holds at this step</h2>
    <div class="reads"></div>
    <details class="cache"><summary></summary><div class="tables"></div></details>
    <div class="saved"></div><div class="caption">${data.draft}</div>`;
  const looked = root.querySelector(".looked"), reads = root.querySelector(".reads");
  const saved = root.querySelector(".saved");          // the kept rows against the traced pass; what the cache saves
  const details = root.querySelector("details"), summary = root.querySelector("summary");
  const tables = root.querySelector(".tables");
  const { layer, head } = data;
  let step = 0;
  function cacheTables() {                            // built only when opened: 2 tables of d_k numbers a row
    if (!details.open) { tables.innerHTML = ""; return; }
    const names = data.keys.slice(0, step + 1).map((_, r) => `${r}: ${data.row_labels[r]} ${r === step ? "(new)" : "(kept)"}`);
    tables.innerHTML = ["keys", "values"].map((name) => vectorRows(data, data[name].slice(0, step + 1), names,
      { title: `${name[0].toUpperCase()}${name.slice(1)}, layer ${layer}, head ${head}`, outlined: step })).join("");
  }
  // open or not outlives a rerun too (another head redraws this part), and a link's "true" wins once
  let open = KEPT["decode-cache"];
  if (!open || (data.show_cache && !open.server)) {
    open = KEPT["decode-cache"] = { server: data.show_cache, open: data.show_cache };
  }
  open.server = data.show_cache;
  details.open = open.open;
  details.ontoggle = () => {
    open.open = details.open;
    writeUrl(data.cache_param, "true", details.open);
    cacheTables();
  };
  return function draw(t) {
    step = t;
    const v = data.views[t];
    looked.innerHTML = v.cross_sentence +
      weightRows(data, v.cross, data.source, `Cross-attention at step ${t}, layer ${layer}, every head (head ${head} outlined)`,
                 "source position") + v.self_sentence +
      weightRows(data, v.self, data.decoder_keys, `Decoder self-attention at step ${t}, layer ${layer}, every head ` +
                 `(head ${head} outlined)`, "decoder position");
    reads.innerHTML = v.reads;
    summary.textContent = `Show what self-attention reads at step ${t} in layer ${layer}, head ${head} ` +
      (t ? `(row ${t} computed now, the rest kept)` : "(row 0, computed now)");
    saved.innerHTML = v.same + v.cost;
    cacheTables();
  };
}

// A step's attention weights, a row a head, on the weight scale (rgb, mix, inkClass, scroller: cells.js); the chosen
// head's row is outlined.
function weightRows(data, z, columnNames, title, columnTitle) {
  const stops = data.weight_stops, tick = data.tick, cols = columnNames.length;
  const written = cols <= 12, every = written ? 1 : 5;
  const top = columnNames.map((c) => `<th style="font-weight:400;font-size:${tick};padding:0;text-align:center">${esc(c)}</th>`).join("");
  const bottom = columnNames.map((_, c) => `<th style="font-weight:400;color:#4b5563;font-size:${tick};padding:0">` +
    `${c % every === 0 ? c : ""}</th>`).join("");
  const rows = data.heads.map((name, r) => {
    const box = r === data.head ? "outline:3px solid #d97706;outline-offset:-2px;" : "";
    const cells = z[r].map((v, c) => `<td data-value="${v}" title="${esc(name)}, ${esc(columnTitle)} ${c} ` +
      `(${esc(columnNames[c])}): weight ${fixed(v, 3)}"${inkClass(mixed(stops, v))} ` +
      `style="background:${mix(stops, v)}">${written ? fixed(v, 2) : ""}</td>`).join("");
    return `<tr data-row="${esc(name)}" style="${box}"><th style="text-align:right;font-weight:400;font-size:0.8rem;` +
      `padding-right:6px;white-space:nowrap">${esc(name)}</th>${cells}</tr>`;
  }).join("");
  const legend = Array.from({ length: 9 }, (_, k) => `<span style="display:inline-block;width:1.2rem;height:0.7rem;` +
    `background:${mix(stops, k / 8)}"></span>`).join("");
  return scroller("strip-weights", title,
    `<table style="border-collapse:collapse;width:100%;table-layout:fixed;border:none"><colgroup><col style="width:4.5rem">` +
    `</colgroup><tr><th></th>${top}</tr>${rows}<tr><th style="font-weight:400;font-size:${tick};text-align:right;` +
    `padding-right:6px">${esc(columnTitle)}</th>${bottom}</tr></table>` +
    `<div style="font-size:0.75rem;color:#4b5563;margin-top:2px">weight 0 ${legend} 1; hover a cell for its value</div>`);
}
