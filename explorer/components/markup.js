export default function (component) {
  const data = JSON.parse(new TextDecoder().decode(component.data));
  const box = component.parentElement.querySelector("[data-markup]");
  box.innerHTML = data.markup;
  box.dataset.drawn = "";  // for the tests: the markup is in (the module loads after the run has ended)
}
