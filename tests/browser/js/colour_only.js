/* States told by colour alone (WCAG 1.4.1): each found is returned with its markup. */
() => {
  const text = (el) => (el ? el.textContent.replace(/\s+/g, " ").trim() : "");
  const out = [];
  const need = (el, ok, why) => { if (!ok) out.push(why + ": " + el.outerHTML.slice(0, 160)); };
  // a character's state: a word on a badge beside the coloured edge
  for (const el of document.querySelectorAll(".pc-card")) need(el, text(el.querySelector(".badge")), "party card without its state word");
  for (const el of document.querySelectorAll(".badge")) need(el, text(el), "badge without a word");
  // a bar's colour (good/warn/bad) always comes with its numbers
  for (const el of document.querySelectorAll(".bar-fill")) {
    const holder = el.closest(".meter, tr, .os-ability, .hero-card");
    need(el, holder && /\d/.test(text(holder.querySelector(".meter-value, .num, .os-ab-val, .badge"))), "bar without its numbers");
  }
  // a filled slot differs from an empty one by more than its hue: a fill against an outline,
  // or a solid token against a dashed ring
  for (const el of document.querySelectorAll(".token.is-off")) need(el, getComputedStyle(el).borderTopStyle === "dashed", "empty token slot not dashed");
  for (const el of document.querySelectorAll(".pip:not(.on)")) {
    const s = getComputedStyle(el);
    need(el, s.borderTopStyle !== "none" && parseFloat(s.borderTopWidth) > 0, "empty pip without an outline");
  }
  for (const el of document.querySelectorAll(".pip.on")) {
    const s = getComputedStyle(el);
    need(el, s.borderTopColor === "rgba(0, 0, 0, 0)" || s.borderTopColor === s.backgroundColor, "filled pip drawn as an outline");
  }
  // cards: a wound card and a Stamina card carry a mark, not only a tint
  for (const el of document.querySelectorAll(".dk-card.is-wound")) need(el, el.querySelector(".dk-mark-wound"), "wound card told by colour only");
  for (const el of document.querySelectorAll(".dk-card.is-stamina")) need(el, el.querySelector(".bolt"), "Stamina card without its bolt");
  // timeline: due effects say so
  for (const el of document.querySelectorAll(".tl-item.is-due")) need(el, /due now/.test(text(el)), "due effect told by colour only");
  // lowered scores show the maximum or the loss in words
  for (const el of document.querySelectorAll(".is-lowered")) need(el, /\/\s*\d|lost/.test(text(el)), "lowered score told by colour only");
  for (const el of document.querySelectorAll(".meter-value.is-negative")) need(el, /^[-\u2212]/.test(text(el)), "negative value told by colour only");
  // wounds: treated/untreated and ended penalties have words
  for (const el of document.querySelectorAll(".wound")) need(el, /treated|untreated/.test(text(el)), "wound without its treatment word");
  for (const el of document.querySelectorAll(".wound.is-expired")) need(el, /penalty ended/.test(text(el)), "expired wound told by colour only");
  // conditions, chips and waiting cards name what they are
  for (const el of document.querySelectorAll(".cond, .chip")) need(el, text(el), "condition without a name");
  for (const el of document.querySelectorAll(".pc-card.is-waiting")) need(el, /waiting on a choice/i.test(text(el)), "waiting card told by colour only");
  for (const el of document.querySelectorAll(".roll-hidden")) need(el, /hidden/.test(text(el)), "hidden roll told by colour only");
  for (const el of document.querySelectorAll(".die.dropped")) need(el, getComputedStyle(el).textDecorationLine.includes("line-through"), "dropped die told by colour only");
  return out;
}
