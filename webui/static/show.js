/* /show: the full-screen view. Reads the same API as the table page and never changes the
 * game: the map on each `frame` event, the turn, phase, side and last ruling on each `status`
 * event (a Confirm anywhere sends one), and once a second besides. */
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const CITE = /\b(\d{3}_[0-9a-f]{16}\.txt):(\d+)\b/g;
  let titles = {};

  const plain = (text) => String(text).replace(CITE, (_, file, line) => `${titles[file] || "the sheet"}, line ${line}`);

  async function get(path) {
    const response = await fetch(path, { cache: "no-store" });
    if (!response.ok) throw new Error(`${path}: ${response.status}`);
    const type = response.headers.get("Content-Type") || "";
    return type.includes("json") ? response.json() : response.text();
  }

  const valueWords = (v) => (v === true ? "yes" : v === false ? "no" : v === null || v === undefined ? "unset" : String(v));

  function resultWords(result) {
    if (!result || typeof result !== "object") return "";
    const parts = Object.entries(result).map(([k, v]) =>
      `${k.replace(/_/g, " ")} ${Array.isArray(v) ? v.join(", ") || "none" : valueWords(v)}`);
    return parts.length ? ` (${parts.join(", ")})` : "";
  }

  let shownMap = "";
  let mapBusy = false;
  async function refreshMap() {
    if (mapBusy) return;
    mapBusy = true;
    try {
      const text = await get("/api/map.svg");
      if (text !== shownMap) {
        shownMap = text;
        $("show-map").innerHTML = text;
      }
    } catch (error) {
      console.warn(error);
    } finally {
      mapBusy = false;
    }
  }

  async function refreshGame() {
    try {
      const [state, log] = await Promise.all([get("/api/state"), get("/api/log")]);
      $("show-turn").textContent = `Turn ${state.turn}`;
      const phase = (state.phases || []).find((p) => p.name === state.phase) || {};
      $("show-phase").textContent = phase.title || state.phase || "";
      const sides = state.acting_sides && state.acting_sides.length ? ` (${state.acting_sides.join(", ")})` : "";
      $("show-side").textContent = state.acting ? (state.acting === "all" ? "every side acts" : `side ${state.acting}${sides} acts`) : "";
      const last = (log.results || [])[0];
      if (last) {
        const q = last.question || {};
        const said = last.decision === "confirm" ? "Confirmed" : "Overridden";
        $("show-ruling").textContent = plain(`${said}: ${[q.action, ...(q.args || [])].join(" ")}${resultWords(last.result)}${last.note ? `: ${last.note}` : ""}`);
        const step = (log.steps || []).find((s) => s.kind === "outcome" || s.kind === "override");
        const edits = step ? step.edits || [] : [];
        $("show-changes").replaceChildren(...edits.map((e) => {
          const li = document.createElement("li");
          const what = e.scope === "game" ? e.field : `${e.target} ${String(e.field).replace(/_/g, " ")}`;
          li.textContent = `${what}: ${valueWords(e.before)} → ${valueWords(e.after)}`;
          return li;
        }));
      }
      document.body.dataset.updated = String(Date.now());
    } catch (error) {
      console.warn(error);
    }
  }

  async function start() {
    try {
      const sheets = await get("/api/sheets");
      titles = Object.fromEntries(Object.entries(sheets).map(([k, v]) => [k, v.title]));
    } catch (error) {
      console.warn(error);
    }
    const events = new EventSource("/events");
    events.addEventListener("frame", refreshMap);
    events.addEventListener("status", () => {
      refreshGame();
      refreshMap();
    });
    refreshMap();
    refreshGame();
    setInterval(refreshGame, 1000);
  }

  start();
})();
