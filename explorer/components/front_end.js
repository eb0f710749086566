// The front end of every chart component, in one module: explorer/components/__init__.py mounts each component with
// this code and the one line that names its entry (`export default heatmapComponent;`). Its sections, each used by
// those after it: text into markup, colours, views switched in the browser, next-token bars, rows of coloured cells;
// then the entries: the canvas heatmap, Decode step by step, markup, next-token bars, vector tables.

// ── Text into markup ──────────────────────────────────────────────────────────────────────────────────────────────

// Text into markup, for every drawing that writes HTML (the bars, the cells, Decode step by step): escaped, and numbers
// to fixed places.
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const fixed = (v, places) => Number(v).toFixed(places);

// ── Colours ───────────────────────────────────────────────────────────────────────────────────────────────────────

// Colours both drawings share (the heatmap on its canvas, Decode step by step in its tables).

function mixed(stops, t) {                           // [r, g, b] between evenly spaced RGB stops, t in [0, 1]
  t = Math.max(0, Math.min(1, t)) * (stops.length - 1);
  const i = Math.min(Math.floor(t), stops.length - 2);
  return [0, 1, 2].map((k) => stops[i][k] + (t - i) * (stops[i + 1][k] - stops[i][k]));
}

// Whether white type contrasts more with a cell than black (WCAG 2.1 relative luminance of the rounded colour):
// either reaches 4.58 : 1 on any colour, where a rule on the value wrote white on mid-tone cells at 3-4.4 : 1.
function onDark(c) {
  const [r, g, b] = c.map((x) => {
    x = Math.round(x) / 255;
    return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  });
  const light = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return 1.05 / (light + 0.05) >= (light + 0.05) / 0.05;
}

// ── Views switched in the browser ─────────────────────────────────────────────────────────────────────────────────

// What the browser keeps for the charts and views it switches with no round trip to the server (the heatmap:
// Attention's head; Decode step by step: its step).

// The choices, kept in the window: they outlive a rerun of the page and a visit to another page.
const KEPT = (window.attentionExplorerViews = window.attentionExplorerViews || {});
const viewEvent = (group) => `attention-explorer-view:${group}`;

// The learner picks view v of a group: kept, and said to every chart of the group.
function chooseView(group, v) {
  KEPT[group].view = v;
  window.dispatchEvent(new CustomEvent(viewEvent(group), { detail: v }));
}

// One window listener in `slot` of a component's root: Streamlit calls a component's function again with each rerun's
// data and runs the cleanup it returns only when the component leaves the page, so each call replaces the listener
// the last one added (kept, they piled up: after ten new words one head drawn 11 times a chart, each with a stale
// word's views first). No listener: only the old one goes. Returns this call's own remover, for its cleanup.
function keepOneListener(root, slot, event, listener) {
  const old = root[slot];
  if (old) window.removeEventListener(old.event, old.listener);
  root[slot] = listener ? { event, listener } : null;
  if (!listener) return () => {};
  window.addEventListener(event, listener);
  return () => window.removeEventListener(event, listener);
}

// A choice in the URL as `name`, left out at its default as a bound widget's value is.
function writeUrl(name, value, shown) {
  const url = new URL(window.location.href);
  if (shown) url.searchParams.set(name, value); else url.searchParams.delete(name);
  if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url.href);
}

// ── Next-token bars ───────────────────────────────────────────────────────────────────────────────────────────────

// The next-token bars, drawn here and only here: for Decode step by step (every step at once) and for the lesson's
// one step (nextTokenBarsComponent), from the numbers and orders viz/decode_steps.py decides. Every label is escaped
// here (esc, fixed: above).

// A coloured block a token, its tooltip naming the token and probability, also kept in data-value; heights in rem
// (`full`, a probability of 1: decode_steps.BAR_HEIGHT), so projector mode's larger type enlarges them too.
function bar(full, p, colour, tip, width, token, series) {
  return `<div data-token="${esc(token)}" data-series="${esc(series)}" data-value="${p}" title="${esc(tip)}" ` +
    `style="width:${width};height:${fixed(full * p, 3)}rem;min-height:1px;background:${colour}"></div>`;
}

