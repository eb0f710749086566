// What the browser keeps for the charts and views it switches with no round trip to the server (heatmap.js: Attention's
// head; decode_steps.js: Decode's step), put before each component's own code (explorer/components/__init__.py).

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
