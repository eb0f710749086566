// Matrices as coloured cells on a <canvas>, side by side, each on the scale its spec gives: a chart that redraws in
// a few milliseconds where a Plotly heatmap took about 0.15 s (python -m benchmarks.view_change). Hovering a cell,
// or focusing the chart (Tab) and moving with the arrow keys, names it: its row, its column and its value, also
// said to a screen reader. The spec comes from viz/canvas_heatmap.py, as JSON bytes (explorer/components/__init__.py).
export default function (component) {
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

  const rgb = (t) => mixed(spec.stops, t);           // [r, g, b] at t from 0 to 1 on the spec's stops (colour.js)
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