function frame(full, title, columns, minWidth, summary, legend, note) {
  const heading = title ? `<div style="font-weight:600;margin-bottom:6px">${esc(title)}</div>` : "";
  const cell = `flex:1;min-width:${minWidth};display:flex;flex-direction:column;align-items:center`;
  const bars = columns.map(([b]) => `<div style="${cell};justify-content:flex-end">${b}</div>`).join("");
  const names = columns.map(([, label]) => `<div style="${cell};font-size:0.9rem">${esc(label)}</div>`).join("");
  const row = "display:flex;gap:0.4rem;padding:0 0.3rem";
  const guides = [1.0, 0.5].map((p) => `linear-gradient(#d1d5db, #d1d5db) 0 ${fixed(1.3 + full * (1 - p), 2)}rem / 100% 1px no-repeat`).join(", ");
  return `<div role="img" tabindex="0" aria-label="${esc(summary)}" style="overflow-x:auto">${heading}${legend}` +
    `<div style="${row};align-items:flex-end;border-bottom:1px solid #6b7280;height:${full + 1.3}rem;` +
    `background:${guides}">${bars}</div><div style="${row}">${names}</div>` +
    `<div style="font-size:0.75rem;color:#4b5563;margin-top:2px">next token; grey lines at probability 1 ` +
    `and 0.5; ${note}hover a bar for its probability</div></div>`;
}

function probabilityColumns(data, v, title) {
  const columns = v.bar_order.map((i) => {
    const p = v.probs[i], label = data.labels[i], chosen = i === v.chosen_id;
    return [`<div style="font-size:0.75rem">${fixed(p, 3)}</div>` +
      bar(data.bar_height, p, chosen ? data.colours.chosen : data.colours.other, `token ${label}: probability ${fixed(p, 4)}`, "100%",
          label, chosen ? "chosen" : ""), label];
  });
  return frame(data.bar_height, title, columns, "2.4rem", v.bar_summary, "", v.chosen_id === null ? "" :
               "dark: the chosen token (no dark bar when it is not among these); ");
}

// ── Rows of coloured cells ────────────────────────────────────────────────────────────────────────────────────────

// Rows of coloured cells, drawn here and only here: Decode step by step's keys and values (Decode step by step, which
// draws its attention rows with these pieces too) and every vector table of Inside one head and the lesson
// (vectorRowsComponent, from viz.strips.vector_rows_spec). Every cell names its row, column and value in its tooltip and
// keeps the value in data-value; every label is escaped here (esc, fixed: above).
const rgb = (c) => `rgb(${c.map(Math.round).join(",")})`;
const mix = (stops, t) => rgb(mixed(stops, t));           // mixed, onDark: the colours above
const inkClass = (c) => (onDark(c) ? ' class="on-dark"' : "");

// A box that scrolls sideways where the page is narrow: reached by Tab (so the keys scroll it), named by its title.
function scroller(kind, title, inner) {
  return `<div class="${kind}" role="region" tabindex="0" aria-label="${esc(title || "table")}" ` +
    'style="overflow-x:auto">' +
    (title ? `<div style="font-weight:600;margin-bottom:4px">${esc(title)}</div>` : "") + `${inner}</div>`;
}

// Red below 0, white at 0, blue above, full at ±bound (`style.signed`: the three colours, viz.strips).
function signedRgb(style, v, bound) {
  const t = bound === 0 ? 0 : Math.max(-1, Math.min(1, v / bound));
  const { zero } = style.signed, end = t > 0 ? style.signed.positive : style.signed.negative;
  return zero.map((z, k) => Math.round(z + Math.abs(t) * (end[k] - z)));
}

