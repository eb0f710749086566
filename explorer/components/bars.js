// The next-token bars, drawn here and only here: for Decode step by step (decode_steps.js, every step at once)
// and for the lesson's one step (next_token_bars.js), from the numbers and orders viz/html_bars.py decides. Every
// label is escaped here (esc, fixed: text.js).

// A coloured block a token, its tooltip naming the token and probability, also kept in data-value; heights in rem
// (`full`, a probability of 1: html_bars.BAR_HEIGHT), so projector mode's larger type enlarges them too.
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

