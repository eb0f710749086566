// Rows of coloured cells, drawn here and only here: Decode step by step's keys and values (decode_steps.js, which
// draws its attention rows with these pieces too) and every vector table of Inside one head and the lesson
// (vector_rows.js, from viz.strips.vector_rows_spec). Every cell names its row, column and value in its tooltip and
// keeps the value in data-value; every label is escaped here (esc, fixed: text.js).
const rgb = (c) => `rgb(${c.map(Math.round).join(",")})`;
const mix = (stops, t) => rgb(mixed(stops, t));           // mixed, onDark: colour.js
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
