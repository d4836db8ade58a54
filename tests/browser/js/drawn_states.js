/* The colours of the pictures a page draws (tests/browser/a11y.py GRAPHICS, DRAWN_TEXT):
   for each, what paints it and the backgrounds behind it, innermost first. */
([graphics, texts]) => {
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && el.checkVisibility({visibilityProperty: true});
  };
  // the colours behind an element: its ancestors' backgrounds, innermost first
  const behind = (el) => {
    const layers = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const style = getComputedStyle(node);
      layers.push(style.backgroundColor + " " + (style.backgroundImage === "none" ? "" : style.backgroundImage));
    }
    return layers;
  };
  const describe = (el) => {
    const cls = [...el.classList].join(".");
    const text = (el.closest("[aria-label]") || el).getAttribute("aria-label") || el.textContent;
    return el.tagName.toLowerCase() + (cls ? "." + cls : "") + " in \"" + (text || "").trim().slice(0, 60) + "\"";
  };
  // an SVG mark drawn inside a box: the box's fill is behind it (none: the page)
  const boxFill = (el) => {
    const box = el.parentElement.querySelector("rect");
    return box && box !== el ? getComputedStyle(box).fill : "";
  };
  const shapes = [];
  for (const [name, selector, paint, against] of graphics) {
    for (const el of document.querySelectorAll(selector)) {
      if (!visible(el)) continue;
      const style = getComputedStyle(el);
      const before = getComputedStyle(el, "::before");
      let painted = "", width = 1, lineStyle = "solid";
      if (paint === "fill") painted = style.backgroundColor + " " + style.backgroundImage;
      else if (paint === "svg") painted = style.fill;
      else if (paint === "color") painted = style.color;
      else if (paint === "stroke") {
        painted = style.stroke;
        width = parseFloat(style.strokeWidth);
        lineStyle = style.stroke === "none" ? "none" : "solid";
      }
      else if (paint === "before") { painted = before.borderTopColor; width = parseFloat(before.borderTopWidth); lineStyle = before.borderTopStyle; }
      else {
        const side = paint === "border" ? "Top" : paint === "border-top" ? "Top" : "Left";
        painted = style["border" + side + "Color"];
        width = parseFloat(style["border" + side + "Width"]);
        lineStyle = style["border" + side + "Style"];
      }
      shapes.push({
        name, paint, painted, width, lineStyle, what: describe(el),
        background: against === "self" ? behind(el)
          : against === "box" ? [boxFill(el)].concat(behind(el.closest("svg").parentElement))
          : behind(el.parentElement),
        fillOwn: style.backgroundColor + " " + style.backgroundImage,
      });
    }
  }
  const words = [];
  for (const [name, selector] of texts) {
    for (const el of document.querySelectorAll(selector)) {
      if (!visible(el) || !el.textContent.trim()) continue;
      words.push({name, what: describe(el), color: getComputedStyle(el).color, background: behind(el)});
    }
  }
  return {shapes, words};
}
