// One table of vectors as rows of coloured cells (viz.strips.vector_rows_spec), drawn by cells.js.
export default function (component) {
  const data = JSON.parse(new TextDecoder().decode(component.data));
  const box = component.parentElement.querySelector("[data-markup]");
  box.innerHTML = vectorRows(data, data.vectors, data.names, {
    title: data.title, outlined: data.outlined, ruled: data.ruled, columnName: data.column_name,
    showValues: data.show_values });
  box.dataset.drawn = "";  // for the tests: the table is in (the module loads after the run has ended)
}
