/* The focused element, and whether it shows a focus ring (outline of 2px or a shadow). */
() => {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  const ring = (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2)
    || (style.boxShadow !== "none" && style.boxShadow !== "");
  const words = (el.getAttribute("aria-label") || el.textContent || "").replace(/\s+/g, " ").trim();
  return {
    tag: el.tagName.toLowerCase(), id: el.id, words: words.slice(0, 80), ring,
    outline: style.outlineStyle + " " + style.outlineWidth + " " + style.outlineColor,
    shown: box.width > 0 && box.height > 0, mark: el.dataset.kb || "",
  };
}