// Vectors of one length as rows of cells on one scale (±the largest |value|), each row named; `outlined` boxes one
// row, `ruled` draws a line above one (a sum under the terms it adds). Values are written in the cells up to 16 a
// row (or as `showValues` says), in the tooltips always. `style`: the type sizes and the signed colours.
function vectorRows(style, vectors, names, { title = "", outlined = null, ruled = null, columnName = "dimension",
                                             showValues = null } = {}) {
  const bound = vectors.reduce((m, row) => row.reduce((n, v) => Math.max(n, Math.abs(v)), m), 0);
  const tick = style.tick, width = vectors[0].length;
  const values = showValues === null ? width <= 16 : showValues;
  const numbered = values ? 1 : Math.max(1, Math.floor(width / 8));
  const head = Array.from({ length: width }, (_, d) => d % numbered === 0 ?
    `<th style="font-weight:400;color:#6b7280;font-size:${tick};padding:0 1px">${d}</th>` : "<th></th>").join("");
  const rows = vectors.map((row, r) => {
    const name = names[r], line = r === ruled ? "border-top:2px solid #111827;" : "";
    const box = r === outlined ? "outline:3px solid #f59e0b;outline-offset:-2px;" : "";
    const cells = row.map((v, d) => {
      const c = signedRgb(style, v, bound);
      return `<td data-value="${v}" title="${esc(name)}, ${esc(columnName)} ${d}: ${fixed(v, 4)}"${inkClass(c)} ` +
        `style="background:${rgb(c)};${line}">${!values ? "" : fixed(v, 2) === "-0.00" ? "0.00" : fixed(v, 2)}</td>`;
    }).join("");
    return `<tr data-row="${esc(name)}" style="${box}"><th style="text-align:right;font-weight:400;font-size:` +
      `${style.row_name_size};padding-right:6px;white-space:nowrap;${line}">${esc(name)}</th>${cells}</tr>`;
  }).join("");
  const stretch = values ? "" : "width:100%;table-layout:fixed;";   // a long strip fills the page's width
  return scroller(values ? "strip-values" : "strip-bare", title,
    `<table style="border-collapse:collapse;font-size:${values ? "0.78rem" : "0.6rem"};` +
    `font-variant-numeric:tabular-nums;border:none;${stretch}"><colgroup><col style="width:8.5rem"></colgroup>` +
    `<tr><th></th>${head}</tr>${rows}</table>` +
    `<div style="font-size:0.7rem;color:#6b7280">colour: red below 0, blue above, full at ±${fixed(bound, 2)}; ` +
    `hover a cell for its value</div>`);
}

// ── The canvas heatmap ────────────────────────────────────────────────────────────────────────────────────────────

// Matrices as coloured cells on a <canvas>, side by side, each on the scale its spec gives: a chart that redraws in
// a few milliseconds where a Plotly heatmap took about 0.15 s (python -m benchmarks.view_change). Hovering a cell,
// or focusing the chart (Tab) and moving with the arrow keys, names it: its row, its column and its value, also
// said to a screen reader. The spec comes from viz/canvas_heatmap.py, as JSON bytes (explorer/components/__init__.py).
function heatmapComponent(component) {
  const root = component.parentElement.querySelector(".heatmap");
  const data = JSON.parse(new TextDecoder().decode(component.data));
  return data.views ? switchable(data, component.parentElement, root) : drawHeatmap(root, data);
}

