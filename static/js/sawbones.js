/* Sawbones: the little the pages need beyond htmx.
 *
 * - The referee's clock buttons post to the REST API (POST campaigns/{id}/clock/advance/
 *   -> 202 {job}) and poll the job (GET .../clock/jobs/{job}/ -> {state, done, minutes_done, ...})
 *   into a progress bar; when the job ends, the dashboard's live region refreshes. A job
 *   that stops on a choice can be resumed (POST .../clock/jobs/{job}/resume/). When the job
 *   ends, its report (what happened to whom) is shown under the clock (the page
 *   campaigns/{id}/clock/jobs/{job}/, as a fragment).
 *   "Until a date" posts {until: {year, month, day, hour, minute}} in the campaign's calendar.
 * - The live clock's ratio is set with PUT .../clock/live/ {ratio}.
 * - "Copy" buttons copy an invite link.
 * - Focus stays where the person was across htmx swaps: the focused control is found
 *   again in the new content (by id, else by its form, name, value and words). After
 *   the person's own action, when the control is gone or was a button (an action opened
 *   a choice, a choice was answered, an undo was done), focus moves to the result
 *   notice, and the next Tab reaches what follows it (the choice's options). The result
 *   is also said in the page's polite live region (#announce, base.html), as is the
 *   in-game time when it moves.
 * - What the person has typed but not yet sent survives a swap of the content around it
 *   (the battle board and the sheet refresh themselves every few seconds, and another
 *   form's result replaces the whole board): fields whose value differs from the page's
 *   are put back into the same form's fields in the new content.
 * - A live region (data-etag: the sheet, the dashboard, the battle board) asks with its
 *   stamp as If-None-Match: while nothing changed the server answers 304 with no body,
 *   which htmx leaves unswapped (base.html's responseHandling; web/live.py). The page
 *   holds one event stream (web/streams.py) and a region asks only when the stream says
 *   it changed; while the stream is down, the regions poll. A hidden page sends no
 *   polls and holds no stream, and asks again as soon as it is shown.
 * - A button with data-confirm (a lethal or irreversible action, a choice to die) asks
 *   its question first; "Cancel" sends nothing.
 * - An editing form's picker (data-picker="<field name>": the wound to describe) fetches
 *   the form again with that one's values when it changes: the region is told "picked"
 *   (its hx-trigger), as an htmx trigger filter would, which needs eval and the
 *   Content-Security-Policy forbids.
 * - Forms that change something carry a one-time key (web/templatetags/form_keys.py):
 *   their buttons are disabled while the request is out, and once its answer came the
 *   form gets a new key, so sending it again on purpose acts again while a double click
 *   or a form sent again acts once (core.middleware.IdempotencyMiddleware). The clock's
 *   buttons send their form's key as the API's Idempotency-Key header.
 */
