// The one place where the pages turn data into HTML. In html`<td>${name}</td>` every value is text:
// escaped here, whatever it holds (a run's or a constant's name, a player spec, an SGF property, a
// server's message), unless it is itself HTML made by this tag (or an array of such). show() puts only
// such HTML into the page, so a plain string never reaches innerHTML. Templates quote every attribute
// (the escaping keeps a value inside its quotes) and build no URL, script or style from data: an href
// is "#/..." with the data through encodeURIComponent, a colour one of the page's own.

class Html {
  constructor(markup) {
    this.markup = markup;
  }
}

const ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"};

function markupOf(value) {
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(markupOf).join("");
  return String(value ?? "").replace(/[&<>"']/g, c => ENTITIES[c]);
}

export function html(strings, ...values) {
  return new Html(strings.reduce((markup, text, k) => markup + markupOf(values[k - 1]) + text));
}

// Replaces what ``element`` holds with ``content`` (HTML made by html``).
export function show(element, content) {
  if (!(content instanceof Html)) throw new TypeError("show() takes HTML made by html``, not a string");
  element.innerHTML = content.markup;
}