function drawHeatmap(root, spec) {
  if (root._observer) root._observer.disconnect();
  root.innerHTML = "";
  root.spec = spec;                                   // what it was drawn from, for the browser tests to read
  const title = document.createElement("div");
  title.className = "title";
  title.textContent = spec.title;
  const canvas = document.createElement("canvas");
  canvas.tabIndex = 0;
  canvas.setAttribute("role", "application");         // keys reach it in a screen reader's browse mode, not an img's
  canvas.setAttribute("aria-roledescription", "heatmap");
  canvas.setAttribute("aria-label", spec.summary);
  canvas.setAttribute("aria-describedby", "hint");
  const tip = document.createElement("div");
  tip.className = "tip";
  const said = document.createElement("div");
  said.className = "said";
  said.setAttribute("aria-live", "polite");
  const hint = document.createElement("div");
  hint.className = "hint";
  hint.id = "hint";                                   // in this component's own shadow root
  hint.textContent = "Hover a cell for its value, or select the chart (Tab) and move with the arrow keys.";
  const numbers = document.createElement("details");  // the same numbers as a table, built when first opened
  numbers.className = "numbers";
  const opener = document.createElement("summary");
  opener.textContent = "The numbers as a table";
  numbers.append(opener);
  numbers.ontoggle = () => { if (numbers.open && numbers.children.length === 1) numbers.append(...tables()); };
  root.append(title, canvas, tip, said, hint, numbers);
  // A chart that follows a group's choice (spec.follow: the Attention page's grid, the head drawn large below it)
  // frames the panel of the chosen view, and frames another when the group's radio buttons pick another view.
  const follow = spec.follow;
  let framed = null;
  function frame(view) {
    framed = follow.panels[view] ?? null;
    root.framed = framed;                             // for the browser tests to read
    const named = framed === null ? "" : ` Framed: ${spec.panels[framed].name}, ${follow.said}.`;
    canvas.setAttribute("aria-label", spec.summary + named);
  }
  if (follow) frame(openingView(follow.group, follow.chosen, follow.panels.length).view);
  const reframe = (e) => { if (follow.panels[e.detail] !== framed) { frame(e.detail); draw(); } };
  const unframe = keepOneListener(root, "_framing", follow && viewEvent(follow.group), follow && reframe);

  const rows = spec.rows.length, cols = spec.cols.length, n = spec.panels.length;
  const font = spec.font, lineHeight = Math.round(font * 1.3);
  const FONT = `${font}px "Source Sans", "Source Sans Pro", sans-serif`;
  let layout = null, focus = [0, 0, 0], cellSize = [0, 0];
  const zmin = spec.zmin || 0;                       // 0 on a weight's scale, -1 on a signed one
  const columns = spec.columns || n;                 // panels in a row of the grid (a layer's heads)

  const rgb = (t) => mixed(spec.stops, t);           // [r, g, b] at t from 0 to 1 on the spec's stops (the colours above)
  const css = (c) => `rgb(${c[0]},${c[1]},${c[2]})`;
  const colour = (t) => css(rgb(t));
  const NULL = [209, 213, 219];                       // a cell with no value (a masked score, −∞): grey
  function cellRgb(v) { return v === null ? NULL : rgb((v - zmin) / (spec.zmax - zmin)); }
  // A cell's text in black or white, whichever contrasts more with the cell: at least 4.58:1 on any colour.
  const ink = (c) => (onDark(c) ? "#ffffff" : "#000000");

  function cellImage(panel) {                        // (rows, cols) cells as a canvas of one pixel each
    const pixels = new ImageData(cols, rows);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const [R, G, B] = cellRgb(panel.z[r][c]), k = 4 * (r * cols + c);
        pixels.data[k] = R; pixels.data[k + 1] = G; pixels.data[k + 2] = B; pixels.data[k + 3] = 255;
      }
    }
    const image = document.createElement("canvas");
    image.width = cols;
    image.height = rows;
    image.getContext("2d").putImageData(pixels, 0, 0);
    return image;
  }

  function label(labels, i, every) {                 // where labels are skipped, a character keeps its position
    const named = labels[i] === String(i) || labels[i].startsWith(`${i}:`);   // "4: o" names its own
    return every > 1 && !named ? `${i} ${labels[i]}` : labels[i];
  }

  function written(ctx, cells) {                     // the cells' own font, if every text fits in its cell
    const size = Math.round(font * 0.85);
    ctx.font = `${size}px "Source Sans", "Source Sans Pro", sans-serif`;
    const widest = Math.max(...cells.flat().map((t) => ctx.measureText(t).width), 0);
    return widest + 4 <= cellSize[0] && size + 2 <= cellSize[1];
  }

  function fitted(ctx, text, width) {                // a panel title cut short with … where the panel is narrow
    if (ctx.measureText(text).width <= width) return text;
    while (text.length > 1 && ctx.measureText(text + "…").width > width) text = text.slice(0, -1);
    return text + "…";
  }

  function draw() {
    const width = Math.max(root.clientWidth, 240);
    const ctx = canvas.getContext("2d");
    ctx.font = FONT;
    const widest = (labels) => Math.max(...labels.map((l) => ctx.measureText(l).width), 1);
    const left = widest(spec.rows.map((l, i) => `${i} ${l}`)) + lineHeight + 8;   // room for a position too
    const bar = spec.bar ? Math.max(widest(spec.bar_ticks) + 40, widest([spec.value_name]) + 12) : 0;
    // a lone panel named as the chart is not titled twice: the bar's name alone sits above it
    const titled = n > 1 || spec.panels[0].title !== spec.title;
    const top = titled || spec.bar ? lineHeight + Math.round(font / 2) + 6 : 6, bottom = 2 * lineHeight + 6, gap = 16;
    // Panels to a row: as many as the spec allows and the width holds at min_panel px each (a phone gets fewer).
    const room = width - left - bar + gap;
    // A divisor of the spec's columns, so that a row of the grid (a layer's heads) is never split across two.
    const fits = Math.max(1, Math.floor(room / ((spec.min_panel || 1) + gap)));
    let perRow = Math.min(columns, fits);
    while (columns % perRow) perRow -= 1;
    const strips = Math.ceil(n / perRow), strip = spec.height, height = strips * strip;
    const panelWidth = (width - left - bar - gap * (perRow - 1)) / perRow;
    const cellW = panelWidth / cols, cellH = (strip - top - bottom) / rows;
    cellSize = [cellW, cellH];
    // sharp on a dense screen, but within the 16.7 million pixels a phone's browser draws on one canvas
    const ratio = Math.min(window.devicePixelRatio || 1, Math.sqrt(16e6 / (width * height)));
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    ctx.scale(ratio, ratio);
    ctx.fillStyle = "#ffffff";                        // its own white ground: dark text stays readable in a dark theme
    ctx.fillRect(0, 0, width, height);
    ctx.font = FONT;
    ctx.textBaseline = "middle";
    const everyCol = Math.max(1, Math.ceil(cols * (widest(spec.cols.map((l, i) => label(spec.cols, i, 2))) + 4) / panelWidth));
    const everyRow = Math.max(1, Math.ceil(rows * lineHeight / (strip - top - bottom)));
    spec.panels.forEach((panel, p) => {
      const x0 = left + (p % perRow) * (panelWidth + gap), y0 = Math.floor(p / perRow) * strip;
      ctx.fillStyle = "#111827";
      ctx.textAlign = "left";
      if (titled) ctx.fillText(fitted(ctx, panel.title, panelWidth - 4), x0, y0 + lineHeight / 2);
      // The cells as one image of a pixel each, stretched without smoothing: one draw for the panel. A rectangle a
      // cell was 120 ms of the canvas's JavaScript a word on Compare tasks (11 panels of 48 × 49); this, about 50.
      ctx.imageSmoothingEnabled = false;
      if (rows && cols) ctx.drawImage(cellImage(panel), x0, y0 + top, cols * cellW, rows * cellH);   // none: nothing
      if (spec.gaps && cellW >= 6 && cellH >= 6) {    // a white line after each cell, where they are large
        ctx.fillStyle = "#ffffff";
        for (let c = 1; c <= cols; c++) ctx.fillRect(x0 + c * cellW - 1, y0 + top, 1, rows * cellH);
        for (let r = 1; r <= rows; r++) ctx.fillRect(x0, y0 + top + r * cellH - 1, cols * cellW, 1);
      }
      if (panel.cells && written(ctx, panel.cells)) {  // each cell's own text, where every one fits its cell
        ctx.textAlign = "center";
        for (let r = 0; r < rows; r++) {
          for (let c = 0; c < cols; c++) {
            ctx.fillStyle = ink(cellRgb(panel.z[r][c]));
            ctx.fillText(panel.cells[r][c], x0 + (c + 0.5) * cellW, y0 + top + (r + 0.5) * cellH);
          }
        }
      }
      ctx.font = FONT;
      ctx.fillStyle = "#374151";
      ctx.textAlign = "center";
      for (let c = 0; c < cols; c += everyCol) ctx.fillText(label(spec.cols, c, everyCol), x0 + (c + 0.5) * cellW, y0 + strip - bottom + lineHeight / 2 + 2);
      if (p % perRow === 0) {                         // each strip's first panel carries the row labels and title
        ctx.textAlign = "right";
        for (let r = 0; r < rows; r += everyRow) ctx.fillText(label(spec.rows, r, everyRow), left - 4, y0 + top + (r + 0.5) * cellH);
        ctx.save();
        ctx.textAlign = "center";
        ctx.translate(lineHeight / 2, y0 + top + (strip - top - bottom) / 2);
        ctx.rotate(-Math.PI / 2);
        ctx.fillText(spec.row_title, 0, 0);
        ctx.restore();
      }
      ctx.strokeStyle = "#d97706";
      ctx.lineWidth = 3;
      for (const [r, c0, c1] of panel.outlines) ctx.strokeRect(x0 + c0 * cellW, y0 + top + r * cellH, (c1 - c0) * cellW, cellH);
      if (p === framed) {                             // in the white between panels, 1.5 px clear of the row labels
        ctx.strokeStyle = "#111827";
        ctx.lineWidth = 2;
        ctx.strokeRect(x0 - 1.5, y0 + top - 1.5, panelWidth + 3, rows * cellH + 3);
      }
    });
    ctx.fillStyle = "#374151";
    ctx.textAlign = "center";
    ctx.fillText(spec.col_title, left + (width - left - bar) / 2, height - lineHeight / 2);
    if (spec.bar) {                                   // the colour bar: the scale from zmin to zmax, with its ticks
      const x = width - bar + 8, h = strip - top - bottom;
      for (let y = 0; y < h; y++) {
        ctx.fillStyle = colour(1 - y / h);
        ctx.fillRect(x, top + y, 14, 1.5);
      }
      ctx.fillStyle = "#374151";
      ctx.textAlign = "left";
      spec.bar_ticks.forEach((label, i) => ctx.fillText(label, x + 18, top + h * (1 - i / (spec.bar_ticks.length - 1))));
      ctx.fillText(spec.value_name, x - 4, lineHeight / 2);
    }
    layout = { left, top, gap, panelWidth, cellW, cellH, height, width, bottom, perRow, strip };
    root.layout = layout;                             // where the cells fell, for the browser tests to read
  }

  function origin(p) {                               // a panel's top left corner, in the canvas's pixels
    return [layout.left + (p % layout.perRow) * (layout.panelWidth + layout.gap), Math.floor(p / layout.perRow) * layout.strip];
  }

  function value(panel, r, c) {                      // the panel's own words for a cell, else its value
    if (panel.hover) return panel.hover[r][c];
    const v = panel.z[r][c];
    return `${spec.value_name} ${v === null ? spec.null_text : v.toFixed(3)}`;
  }
  function describe(p, r, c) {
    return `${spec.panels[p].name || spec.panels[p].title}: ${spec.row_name} ${spec.row_names[r]}, ${spec.col_name} ${spec.col_names[c]}: ` +
      value(spec.panels[p], r, c);
  }
  function show(p, r, c, x, y) {
    tip.textContent = describe(p, r, c);
    tip.style.display = "block";
    tip.style.left = "0px";                           // measured at full width, not squeezed where it last stood
    tip.style.left = Math.max(0, Math.min(x + 12, layout.width - tip.offsetWidth)) + "px";
    const below = y + 12 + tip.offsetHeight <= layout.height;          // else above the cell, inside the chart
    tip.style.top = (canvas.offsetTop + (below ? y + 12 : y - 12 - tip.offsetHeight)) + "px";
  }
  function cellAt(x, y) {
    for (let p = 0; p < n; p++) {
      const [x0, y0] = origin(p);
      if (x >= x0 && x < x0 + layout.panelWidth && y >= y0 + layout.top && y < y0 + layout.strip - layout.bottom)
        return [p, Math.min(rows - 1, Math.floor((y - y0 - layout.top) / layout.cellH)),
                Math.min(cols - 1, Math.floor((x - x0) / layout.cellW))];
    }
    return null;
  }
  canvas.onmousemove = (e) => {
    const box = canvas.getBoundingClientRect(), x = e.clientX - box.left, y = e.clientY - box.top;
    const cell = cellAt(x, y);
    if (cell) show(...cell, x, y); else tip.style.display = "none";
  };
  canvas.onmouseleave = () => { tip.style.display = "none"; };
  canvas.onblur = () => { tip.style.display = "none"; };
  canvas.onfocus = () => announce();                 // the cell the arrow keys start from, said at once
  canvas.onkeydown = (e) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (!moves[e.key]) return;
    e.preventDefault();
    e.stopPropagation();                              // the page's own arrow-key shortcuts do not fire
    const [dr, dc] = moves[e.key];
    let [p, r, c] = focus;
    // past a panel's top or bottom: the panel above or below it
    if (r + dr < 0 && p - columns >= 0) { p -= columns; r = rows; }
    else if (r + dr >= rows && p + columns < n) { p += columns; r = -1; }
    r = Math.max(0, Math.min(rows - 1, r + dr));
    c += dc;
    if (c < 0 && p > 0) { p -= 1; c = cols - 1; } else if (c >= cols && p < n - 1) { p += 1; c = 0; }
    c = Math.max(0, Math.min(cols - 1, c));
    focus = [p, r, c];
    announce();
  };
  function tables() {                                // one table a panel: rows and columns named as in the hover
    return spec.panels.map((panel) => {
      const box = document.createElement("div");
      box.className = "table-box";
      box.tabIndex = 0;                               // it scrolls sideways: the keyboard reaches it
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", panel.name || panel.title);
      const table = document.createElement("table");
      const caption = table.createCaption();
      caption.textContent = panel.name || panel.title;
      const head = table.insertRow();
      const corner = document.createElement("th");
      corner.textContent = `${spec.row_name} ↓, ${spec.col_name} →`;
      head.append(corner);
      for (const name of spec.col_names) {
        const th = document.createElement("th");
        th.scope = "col";
        th.textContent = name;
        head.append(th);
      }
      spec.row_names.forEach((name, r) => {
        const tr = table.insertRow();
        const th = document.createElement("th");
        th.scope = "row";
        th.textContent = name;
        tr.append(th);
        panel.z[r].forEach((v, c) => {
          tr.insertCell().textContent = panel.hover ? panel.hover[r][c] : v === null ? spec.null_text : v.toFixed(3);
        });
      });
      box.append(table);
      return box;
    });
  }
  function announce() {
    const [p, r, c] = focus, [x0, y0] = origin(p);
    show(p, r, c, x0 + (c + 1) * layout.cellW, y0 + layout.top + (r + 1) * layout.cellH);
    said.textContent = describe(p, r, c);
    tip.scrollIntoView({ block: "nearest" });         // a cell in a lower row of panels comes into view
  }
  draw();
  let drawnWidth = root.clientWidth;
  root._observer = new ResizeObserver(() => {   // a phone turned, the sidebar closed: draw again at the new width
    if (root.clientWidth !== drawnWidth) { drawnWidth = root.clientWidth; draw(); }
  });
  root._observer.observe(root);
  // labels measured again once the chart's own font has loaded, if it had not: waiting on document.fonts.ready
  // drew every cell a second time with every new word, as it settled at once when the fonts were already in
  if (document.fonts && !document.fonts.check(FONT)) document.fonts.load(FONT).then(draw);
  const observer = root._observer;
  return () => {                                      // this call's own: a later call may have replaced them on root
    observer.disconnect();
    unframe();
  };
}

