/* Where every element sits, how big, and whether it shows (tests/browser/a11y.py layout). */
() => {
  const parts = [];
  for (const el of document.querySelectorAll("body *")) {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    parts.push([Math.round(box.x), Math.round(box.y), Math.round(box.width),
      Math.round(box.height), style.display, style.visibility, style.opacity].join(","));
  }
  return parts.join(";");
}