(function () {
  "use strict";

  var FINISHED = ["done"];
  var STOPPED = ["waiting", "failed"]; // the dashboard's clock status says why
  var POLL_MS = 400;
  var DAY = 24 * 60;

  function minutesFor(form, step) {
    if (step === "custom") {
      var amount = parseInt(form.elements.amount.value, 10);
      var unit = parseInt(form.elements.unit.value, 10);
      if (!(amount > 0)) return null;
      return amount * unit;
    }
    if (step === "morning") {
      var display = document.getElementById("clock-display");
      var now = parseInt(display.dataset.minutes, 10) || 0;
      var morning = parseInt(form.dataset.morningHour, 10) * 60;
      var today = now - (now % DAY) + morning;
      return (today > now ? today : today + DAY) - now;
    }
    return parseInt(step, 10);
  }

  // "Until a date" in the campaign's calendar: the API's until (month and year only
  // when the campaign has a calendar). Null when a field is empty.
  function untilFor(form) {
    var els = form.elements;
    var day = parseInt(els.until_day.value, 10);
    var time = String(els.until_time.value || "").split(":");
    if (!(day > 0) || time.length < 2) return null;
    var until = { day: day, hour: parseInt(time[0], 10), minute: parseInt(time[1], 10) };
    if (els.until_month) {
      var year = parseInt(els.until_year.value, 10);
      if (isNaN(year)) return null;
      until.month = parseInt(els.until_month.value, 10);
      until.year = year;
    }
    return until;
  }

  // What the API said was wrong, as its sentences (field errors, nested or not).
  function fieldWords(data) {
    if (typeof data === "string") return [data];
    if (Array.isArray(data)) return [].concat.apply([], data.map(fieldWords));
    if (data && typeof data === "object") {
      return [].concat.apply([], Object.keys(data).map(function (key) {
        return fieldWords(data[key]);
      }));
    }
    return [];
  }

  function showError(form, message) {
    var box = form.querySelector("[data-clock-error]");
    box.textContent = message;
    box.hidden = !message;
  }

  // Disabling the focused button drops focus to the page; it comes back when the job ends.
  var busyFocus = null;

  function setBusy(form, busy) {
    if (busy && form.contains(document.activeElement)) busyFocus = document.activeElement;
    form.querySelectorAll("button, input, select").forEach(function (control) {
      control.disabled = busy;
    });
    form.setAttribute("aria-busy", busy ? "true" : "false");
    if (!busy && busyFocus) {
      if (lostFocus() && document.contains(busyFocus)) busyFocus.focus();
      busyFocus = null;
    }
  }

  // -- focus and announcements across htmx swaps ------------------------------------------

  function announce(text) {
    var region = document.getElementById("announce");
    if (!region || !text) return;
    region.textContent = "";
    // a fresh text node in the next frame, so the same words are said again
    window.requestAnimationFrame(function () {
      region.textContent = text;
    });
  }

  function lostFocus() {
    var active = document.activeElement;
    return !active || active === document.body || !document.contains(active);
  }

  function words(element) {
    return (element.textContent || "").replace(/\s+/g, " ").trim();
  }

  function describe(element) {
    var form = element.closest("form");
    return {
      id: element.id,
      tag: element.tagName,
      name: element.getAttribute("name") || "",
      value: element.getAttribute("value") || "",
      href: element.getAttribute("href") || "",
      form: form ? form.getAttribute("action") || "" : "",
      words: element.matches("input, select, textarea") ? "" : words(element),
    };
  }

  function findAgain(root, key) {
    if (key.id) {
      var same = document.getElementById(key.id);
      if (same && root.contains(same)) return same;
    }
    var candidates = root.querySelectorAll(key.tag);
    for (var i = 0; i < candidates.length; i++) {
      var candidate = describe(candidates[i]);
      if (
        !key.id &&
        candidate.name === key.name &&
        candidate.value === key.value &&
        candidate.href === key.href &&
        candidate.form === key.form &&
        candidate.words === key.words
      ) {
        return candidates[i];
      }
    }
    return null;
  }

  function focusResult(root) {
    var target =
      root.querySelector("[autofocus]") ||
      root.querySelector(".notice") ||
      root.querySelector("[role=alert]") ||
      root.querySelector("h1, h2");
    if (!target) return;
    if (!target.matches("a[href], button, input, select, textarea, summary, [tabindex]")) {
      target.setAttribute("tabindex", "-1");
    }
    target.focus();
  }

  // per swap target (by id): several swaps can overlap (the odds beside a form, the sheet)
  var pending = {};
  var clockText = null;

  document.addEventListener("htmx:beforeSwap", function (event) {
    var active = document.activeElement;
    var target = event.detail.target;
    if (!target || !target.id) return;
    var trigger = event.detail.requestConfig && event.detail.requestConfig.triggeringEvent;
    var state = { focus: null, open: [], typed: typedFields(target, event.detail.elt) };
    target.querySelectorAll("details[open][id]").forEach(function (details) {
      state.open.push(details.id); // the action forms the person had open stay open
    });
    if (active && active !== document.body && target.contains(active)) {
      // acted: the person sent a form; else the content changed under them (polling)
      state.focus = { key: describe(active), acted: !!trigger && trigger.type === "submit" };
    }
    pending[target.id] = state;
  });

  // A field the person changed: its form's action and its name say where it goes back.
  function fieldKey(field) {
    var form = field.form;
    return (form ? form.getAttribute("action") || form.id || "" : "") + "\u0000" + field.name;
  }

  function changed(field) {
    if (field.type === "checkbox" || field.type === "radio") {
      return field.checked !== field.defaultChecked;
    }
    if (field.tagName === "SELECT") {
      return Array.prototype.some.call(field.options, function (option) {
        return option.selected !== option.defaultSelected;
      });
    }
    return field.value !== field.defaultValue;
  }

  // The fields typed into under `root`, except in the form that was just sent (its
  // answer is the new content, and a refused form comes back with its own values).
  function typedFields(root, sender) {
    var sent = sender ? sender.closest("form") : null;
    var typed = [];
    root.querySelectorAll("input[name], select[name], textarea[name]").forEach(function (field) {
      if (field.type === "hidden" || field.type === "submit" || !changed(field)) return;
      if (sent && field.form === sent) return;
      typed.push({
        key: fieldKey(field),
        value: field.value,
        checked: field.checked,
        radio: field.type === "checkbox" || field.type === "radio",
      });
    });
    return typed;
  }

  function putBack(root, typed) {
    if (!typed.length) return;
    var fields = root.querySelectorAll("input[name], select[name], textarea[name]");
    typed.forEach(function (entry) {
      for (var i = 0; i < fields.length; i++) {
        var field = fields[i];
        if (fieldKey(field) !== entry.key) continue;
        if (entry.radio) {
          if (field.value === entry.value) field.checked = entry.checked;
        } else {
          field.value = entry.value;
          break;
        }
      }
    });
  }

  // afterSwap, not afterSettle: the new content is in place and focus must not sit on
  // the page for the settle delay (a screen reader would say "document").
  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    var root = (target && target.id && document.getElementById(target.id)) || target;
    var clock = document.getElementById("clock-display");
    if (clock) {
      var now = words(clock);
      if (clockText !== null && now !== clockText) announce("In-game time: " + now);
      clockText = now;
    }
    if (!root || !root.id || !document.contains(root)) return;
    var state = pending[root.id];
    delete pending[root.id];
    if (!state) return;
    putBack(root, state.typed);
    state.open.forEach(function (id) {
      var details = document.getElementById(id);
      if (details && root.contains(details)) details.open = true;
    });
    var notice = root.querySelector(".notice");
    if (notice && state.focus) announce(words(notice));
    if (state.focus && lostFocus()) {
      // after an action, only a field with its own id is the same place again (a refused
      // form keeps its field); a button of another log entry is not
      var key = state.focus.key;
      var again = state.focus.acted && !key.id ? null : findAgain(root, key);
      if (again) again.focus();
      else focusResult(root);
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    var clock = document.getElementById("clock-display");
    if (clock) clockText = words(clock);
  });

  function refreshDashboard() {
    if (window.htmx) window.htmx.trigger(document.body, "sawbones:refresh");
  }

  function reason(data) {
    return data.detail || data.reason || data.message || data.error || "";
  }

  async function readJson(response) {
    try {
      return await response.json();
    } catch (error) {
      return {};
    }
  }

  function csrf(form) {
    return form.querySelector("[name=csrfmiddlewaretoken]").value;
  }

  function newFormKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
  }

  // The form's one-time key goes as the Idempotency-Key header; once the answer came,
  // the form gets a new one (a network failure keeps it: sending again is then safe).
  async function send(url, method, token, body, form) {
    var headers = {
      "Content-Type": "application/json",
      Accept: "application/json",
      "X-CSRFToken": token,
    };
    var key = form ? form.querySelector("input[data-form-key]") : null;
    if (key) headers["Idempotency-Key"] = key.value;
    var response = await fetch(url, {
      method: method,
      credentials: "same-origin",
      headers: headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (key) key.value = newFormKey();
    var data = await readJson(response);
    if (!response.ok) {
      var message = reason(data);
      if (!message && data.minutes) message = [].concat(data.minutes).join(" ");
      if (!message && data.until) message = fieldWords(data.until).join(" ");
      throw new Error(message || "The server refused (HTTP " + response.status + ").");
    }
    return data;
  }

  // Start (or resume) a clock job and follow it into the progress bar until it ends.
  async function runJob(form, start) {
    var progressBox = form.querySelector("[data-clock-progress]");
    var bar = progressBox.querySelector("progress");
    var label = progressBox.querySelector("[data-clock-label]");
    showError(form, "");
    setBusy(form, true);
    progressBox.hidden = false;
    bar.removeAttribute("value");
    label.textContent = "Advancing the clock…";
    var job = null;
    var held = false; // queued behind a stopped job: no report yet
    try {
      var data = await start();
      job = data.job !== undefined ? data.job : data.id;
      while (true) {
        var poll = await fetch(form.dataset.jobUrl + encodeURIComponent(job) + "/", {
          credentials: "same-origin",
          headers: { Accept: "application/json" },
        });
        var state = await readJson(poll);
        if (!poll.ok) throw new Error(reason(state) || "Lost track of the clock job.");
        // The bar is the in-game time covered: known from the job's start and never
        // going back (an effect may schedule another, so the count of effects grows).
        var span = Number(state.minutes_total) || 0;
        var covered = Number(state.minutes_done) || 0;
        var done = Number(state.done) || 0;
        if (span > 0) {
          bar.max = span;
          bar.value = Math.min(covered, span);
          label.textContent =
            "Applying effects: " + done + " done so far" +
            (state.clock_display ? ", the clock at " + state.clock_display : "");
        }
        var word = String(state.state || "").toLowerCase();
        if (FINISHED.indexOf(word) >= 0 || STOPPED.indexOf(word) >= 0) break;
        // queued behind a job stopped on a choice: it runs once that one is resumed, and
        // the dashboard's clock status says so (issue 34)
        if (word === "queued" && state.waits_for !== null && state.waits_for !== undefined) {
          held = true;
          break;
        }
        await new Promise(function (resolve) {
          setTimeout(resolve, POLL_MS);
        });
        refreshDashboard();
      }
    } catch (error) {
      showError(form, error.message);
    } finally {
      progressBox.hidden = true;
      setBusy(form, false);
      refreshDashboard();
      if (job !== null && !held) showReport(job);
    }
  }

  // The advance ends with its report: what happened to whom, the notable first.
  function showReport(job) {
    var box = document.getElementById("clock-report");
    if (!box || !window.htmx) return;
    window.htmx
      .ajax("GET", box.dataset.reportBase + encodeURIComponent(job) + "/", {
        target: "#clock-report",
        swap: "innerHTML",
      })
      .then(function () {
        var title = box.querySelector(".clock-report-title");
        if (title) announce(words(title));
      });
  }

  function advance(form, minutes) {
    return runJob(form, function () {
      return send(form.dataset.advanceUrl, "POST", csrf(form), { minutes: minutes }, form);
    });
  }

  async function setLive(form) {
    var state = form.querySelector("[data-clock-live-state]");
    var ratio = form.elements.ratio.value;
    try {
      var data = await send(form.dataset.liveUrl, "PUT", csrf(form), { ratio: ratio }, form);
      state.textContent = data.running
        ? "Running: the server advances the clock every minute."
        : "Stopped: the clock moves when you advance it.";
    } catch (error) {
      state.textContent = error.message;
    }
    refreshDashboard();
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.matches("form[data-clock-live]")) {
      event.preventDefault();
      setLive(form);
      return;
    }
    if (!form.matches("form[data-clock]")) return;
    event.preventDefault();
    var step = event.submitter ? event.submitter.value : "custom";
    // Enter in a field submits with the form's first button: the field's own group says
    var group = document.activeElement && document.activeElement.closest
      ? document.activeElement.closest(".clock-until, .clock-custom") : null;
    if (group && !(event.submitter && group.contains(event.submitter))) {
      step = group.matches(".clock-until") ? "until" : "custom";
    }
    if (step === "until") {
      var until = untilFor(form);
      if (!until) {
        showError(form, "Enter the date and time to advance until.");
        form.elements.until_day.focus();
        return;
      }
      runJob(form, function () {
        return send(form.dataset.advanceUrl, "POST", csrf(form), { until: until });
      });
      return;
    }
    var minutes = minutesFor(form, step);
    if (!minutes) {
      showError(form, "Enter how far to advance: a whole number above 0.");
      form.elements.amount.focus();
      return;
    }
    advance(form, minutes);
  });

  // Capture phase: before htmx or the browser submits the button's form.
  document.addEventListener(
    "click",
    function (event) {
      var asking = event.target.closest("[data-confirm]");
      if (asking && !window.confirm(asking.dataset.confirm)) {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
    },
    true
  );

  document.addEventListener("change", function (event) {
    var target = event.target;
    var region = target && target.closest ? target.closest("[data-picker]") : null;
    if (region && target.name === region.dataset.picker && window.htmx) {
      window.htmx.trigger(region, "picked");
    }
  });

  document.addEventListener("click", function (event) {
    var resume = event.target.closest("[data-clock-resume]");
    if (resume) {
      var form = resume.closest("form[data-clock]");
      runJob(form, function () {
        return send(resume.dataset.clockResume, "POST", csrf(form), undefined, form);
      });
      return;
    }
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    var source = document.querySelector(button.dataset.copy);
    if (!source) return;
    source.select();
    var done = function () {
      button.textContent = "Copied";
      setTimeout(function () {
        button.textContent = "Copy";
      }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(source.value).then(done, function () {
        document.execCommand("copy");
        done();
      });
    } else {
      document.execCommand("copy");
      done();
    }
  });
})();

