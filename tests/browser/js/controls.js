/* Every control a person can use, marked with a number (data-kb); and anything that
   looks clickable (a pointer cursor) but is neither a control nor part of one. */
() => {
  const controls = "a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex='-1'])";
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && el.checkVisibility({visibilityProperty: true});
  };
  let n = 0;
  const marked = [];
  for (const el of document.querySelectorAll(controls)) {
    if (!shown(el) || el.disabled || el.closest("[inert], [aria-hidden=true]")) continue;
    el.dataset.kb = String(++n);
    marked.push(el.dataset.kb + " " + el.tagName.toLowerCase() + " " + (el.id || el.textContent.trim().slice(0, 40)));
  }
  const mouseOnly = [];
  for (const el of document.querySelectorAll("body *")) {
    if (!shown(el) || getComputedStyle(el).cursor !== "pointer") continue;
    if (el.matches(controls) || el.closest(controls.replace(/, \[tabindex[^,]*$/, ""))) continue;
    if (el.closest("label") || el.querySelector(controls)) continue;
    mouseOnly.push(el.outerHTML.slice(0, 120));
  }
  return {marked, mouseOnly};
}
