// One step's next-token bars (viz.html_bars.bars_spec), drawn by bars.js as Decode step by step draws its own.
export default function (component) {
  const data = JSON.parse(new TextDecoder().decode(component.data));
  const box = component.parentElement.querySelector("[data-markup]");
  box.innerHTML = probabilityColumns(data, data.view, data.title);
  box.dataset.drawn = "";  // for the tests: the bars are in (the module loads after the run has ended)
}