(function () {
  "use strict";
  function isPoll(elt) {
    return !!(elt && elt.hasAttribute && elt.hasAttribute("data-etag"));
  }
  // Only the polling element itself: a form or field inside the region sends no ETag.
  document.addEventListener("htmx:configRequest", function (event) {
    var elt = event.detail.elt;
    var tag = isPoll(elt) ? elt.getAttribute("data-etag") : null;
    if (tag && event.detail.verb === "get") event.detail.headers["If-None-Match"] = tag;
  });

  // The page's event stream (web/streams.py): while it is open, the regions' timers send
  // nothing and a region asks for its fragment when the stream says it changed
  // (sawbones:changed). While the stream is down (connecting again by itself) the timers
  // poll as before; a server that cannot hold streams answers 204, and the page polls.
  var stream = null;
  var streaming = false;
  var refused = false;
  var watched = "";

  function liveKeys() {
    var keys = [];
    document.querySelectorAll("[data-live-key]").forEach(function (region) {
      var key = region.getAttribute("data-live-key");
      if (keys.indexOf(key) < 0) keys.push(key);
    });
    return keys;
  }
  // A change told while the region's own request is out may be newer than its answer
  // (computed before the change): the region asks again once that answer is in.
  var askAgain = {};
  function ask(regions) {
    regions.forEach(function (region) {
      if (region.classList.contains("htmx-request")) {
        askAgain[region.getAttribute("data-live-key")] = true;
      } else {
        window.htmx.trigger(region, "sawbones:changed");
      }
    });
  }
  function askedAgain(event) {
    // after a 304 the region is still the one that asked (htmx:afterRequest); after a
    // swap its replacement says htmx:load
    var elt = event.detail.elt;
    var key = elt && elt.getAttribute ? elt.getAttribute("data-live-key") : null;
    if (!key || !askAgain[key] || !document.body.contains(elt)) return;
    delete askAgain[key];
    ask([elt]);
  }
  document.addEventListener("htmx:afterRequest", askedAgain);
  document.addEventListener("htmx:load", askedAgain);
  function closeStream() {
    if (stream) stream.close();
    stream = null;
    streaming = false;
  }
  function openStream() {
    var base = document.body.getAttribute("data-live-events");
    var keys = liveKeys();
    if (keys.join(" ") !== watched) closeStream();
    watched = keys.join(" ");
    if (stream || refused || document.hidden || !base || !keys.length) return;
    if (!window.EventSource || !window.htmx) return;
    var query = keys.map(function (key) {
      return "watch=" + encodeURIComponent(key);
    });
    var source = new EventSource(base + "?" + query.join("&"));
    stream = source;
    source.addEventListener("open", function () {
      streaming = true;
      // Whatever changed before the stream was listening: one conditional ask each (304).
      ask(document.querySelectorAll("[data-live-key]"));
    });
    source.addEventListener("changed", function (event) {
      ask(document.querySelectorAll('[data-live-key="' + CSS.escape(event.data) + '"]'));
    });
    source.addEventListener("error", function () {
      streaming = false;
      if (source.readyState === EventSource.CLOSED && stream === source) {
        stream = null;
        refused = true; // refused (204, 404...): this page polls from now on
      }
    });
  }
  // A person's own request to a live region (an action, a choice, an undo: a form whose
  // target is the region) and the region's refresh never cut each other off: htmx says
  // an aborted request on the console ("htmx:sendAbort"), and ordinary play logs no
  // error (issue 34). So no form aborts the refresh (no hx-sync "replace"): while the
  // person's request is out the region sends no refresh, and a refresh already out when
  // they acted is not swapped in (its answer may be older than theirs); the region asks
  // again once theirs is in (askAgain above).
  var acting = {}; // region id -> the person's requests out
  var acted = {}; // region id -> the person's requests sent so far
  var sentAt = new WeakMap(); // a refresh's xhr -> acted[region] when it was sent
  function liveTarget(event) {
    var target = event.detail.target;
    return target && target.id && target.hasAttribute && target.hasAttribute("data-live-key")
      ? target
      : null;
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var region = liveTarget(event);
    if (!region || event.defaultPrevented) return;
    var id = region.id;
    if (event.detail.elt !== region) {
      acting[id] = (acting[id] || 0) + 1;
      acted[id] = (acted[id] || 0) + 1;
      event.detail.xhr.sawbonesActs = id;
    } else if (acting[id]) {
      askAgain[region.getAttribute("data-live-key")] = true;
      event.preventDefault(); // quietly: htmx logs nothing for a request never sent
    } else {
      sentAt.set(event.detail.xhr, acted[id] || 0);
    }
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var region = liveTarget(event);
    var xhr = event.detail.xhr;
    if (!region || !xhr || !sentAt.has(xhr)) return;
    if (sentAt.get(xhr) < (acted[region.id] || 0)) event.detail.shouldSwap = false;
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr;
    var id = xhr ? xhr.sawbonesActs : null;
    if (id && acting[id]) acting[id] -= 1;
  });
  // A page nobody sees (another tab in front, a minimised window) sends no polls and
  // holds no stream; its timer keeps running. When it shows again, the dashboard and the
  // battle board ask at once (sawbones:refresh), and the stream opens again.
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!isPoll(event.detail.elt)) return;
    var config = event.detail.requestConfig;
    var timer = !(config && config.triggeringEvent); // htmx's "every" sends no event
    if (document.hidden || (streaming && timer)) event.preventDefault();
  });
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      closeStream();
      return;
    }
    if (window.htmx) window.htmx.trigger(document.body, "sawbones:refresh");
    openStream();
  });
  document.addEventListener("DOMContentLoaded", openStream);
  document.addEventListener("htmx:load", openStream); // a region that came or went
  window.addEventListener("pagehide", closeStream);
  window.addEventListener("pageshow", openStream); // back from the browser's page cache
})();

