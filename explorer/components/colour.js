// Colours both drawings share (heatmap.js on its canvas, decode_steps.js in its tables), put before each one's own
// code (explorer/components/__init__.py).

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
