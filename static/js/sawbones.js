/* Sawbones: the little the pages need beyond htmx.
 *
 * - The referee's clock buttons post to the REST API (POST campaigns/{id}/clock/advance/
 *   -> 202 {job}) and poll the job (GET .../clock/jobs/{job}/ -> {state, done, total})
 *   into a progress bar; when the job ends, the dashboard's live region refreshes. A job
 *   that stops on a choice can be resumed (POST .../clock/jobs/{job}/resume/).
 * - The live clock's ratio is set with PUT .../clock/live/ {ratio}.
 * - "Copy" buttons copy an invite link.
 * - A button with data-confirm (a lethal or irreversible action, a choice to die) asks
 *   its question first; "Cancel" sends nothing.
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

  function showError(form, message) {
    var box = form.querySelector("[data-clock-error]");
    box.textContent = message;
    box.hidden = !message;
  }

  function setBusy(form, busy) {
    form.querySelectorAll("button, input, select").forEach(function (control) {
      control.disabled = busy;
    });
    form.setAttribute("aria-busy", busy ? "true" : "false");
  }

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

  async function send(url, method, token, body) {
    var response = await fetch(url, {
      method: method,
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-CSRFToken": token,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    var data = await readJson(response);
    if (!response.ok) {
      var message = reason(data);
      if (!message && data.minutes) message = [].concat(data.minutes).join(" ");
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
    try {
      var data = await start();
      var job = data.job !== undefined ? data.job : data.id;
      while (true) {
        var poll = await fetch(form.dataset.jobUrl + encodeURIComponent(job) + "/", {
          credentials: "same-origin",
          headers: { Accept: "application/json" },
        });
        var state = await readJson(poll);
        if (!poll.ok) throw new Error(reason(state) || "Lost track of the clock job.");
        var total = Number(state.total) || 0;
        var done = Number(state.done) || 0;
        if (total > 0) {
          bar.max = total;
          bar.value = Math.min(done, total);
          label.textContent = "Applying effects: " + done + " of " + total;
        }
        var word = String(state.state || "").toLowerCase();
        if (FINISHED.indexOf(word) >= 0 || STOPPED.indexOf(word) >= 0) break;
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
    }
  }

  function advance(form, minutes) {
    return runJob(form, function () {
      return send(form.dataset.advanceUrl, "POST", csrf(form), { minutes: minutes });
    });
  }

  async function setLive(form) {
    var state = form.querySelector("[data-clock-live-state]");
    var ratio = form.elements.ratio.value;
    try {
      var data = await send(form.dataset.liveUrl, "PUT", csrf(form), { ratio: ratio });
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

  document.addEventListener("click", function (event) {
    var resume = event.target.closest("[data-clock-resume]");
    if (resume) {
      var form = resume.closest("form[data-clock]");
      runJob(form, function () {
        return send(resume.dataset.clockResume, "POST", csrf(form));
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