// One of several views (the heads of one attention layer), switched in the browser with no round trip to the server.
// Every chart of a group (data.group) follows the choice; the one with data.picker draws the radio buttons and keeps
// the choice in the URL (data.param, left out at view 0 as a bound widget's default is). The choice outlives a rerun
// of the page (another layer, a new word) and a visit to another page: the server's value (data.chosen, read from the
// URL when the page opened) wins only when it names another view, as a link to the page with another head does.
// The view a group's charts open on, kept in KEPT: a link that names a view (chosen > 0) opens on it; a page opened
// without one keeps the learner's last choice. The first of the group's charts to be drawn settles it for the rest.
function openingView(group, chosen, n) {
  let kept = KEPT[group];
  const named = chosen !== 0 && (!kept || kept.server !== chosen);
  if (!kept || named || kept.view >= n) kept = KEPT[group] = { server: chosen, view: chosen };
  return kept;
}

function switchable(data, parentElement, root) {
  const picker = parentElement.querySelector(".picker"), notes = parentElement.querySelector(".notes");
  const n = data.views.length, event = viewEvent(data.group);
  const kept = openingView(data.group, data.chosen, n);
  const radios = [];
  if (data.picker) {
    picker.innerHTML = "";
    const group = document.createElement("fieldset");
    group.setAttribute("role", "radiogroup");         // named by its legend; the arrow keys move the choice
    const legend = document.createElement("legend");
    legend.textContent = data.picker;
    group.append(legend);
    data.view_names.forEach((name, v) => {
      const label = document.createElement("label");
      const radio = document.createElement("input");
      radio.type = "radio";
      radio.name = "view";
      radio.value = String(v);
      radio.onchange = () => chooseView(data.group, v);
      const text = document.createElement("span");
      text.textContent = name;
      label.append(radio, text);
      group.append(label);
      radios.push(radio);
    });
    picker.append(group);
  }
  function show(v) {
    drawHeatmap(root, data.views[v]);
    notes.innerHTML = data.notes[v];                 // built by the server, every text escaped (viz.notes)
    for (const link of notes.querySelectorAll("a.page-link")) {
      link.onclick = (e) => {                        // within the session: the view's own st.page_link, hidden
        if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
        const own = document.querySelectorAll(`.st-key-${data.links} a`)[v];
        if (!own) return;                            // none drawn: the address itself, in a new session
        e.preventDefault();
        own.click();
      };
    }
    for (const button of notes.querySelectorAll("button.download")) {
      button.onclick = () => {
        const url = URL.createObjectURL(new Blob([data.csv[v]], { type: "text/csv" }));
        const a = document.createElement("a");
        a.href = url;
        a.download = button.dataset.file;
        a.click();
        setTimeout(() => URL.revokeObjectURL(url), 1000);
      };
    }
    if (radios.length) radios[v].checked = true;
    if (data.picker) writeUrl(data.param, String(v), v !== 0);
  }
  const unlisten = keepOneListener(root, "_viewListener", event, (e) => show(e.detail));
  show(kept.view);
  return () => {
    unlisten();
    if (root._observer) root._observer.disconnect();
  };
}

