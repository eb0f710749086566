// Text into markup, for every drawing that writes HTML (bars.js, cells.js, decode_steps.js): escaped, and numbers
// to fixed places.
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const fixed = (v, places) => Number(v).toFixed(places);
