// The calibration page: reads /api/calibration, sends the camera settings, captures views,
// saves camera.json, and shows the table fit. Changes carry the CSRF token and the access code
// (kept in sessionStorage under the table page's key, so a code typed there works here).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content || null;
  const CODE_KEY = "umpire-access-code";
  const access = {
    csrf: meta("csrf-token") || "",
    needed: meta("code-needed") === "yes",
    code: meta("access-code") || sessionStorage.getItem(CODE_KEY),
  };
  if (access.needed && !access.code) $("code-form").hidden = false;
  $("code-form").addEventListener("submit", (event) => {
    event.preventDefault();
    access.code = $("code-input").value.trim() || null;
    if (access.code) sessionStorage.setItem(CODE_KEY, access.code);
    say("access code kept for this tab");
  });

  function say(text, bad = false) {
    $("message").textContent = text;
    $("message").className = bad ? "message bad" : "message";
  }

  async function post(path, body) {
    const headers = { "Content-Type": "application/json", "X-CSRF-Token": access.csrf };
    if (access.code) headers["X-Access-Code"] = access.code;
    const response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body || {}) });
    const doc = await response.json();
    if (!response.ok) {
      if (response.status === 403 && doc.needs === "access-code") $("code-form").hidden = false;
      throw new Error(doc.error || `${response.status}`);
    }
    return doc;
  }

  const shown = (value) => (value === null || value === undefined ? "auto" : String(value));
  const plusMinus = (value, std) => (std === undefined ? `${value}` : `${value} ± ${std.toFixed(2)}`);

  function fillSelect(select, values, current) {
    const have = [...select.options].map((o) => o.value).join(",");
    if (have !== values.join(",")) {
      select.replaceChildren(...values.map((v) => new Option(String(v), String(v))));
    }
    if (current !== null && current !== undefined && document.activeElement !== select) {
      select.value = String(current);
    }
  }

  function list(id, items) {
    $(id).replaceChildren(...items.map((text) => {
      const li = document.createElement("li");
      li.textContent = text;
      return li;
    }));
  }

  let refreshing = false;
  let settingsFilled = false;
  function render(doc) {
    $("source").textContent = doc.source || "none";
    $("board").textContent = doc.board;
    $("not-adjustable").hidden = doc.adjustable;
    $("settings").hidden = !doc.adjustable;
    $("controls").hidden = !doc.adjustable;
    if (doc.adjustable && doc.choices && doc.controls) {
      const took = doc.controls.took;
      const asked = doc.controls.asked;
      fillSelect($("set-camera"), doc.choices.cameras, took.camera);
      fillSelect($("set-resolution"), doc.choices.resolutions, took.resolution);
      if (!settingsFilled) {
        $("set-exposure").value = asked.exposure === null ? "" : String(asked.exposure);
        $("set-focus").value = asked.focus === null ? "" : String(asked.focus);
        settingsFilled = true;
      }
      const ranges = [];
      const ex = doc.choices.exposure;
      const fo = doc.choices.focus;
      ranges.push(ex ? `exposure ${ex.min} to ${ex.max}` : "exposure: the driver's own numbers");
      ranges.push(fo ? `focus ${fo.min} to ${fo.max}` : "focus: the driver's own numbers");
      $("ranges").textContent = `${ranges.join("; ")}; empty is automatic`;
      for (const key of ["camera", "resolution", "exposure", "focus"]) {
        $(`asked-${key}`).textContent = shown(asked[key]);
        $(`took-${key}`).textContent = shown(took[key]);
      }
      list("refused", doc.controls.refused);
    }
    list("notes", doc.notes);
    $("view-count").textContent = String(doc.views.length);
    $("problem").textContent = doc.problem || "";
    const fit = doc.fit;
    $("fit-table").hidden = !fit;
    if (fit) {
      $("fit-rms").textContent = `${fit.rms_px.toFixed(3)} px over ${fit.views_used} views`;
      for (const key of ["fx", "fy", "cx", "cy"]) {
        $(`fit-${key}`).textContent = `${plusMinus(fit[key], fit.std[key])} px`;
      }
    }
    list("warnings", fit ? fit.warnings.map((w) => `warning: ${w}`) : []);
    $("advice").textContent = doc.advice && doc.views.length ? `Views to add: ${doc.advice}` : "";
    $("coverage").src = `/api/calibration/coverage.svg?n=${doc.views.length}&t=${Date.now()}`;
    const used = doc.camera_in_use;
    $("in-use").textContent = used
      ? `The live scan uses ${doc.camera_file}: fx ${used.fx}, fy ${used.fy}, centre (${used.cx}, ${used.cy}) px at ${used.image_size ? used.image_size.join("x") : "any size"}.`
      : "The live scan uses no camera file: it measures from the corner tags alone.";
    if (doc.camera_mismatch) $("in-use").textContent += ` Warning: ${doc.camera_mismatch}.`;
  }

  async function refresh() {
    if (refreshing) return;
    refreshing = true;
    try {
      const response = await fetch("/api/calibration");
      render(await response.json());
    } catch (error) {
      say(`could not read the calibration state: ${error.message}`, true);
    } finally {
      refreshing = false;
    }
  }

  async function act(button, doing, run) {
    button.disabled = true;
    say(doing);
    try {
      const doc = await run();
      render(doc);
      return doc;
    } catch (error) {
      say(error.message, true);
      return null;
    } finally {
      button.disabled = false;
    }
  }

  const number = (text) => (text.trim() === "" ? null : Number(text.trim()));

  $("settings").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {
      camera: Number($("set-camera").value),
      resolution: $("set-resolution").value,
      exposure: number($("set-exposure").value),
      focus: number($("set-focus").value),
    };
    const doc = await act($("apply"), "asking the camera...", () => post("/api/calibration/settings", body));
    if (doc) {
      const dropped = doc.dropped_views ? `; ${doc.dropped_views} views dropped (another camera or size)` : "";
      say(`camera set${dropped}${doc.controls.refused.length ? "; see what it refused" : ""}`);
    }
  });

  $("capture").addEventListener("click", async () => {
    const doc = await act($("capture"), "capturing...", () => post("/api/calibration/capture"));
    if (doc) {
      const last = doc.views[doc.views.length - 1];
      say(`view ${doc.views.length} captured from frame ${last.frame}: ${last.corners} corners`);
    }
  });

  $("clear").addEventListener("click", async () => {
    const doc = await act($("clear"), "clearing...", () => post("/api/calibration/clear"));
    if (doc) say("views cleared");
  });

  $("save-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const doc = await act($("save"), "saving...", () =>
      post("/api/calibration/save", { path: $("save-path").value }));
    if (doc) say(`saved ${doc.saved.path}; the live scan uses it from the next frame`);
  });

  async function tableCheck() {
    try {
      const doc = await (await fetch("/api/calibration/table-check")).json();
      $("table-check").hidden = !doc.fitted;
      if (!doc.fitted) {
        $("table-summary").textContent = `No table fit yet${doc.error ? `: ${doc.error}` : ""}.`;
        return;
      }
      const worst = doc.references.reduce((a, r) => (r.residual_mm > a.residual_mm ? r : a), doc.references[0]);
      $("table-summary").textContent =
        `${doc.references.length} reference tags, rms ${doc.rms_mm} mm, worst tag ${worst.tag} at ${worst.residual_mm} mm (limit ${doc.limit_mm} mm); lens: ${doc.lens}.`;
      $("table-check").src = `/api/calibration/table-check.jpg?t=${Date.now()}`;
    } catch (error) {
      $("table-summary").textContent = `table fit unavailable: ${error.message}`;
    }
  }

  function newFrame() {
    $("frame").src = `/api/calibration/frame.jpg?t=${Date.now()}`;
  }

  refresh();
  newFrame();
  tableCheck();
  setInterval(newFrame, 1000);
  setInterval(refresh, 3000);
  setInterval(tableCheck, 4000);
})();