(function () {
  "use strict";
  // One-time form keys (web/templatetags/form_keys.py): a form's buttons are disabled
  // while its request is out; once its answer came the form gets a new key.
  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
  }
  function keyOf(form) {
    return form && form.querySelector ? form.querySelector("input[data-form-key]") : null;
  }
  // Held, not disabled: a disabled button drops the keyboard's focus to the page, and
  // the result of the request could no longer take it (the focus follows the answer).
  function hold(form, busy) {
    form.querySelectorAll("button, input[type=submit]").forEach(function (button) {
      if (busy && !button.disabled && button.type !== "button") {
        button.setAttribute("aria-disabled", "true");
        button.setAttribute("data-held", "");
      } else if (!busy && button.hasAttribute("data-held")) {
        button.removeAttribute("aria-disabled");
        button.removeAttribute("data-held");
      }
    });
    if (busy) form.setAttribute("aria-busy", "true");
    else form.removeAttribute("aria-busy");
  }
  function keyedForm(event) {
    var elt = event.detail.elt;
    var config = event.detail.requestConfig || {};
    if (!elt || elt.tagName !== "FORM" || config.verb === "get") return null;
    return keyOf(elt) ? elt : null;
  }
  // A request made with a form's fields by something else (the odds of an action) does
  // not send the form's key: only the form's own submission spends it.
  document.addEventListener("htmx:configRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.tagName !== "FORM") delete event.detail.parameters.idempotency_key;
  });
  // A held button takes no click while its form's request is out (a double click).
  document.addEventListener(
    "click",
    function (event) {
      var button = event.target.closest ? event.target.closest("[data-held]") : null;
      if (button) {
        event.preventDefault();
        event.stopPropagation();
      }
    },
    true
  );
  // htmx has gathered the form's values by now: the buttons can go quiet.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = keyedForm(event);
    if (form && !event.defaultPrevented) hold(form, true);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = keyedForm(event);
    if (!form) return;
    hold(form, false);
    var xhr = event.detail.xhr;
    if (xhr && xhr.status > 0) keyOf(form).value = newKey(); // an answer came
  });
  // A form the browser sends itself: its values are taken once this event is over.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !keyOf(form)) return;
    setTimeout(function () {
      hold(form, true);
    }, 0);
  });
  // Back from the browser's page cache: the buttons work again (the key is the same, so
  // sending the form again shows its first result).
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[aria-busy]").forEach(function (form) {
      if (keyOf(form)) hold(form, false);
    });
  });
})();