// ── Decode step by step ───────────────────────────────────────────────────────────────────────────────────────────

// Decode step by step in the browser: every step of one decoding arrives at once (viz/decode_steps.py), and a new step
// (a button, the ← → keys, the slider) is drawn here with no round trip to the server. Two parts follow one step: the
// "step" part (the controls, what the step reads and chooses, the bars) and the "looked" part below the layer and
// head pickers (the step's attention rows and what the key/value cache holds). The step is kept in the URL (`step`,
// left out at step 0) and outlives a rerun of the page (a new word, another head) and a visit to another page; a
// link naming a step wins once. Every sentence arrives as HTML escaped by the server; every label is escaped here.
function decodeStepsComponent(component) {
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
                                                               // writeUrl: the views above

// The step both parts open on: a link's (chosen > 0) once, else the learner's last, brought within a new word's steps
// (the heatmap's openingView starts again at the link's head instead: another head is not "the nearest" one, but a
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

// A step's attention weights, a row a head, on the weight scale (rgb, mix, inkClass, scroller: the cells above); the chosen
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

// ── Markup written as it is ───────────────────────────────────────────────────────────────────────────────────────

function markupComponent(component) {
  const data = JSON.parse(new TextDecoder().decode(component.data));
  const box = component.parentElement.querySelector("[data-markup]");
  box.innerHTML = data.markup;
  box.dataset.drawn = "";  // for the tests: the markup is in (the module loads after the run has ended)
}

// ── One step's next-token bars ────────────────────────────────────────────────────────────────────────────────────

// One step's next-token bars (viz.decode_steps.bars_spec), drawn by the bars above as Decode step by step draws its own.
function nextTokenBarsComponent(component) {
  const data = JSON.parse(new TextDecoder().decode(component.data));
  const box = component.parentElement.querySelector("[data-markup]");
  box.innerHTML = probabilityColumns(data, data.view, data.title);
  box.dataset.drawn = "";  // for the tests: the bars are in (the module loads after the run has ended)
}

// ── A table of vectors ────────────────────────────────────────────────────────────────────────────────────────────

// One table of vectors as rows of coloured cells (viz.strips.vector_rows_spec), drawn by the cells above.
function vectorRowsComponent(component) {
  const data = JSON.parse(new TextDecoder().decode(component.data));
  const box = component.parentElement.querySelector("[data-markup]");
  box.innerHTML = vectorRows(data, data.vectors, data.names, {
    title: data.title, outlined: data.outlined, ruled: data.ruled, columnName: data.column_name,
    showValues: data.show_values });
  box.dataset.drawn = "";  // for the tests: the table is in (the module loads after the run has ended)
}
