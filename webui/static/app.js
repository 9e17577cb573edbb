/* The table page: live view, map, answers, sequence of play, status and snapshots.
 *
 * Plain browser JavaScript, no build step. Everything the page shows comes from the JSON API of
 * `umpire serve` (see the README); the server pushes one `frame` event per scanned frame on
 * /events and the page redraws the parts that depend on the table from there, never reloading.
 */
"use strict";

(function () {
  const state = {
    select: null, // the first base clicked
    target: null, // the second base clicked
    panel: null, // the base clicked alone: the Unit panel shows its unit (a suggestion leaves it)
    line: null, // [a, b]: the two bases the card measured, drawn on the map with the same length
    unit: null, // the map's unit, cm or in; null until the ruleset's default is known
    ruleset: null,
    actions: [], // the ruleset's actions, from /api/rulesets
    arity: [], // {name, least, most, usage}: how many clicked pieces each action takes
    asked: null, // the two-piece action the player chose for the clicked pair (default shoot)
    phase: undefined,
    phases: [],
    frame: null,
    question: null, // {action, args} of the card on show, sent with a snapshot
    fromSuggest: false, // the card shows a suggested item rather than the clicked pair
    decisions: new Map(), // question key -> {decision, id}: what the table said about a card
    overriding: null, // question key whose override note is being written (the card holds still)
    game: null, // the game in play, from /api/state
    reporting: null, // question key whose dice are being entered (the card holds still)
    missing: [], // bases the camera has lost (from the status)
  };

  const $ = (id) => document.getElementById(id);

  // ------------------------------------------------------------------------------------------
  // Words players use: a citation `000_157c880a83b52d41.txt:41` reads "19th Century rules: QRS,
  // line 41" (the sheets' titles and lines from /api/sheets), long odds read as percentages,
  // "1 figure" not "1 figures". Every text the page writes goes through `plainText`.

  const sheets = { byFile: {} };
  const CITE = /\b(\d{3}_[0-9a-f]{16}\.txt):(\d+)\b/g;
  const FRACTION = /(^|[^\w/.])(\d+)\/(\d+)(?![\w/])/g;
  const NOUNS = {
    figures: "figure", points: "point", hits: "hit", bases: "base", kills: "kill", wounds: "wound",
    grazes: "graze", casualties: "casualty", dice: "die", boxes: "box", units: "unit", turns: "turn",
    rounds: "round", men: "man", stands: "stand", models: "model", actions: "action",
    markers: "marker", steps: "step",
  };
  const ONE = new RegExp(`(^|[^\\w.,/-])(?:all |each of )?1 ((?:[a-z]+ )?)(${Object.keys(NOUNS).join("|")})\\b`, "g");

  function citeWords(file, line) {
    const sheet = sheets.byFile[file];
    return `${sheet ? sheet.title : "the sheet"}, line ${line}`;
  }

  function quoteOf(file, line) {
    const sheet = sheets.byFile[file];
    const text = sheet && sheet.lines[line - 1];
    return text ? text.replace(/\s+/g, " ").trim() : "";
  }

  function chance(p) {
    const v = 100 * p;
    if (v === 0 || v === 100) return `${v.toFixed(0)}%`;
    if (v < 0.01) return "< 0.01%";
    if (v > 99.99) return "> 99.99%";
    return v >= 1 && v <= 99 ? `${v.toFixed(1)}%` : `${v.toFixed(2)}%`;
  }

  function plainText(text) {
    return String(text)
      .replace(CITE, (_, file, line) => citeWords(file, Number(line)))
      .replace(FRACTION, (all, before, num, den) =>
        num.length + den.length <= 4 || Number(den) === 0 ? all : `${before}${chance(Number(num) / Number(den))}`)
      .replace(ONE, (_, before, adj, noun) => `${before}1 ${adj}${NOUNS[noun]}`);
  }

  async function loadSheets() {
    try {
      sheets.byFile = await api("/api/sheets");
    } catch (error) {
      console.warn(error);
    }
  }

  /** A DOM element: h("li", {class: "x"}, "text", child, ...). Text is never parsed as HTML;
   * it is written in players' words (`plainText`). */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
      else if (key === "title") el.setAttribute(key, plainText(value));
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(plainText(child)));
    }
    return el;
  }

  /** An API call: the parsed JSON, or an Error carrying the server's {"error": ...} message. */
  async function api(path, options) {
    // A player's questions carry the code too: the server logs the answers the table is shown,
    // not a spectator's.
    const init = { ...(options || {}) };
    if (access.code) init.headers = { ...(init.headers || {}), "X-Access-Code": access.code };
    const response = await fetch(path, init);
    const type = response.headers.get("Content-Type") || "";
    const body = type.includes("json") ? await response.json() : await response.text();
    if (!response.ok) {
      const message = body && body.error ? body.error : `${response.status} ${response.statusText}`;
      const error = new Error(message);
      error.status = response.status;
      error.needs = body && body.needs ? body.needs : null;
      throw error;
    }
    return body;
  }

  // ------------------------------------------------------------------------------------------
  // Access: who may change the game. Every change carries the page's CSRF token; when the server
  // listens beyond its own machine it also needs the access code printed at start-up, which the
  // page learns from its own machine (embedded), from ?code= in a shared link, or from a player.

  const meta = (name) => {
    const tag = document.querySelector(`meta[name="${name}"]`);
    return tag ? tag.getAttribute("content") : null;
  };
  const CODE_KEY = "umpire-access-code";
  const access = {
    csrf: meta("csrf-token") || "",
    needed: meta("code-needed") === "yes",
    code: meta("access-code") || null,
  };

  function storedCode() {
    try {
      return sessionStorage.getItem(CODE_KEY);
    } catch (_) {
      return null; // storage refused (a private window): the code lives as long as the page
    }
  }

  function keepCode(code) {
    access.code = code;
    try {
      if (code) sessionStorage.setItem(CODE_KEY, code);
      else sessionStorage.removeItem(CODE_KEY);
    } catch (_) {
      /* see storedCode */
    }
  }

  const canChange = () => !access.needed || Boolean(access.code);

  /** Shows "view only" and disables every change control while the page has no code. */
  function showAccess() {
    const viewOnly = !canChange();
    document.body.classList.toggle("view-only", viewOnly);
    $("view-only").hidden = !viewOnly;
    $("code-open").hidden = !viewOnly || !$("code-form").hidden;
    const why = viewOnly ? "view only: changes need the access code" : null;
    for (const control of document.querySelectorAll(".change")) {
      control.disabled = viewOnly || control.dataset.can === "no";
      if (why) control.title = why;
      else control.removeAttribute("title");
    }
  }

  function askForCode(message) {
    $("code-form").hidden = false;
    $("code-open").hidden = true;
    $("code-msg").textContent = message || "";
    $("code-input").focus();
  }

  /** A code typed or linked: kept only once the server says it is right. */
  async function tryCode(code) {
    const typed = (code || "").trim();
    if (!typed) return false;
    try {
      await api("/api/access-check", {
        method: "POST",
        headers: { "X-CSRF-Token": access.csrf, "X-Access-Code": typed },
      });
    } catch (error) {
      keepCode(null);
      showAccess();
      askForCode(error.status === 403 ? "that is not the access code" : error.message);
      return false;
    }
    keepCode(typed);
    $("code-form").hidden = true;
    $("code-msg").textContent = "";
    showAccess();
    return true;
  }

  async function startAccess() {
    $("code-open").addEventListener("click", () => askForCode(""));
    $("code-form").addEventListener("submit", (event) => {
      event.preventDefault();
      tryCode($("code-input").value);
    });
    const url = new URL(window.location.href);
    const linked = url.searchParams.get("code");
    if (linked !== null) {
      // Out of the address bar (and of screenshots of it) once read.
      url.searchParams.delete("code");
      history.replaceState(null, "", url.pathname + url.search + url.hash);
    }
    showAccess();
    if (access.needed && !meta("access-code")) {
      if (linked) await tryCode(linked);
      else access.code = storedCode();
    }
    showAccess();
  }

  /** Any change: JSON in, JSON out, with the token and the code; a refusal for the code takes
   * the page back to view only and asks for it. */
  async function post(path, data) {
    const headers = { "Content-Type": "application/json", "X-CSRF-Token": access.csrf };
    if (access.code) headers["X-Access-Code"] = access.code;
    try {
      return await api(path, { method: "POST", headers, body: JSON.stringify(data) });
    } catch (error) {
      if (error.status === 403 && error.needs === "access-code") {
        if (access.code !== meta("access-code")) keepCode(null);
        showAccess();
        askForCode(error.message);
      }
      throw error;
    }
  }

  /** Calls `work` at most once at a time; a call while busy runs once more when it finishes. */
  function singleFlight(work, minGapMs) {
    let busy = false;
    let again = false;
    let last = 0;
    async function run() {
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      const wait = last + (minGapMs || 0) - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        await work();
      } catch (error) {
        console.warn(error);
      } finally {
        last = Date.now();
        busy = false;
        if (again) {
          again = false;
          run();
        }
      }
    }
    return run;
  }

  // ------------------------------------------------------------------------------------------
  // Formatting: numbers are shown as the JSON gives them, so the page says what the CLI says.

  /** A length as players read it: in the page's unit, to 0.1, as the map's label writes it
   * (the JSON keeps the exact value). */
  function length(v) {
    if (!v || typeof v !== "object") return String(v);
    const metric = { cm: 1, mm: 0.1, in: 2.54 };
    let value = v.value;
    let unit = v.unit;
    if (state.unit && unit in metric && unit !== state.unit) {
      value = (value * metric[unit]) / metric[state.unit];
      unit = state.unit;
    }
    const shown = Number(value).toFixed(1);
    return unit === "in" ? `${shown}"` : `${shown} ${unit}`;
  }
  const percent = (p) => chance(p);
  /** Where a number comes from: "19th Century rules: QRS, line 41", the line quoted on hover
   * (its title) or on a tap (shown under it). */
  function source(s) {
    if (!s) return null;
    const refs = (Array.isArray(s) ? s : [s]).map(String);
    return h("span", { class: "sources" }, refs.map((ref) => {
      const found = /^(\d{3}_[0-9a-f]{16}\.txt):(\d+)$/.exec(ref.trim());
      const quoted = found ? quoteOf(found[1], Number(found[2])) : "";
      const cite = h("span", {
        class: "source", tabindex: quoted ? 0 : null, role: quoted ? "button" : null,
        title: quoted ? `“${quoted}”` : null,
        onclick: quoted ? (event) => {
          const open = cite.querySelector(".quote");
          if (open) open.remove();
          else cite.append(h("q", { class: "quote" }, quoted));
          event.stopPropagation();
        } : null,
      }, ref);
      return cite;
    }));
  }
  const signed = (n) => (n > 0 ? `+${n}` : String(n));
  const words = (key) => key.replace(/_/g, " ");

  /** Lengths are shown in the map's unit already (see `length`): nothing more to add. */
  const converted = () => null;

  /** The two bases an answer measured between (`between`: {shooter, target} or {a, b}...). */
  function pairOf(answer) {
    const between = answer && typeof answer === "object" ? answer.between : null;
    if (!between || typeof between !== "object") return null;
    const ids = Object.values(between).filter((x) => typeof x === "string");
    return ids.length >= 2 ? [ids[0], ids[1]] : null;
  }

  // ------------------------------------------------------------------------------------------
  // Status strip

  /** The phase this page has just set, until the server is heard to say it. */
  let setPhase = null;
  const PHASE_SETTLE_MS = 3000;

  /** Whether the server's `phase` may be shown. A status or state made before this page's own
   * phase change can arrive after the change's answer (the events stream and the API calls
   * travel apart): it must not take the page back to the phase before, or a quick "Next phase"
   * would step from there again. Such answers are passed over until one says the phase set, or
   * for at most PHASE_SETTLE_MS. Only the events stream ends the wait (`heard`): its statuses
   * come in order, so none after the one saying the phase set is older than the change. */
  function phaseSettled(phase, heard) {
    const settled = !setPhase || phase === setPhase.phase || Date.now() >= setPhase.until;
    if (heard && settled) setPhase = null;
    return settled;
  }

  function showStatus(status) {
    if (!status) return;
    if (status.frame !== undefined) $("st-frame").textContent = status.frame;
    if (typeof status.fps === "number") $("st-fps").textContent = status.fps.toFixed(1);
    // Frames a second mean something only while frames come: not for a still photo, a folder
    // waiting for "Next photo" or a video played to its end.
    $("st-fps-item").hidden = !["live", "playing", undefined].includes(status.source_state);
    if (status.source_words) framesFrom = { state: status.source_state, words: status.source_words };
    $("next-photo").hidden = !status.can_step;
    const cal = status.calibration;
    $("st-cal").textContent = cal
      ? `${cal.rms.toFixed(2)} ${cal.unit} rms, worst ${cal.worst.toFixed(2)} ${cal.unit}`
      : "not yet";
    const bases = status.bases || {};
    if (Array.isArray(status.missing_bases) && status.missing_bases.join() !== (state.missing || []).join()) {
      state.missing = status.missing_bases;
      showBaseLists();
    }
    $("st-seen").textContent = bases.seen ?? "-";
    $("st-stale").textContent = bases.stale ?? "-";
    $("st-missing").textContent = bases.missing ?? "-";
    // What the table should look at (a knocked corner tag, a tag printed twice, a base off
    // the table...), in the server's own sentences.
    const warnings = Array.isArray(status.warnings) ? status.warnings : [];
    $("st-warnings").hidden = warnings.length === 0;
    $("st-warnings").textContent = plainText(warnings.join(" · "));
    $("st-lost").hidden = !status.camera_lost;
    $("st-error").hidden = !status.error;
    $("st-error").textContent = status.error || "";
    if (status.ruleset && status.ruleset !== state.ruleset) setRuleset(status);
    const settled = phaseSettled(status.phase, true);
    if (status.phases && status.phase !== state.phase && settled) showPhases(status.phases, status.phase);
  }

  function connection(stateName, text) {
    const item = $("st-conn");
    item.dataset.state = stateName;
    item.textContent = text;
  }

  /** What the source is doing, in the server's words (the events stream is connected); a
   * replay says so, never "live". */
  let framesFrom = { state: "live", words: "live" };
  const showSource = () => (replaying.on
    ? connection("replay", `replay of game ${replaying.game}${replaying.paused ? ", paused" : ""}`)
    : connection(framesFrom.state, framesFrom.words));

  // ------------------------------------------------------------------------------------------
  // Replay (`umpire serve --replay GAME`): the logged turn, phase, state and decisions of the
  // scene on show, and play, pause, step and speed.

  const replaying = { on: false, game: null, paused: false };

  function showReplay(r) {
    replaying.on = Boolean(r && r.replay);
    $("replay").hidden = !replaying.on;
    document.body.classList.toggle("replaying", replaying.on);
    if (!replaying.on) return;
    replaying.game = r.game;
    replaying.paused = r.paused;
    $("replay-banner").textContent = `REPLAY of game ${r.game}: not live play`;
    $("replay-where").textContent = `scene ${r.scene} of ${r.scenes}${r.paused ? " (paused)" : ""}`;
    $("replay-turn").textContent = `logged: turn ${r.turn ?? "-"}, phase ${r.phase ?? "-"}`;
    $("replay-speed").value = String(r.speed);
    const state = r.state || {};
    $("replay-state").replaceChildren(...Object.entries(state).map(([unit, values]) =>
      h("p", { class: "replay-unit" }, h("b", null, unit), ": ",
        Object.entries(values).map(([k, v]) => `${words(k)} ${valueWords(v)}`).join(", "))));
    const decisions = r.decisions || [];
    $("replay-decisions").replaceChildren(...(decisions.length ? decisions.map((d) => {
      const q = d.question || {};
      const result = d.result && typeof d.result === "object"
        ? Object.entries(d.result).map(([k, v]) => `${words(k)} ${Array.isArray(v) ? v.join(", ") : valueWords(v)}`).join(", ") : "";
      return h("li", { class: "replay-decision" },
        `${d.decision === "confirm" ? "confirmed" : "overridden"}: ${[q.action, ...(q.args || [])].join(" ")}`,
        result ? ` (${result})` : "", d.note ? `: ${d.note}` : "");
    }) : [h("li", { class: "hint" }, "no decision logged with this scene")]));
    showSource();
  }

  async function loadReplay() {
    try {
      showReplay(await api("/api/replay"));
    } catch (error) {
      console.warn(error);
    }
  }

  async function replayDo(body) {
    $("replay-msg").textContent = "";
    try {
      showReplay(await post("/api/replay", body));
    } catch (error) {
      $("replay-msg").textContent = plainText(error.message);
    }
  }

  /** The page's "Next photo": the folder shows its next photo now. */
  async function nextPhoto() {
    $("source-msg").textContent = "";
    try {
      const answer = await post("/api/source/next", {});
      $("source-msg").textContent = `photo ${answer.photo} of ${answer.photos} asked for`;
    } catch (error) {
      $("source-msg").textContent = plainText(error.message);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Server-sent events: one `frame` event per scanned frame.

  let events = null;

  function listen() {
    if (events) events.close();
    events = new EventSource("/events");
    events.addEventListener("open", showSource);
    events.addEventListener("frame", (event) => {
      const data = JSON.parse(event.data);
      state.frame = data.frame;
      setView(data.view);
      showStatus(data.status);
      $("st-frame").textContent = data.frame;
      if (replaying.on) loadReplay();
      showSource();
      refreshMap();
      if (state.select && state.target && !state.fromSuggest) refreshAnswer();
      if (Date.now() - lastSuggest > 5000) loadSuggest();
      if (Date.now() - lastState > 4000) loadState();
    });
    events.addEventListener("status", (event) => {
      // The game's state changed (a result confirmed elsewhere, a new turn) or the camera did.
      const data = JSON.parse(event.data);
      setView(data.view);
      showStatus(data.status);
      showSource();
      refreshMap();
      loadState();
    });
    events.addEventListener("error", () => {
      // The browser retries by itself while the stream is CONNECTING; a CLOSED stream (the server
      // answered with an error) is opened again here.
      connection("lost", "reconnecting");
      if (events.readyState === EventSource.CLOSED) setTimeout(listen, 2000);
    });
  }

  // ------------------------------------------------------------------------------------------
  // Ruleset, unit switch, live view

  async function setRuleset(status) {
    state.ruleset = status.ruleset;
    let info = null;
    try {
      const rulesets = await api("/api/rulesets");
      info = (Array.isArray(rulesets) ? rulesets : []).find((r) => r.id === status.ruleset) || null;
    } catch (error) {
      console.warn(error);
    }
    state.actions = info ? info.actions : [];
    try {
      state.arity = (await api("/api/actions")).actions || [];
    } catch (error) {
      console.warn(error);
    }
    showAsk();
    $("ruleset").textContent = info ? info.title : status.ruleset;
    if (!state.unit) setUnit((info && info.unit) || status.unit || "cm");
    if (state.select && state.target && !state.fromSuggest) refreshAnswer(); // now with `shoot`
  }

  function setUnit(unit) {
    state.unit = unit === "in" ? "in" : "cm";
    for (const input of document.querySelectorAll('#unit-switch input[name="unit"]')) {
      input.checked = input.value === state.unit;
    }
    refreshMap();
  }

  function showLiveView() {
    // One picture for every viewer: the selection is drawn by this page, over it (below).
    const img = $("live");
    if (img.getAttribute("src") !== "/stream.mjpg") img.setAttribute("src", "/stream.mjpg");
    drawOverlay();
  }

  // ------------------------------------------------------------------------------------------
  // The live view's layer: the selected unit's range bands, command radii, proximity halos,
  // flank/rear sectors and the card's measuring line, drawn by this page over the picture (the
  // server sends every viewer the same picture). What is drawn is read off the map's own
  // drawing (webui/mapsvg.py: one source of truth for what a ring is, its band and its length
  // in the page's unit), sampled along each shape in table millimetres and put on the picture
  // through the frame's table-to-pixel mapping (`view` in each frame event: the homography and,
  // for a calibrated lens, its matrix and distortion).

  let view = null; // the latest frame's {frame, width, height, table_to_image, lens, scale}
  let viewKey = "";

  function setView(next) {
    if (!next) return; // before the table is fitted: keep what is drawn
    const key = JSON.stringify([next.width, next.height, next.scale, next.table_to_image, next.lens]);
    view = next;
    if (key === viewKey) return; // the same mapping: the drawing still fits
    viewKey = key;
    drawOverlay();
  }

  /** The live view picture's pixel of a table point (mm), as `TableFit.table_to_image` computes
   * it (then shrunk with the picture); null beyond the table plane's horizon. */
  function toPixel(x, y) {
    const m = view.table_to_image;
    const w = m[2][0] * x + m[2][1] * y + m[2][2];
    if (!(w > 1e-12 * (Math.abs(m[2][0]) + Math.abs(m[2][1]) + Math.abs(m[2][2])))) return null;
    let u = (m[0][0] * x + m[0][1] * y + m[0][2]) / w;
    let v = (m[1][0] * x + m[1][1] * y + m[1][2]) / w;
    const lens = view.lens;
    if (lens) {
      // OpenCV's lens model (cv2.projectPoints) applied to the ideal pinhole pixel.
      const k = lens.matrix;
      const [k1, k2, p1, p2, k3 = 0] = lens.distortion;
      const yn = (v - k[1][2]) / k[1][1];
      const xn = (u - k[0][2] - k[0][1] * yn) / k[0][0];
      const r2 = xn * xn + yn * yn;
      const radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2;
      const xd = xn * radial + 2 * p1 * xn * yn + p2 * (r2 + 2 * xn * xn);
      const yd = yn * radial + p1 * (r2 + 2 * yn * yn) + 2 * p2 * xn * yn;
      u = k[0][0] * xd + k[0][2];
      v = k[1][1] * yd + k[1][2];
    }
    const scale = view.scale ?? 1; // the live view's picture may be smaller than the frame
    return [u * scale, v * scale];
  }

  /** The map's drawing in table millimetres: its SVG y runs down from the far edge. */
  function mapToTable(svg, x, y) {
    return [x, Number(svg.dataset.tableDepthMm) - y];
  }

  /** The transform from an element's own coordinates to the map's (its and its groups'). */
  function mapMatrix(el, svg) {
    let m = new DOMMatrix();
    for (let node = el; node && node !== svg; node = node.parentNode) {
      const list = node.transform && node.transform.baseVal;
      const t = list && list.numberOfItems ? list.consolidate() : null;
      if (t) m = DOMMatrix.fromMatrix(t.matrix).multiply(m);
    }
    return m;
  }

  /** Points along a shape of the map (path, rect, circle, polygon, line) in table mm, about
   * every 4 mm; closed shapes end where they start. */
  function sampleShape(shape, svg) {
    const total = shape.getTotalLength();
    const n = Math.max(2, Math.min(720, Math.ceil(total / 4)));
    const m = mapMatrix(shape, svg);
    const out = [];
    for (let i = 0; i <= n; i++) {
      const at = shape.getPointAtLength((total * i) / n);
      const q = new DOMPoint(at.x, at.y).matrixTransform(m);
      out.push(mapToTable(svg, q.x, q.y));
    }
    return out;
  }

  /** A straight line between two table points, in `n` steps (its picture may bend: a lens). */
  function segment(a, b, n) {
    return Array.from({ length: n + 1 }, (_, k) => [a[0] + ((b[0] - a[0]) * k) / n, a[1] + ((b[1] - a[1]) * k) / n]);
  }

  /** The straight lines of a map path made of `M x,y L x,y` moves, in table mm. */
  function pathLines(svg, path) {
    const d = path.getAttribute("d") || "";
    return [...d.matchAll(/M\s*([-\d.]+)[ ,]([-\d.]+)\s*L\s*([-\d.]+)[ ,]([-\d.]+)/g)].map((m) =>
      segment(mapToTable(svg, +m[1], +m[2]), mapToTable(svg, +m[3], +m[4]), 16));
  }

  /** Table points to pixel polylines: a point off the table (a plane homography sends points
   * far beyond it to nonsense) or beyond the horizon breaks the line there. */
  function pixelRuns(svg, points) {
    const margin = 20;
    const width = Number(svg.dataset.tableWidthMm);
    const depth = Number(svg.dataset.tableDepthMm);
    const runs = [];
    let run = [];
    for (const [x, y] of points) {
      const on = x >= -margin && y >= -margin && x <= width + margin && y <= depth + margin;
      const px = on ? toPixel(x, y) : null;
      if (px) run.push(px);
      else if (run.length) {
        runs.push(run);
        run = [];
      }
    }
    if (run.length) runs.push(run);
    return runs.filter((r) => r.length >= 2);
  }

  const NS = "http://www.w3.org/2000/svg";
  const fixed = (n) => n.toFixed(1);

  function svgEl(tag, attrs, ...children) {
    const el = document.createElementNS(NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined) el.setAttribute(key, String(value));
    }
    for (const child of children) if (child) el.append(child);
    return el;
  }

  function polylines(svg, points, cls) {
    return pixelRuns(svg, points).map((run) =>
      svgEl("polyline", { class: cls, points: run.map((p) => `${fixed(p[0])},${fixed(p[1])}`).join(" ") }));
  }

  /** A text of the map (a band's label, the measured length) at its place on the picture. */
  function labelAt(svg, text, cls) {
    const [x, y] = mapToTable(svg, Number(text.getAttribute("x")), Number(text.getAttribute("y")));
    const px = toPixel(x, y);
    if (!px) return null;
    return svgEl("text", { class: cls, x: fixed(px[0]), y: fixed(px[1]) }, text.textContent);
  }

  /** The centre of a base's footprint on the map, in table mm. */
  function footprintCentre(svg, footprint) {
    if (footprint.tagName === "circle") {
      return mapToTable(svg, Number(footprint.getAttribute("cx")), Number(footprint.getAttribute("cy")));
    }
    const points = footprint.getAttribute("points").trim().split(/\s+/).map((p) => p.split(",").map(Number));
    const x = points.reduce((a, p) => a + p[0], 0) / points.length;
    const y = points.reduce((a, p) => a + p[1], 0) / points.length;
    return mapToTable(svg, x, y);
  }

  function drawOverlay() {
    const layer = $("live-overlay");
    if (!layer) return;
    const svg = $("map").querySelector("svg.umpire-map");
    if (!view || !svg) {
      layer.replaceChildren();
      return;
    }
    layer.setAttribute("viewBox", `0 0 ${view.width} ${view.height}`);
    layer.dataset.frame = String(view.frame);
    layer.setAttribute("font-size", fixed(Math.max(12, view.width / 70)));
    const parts = [];
    const selection = svg.querySelector("g.selection");
    if (selection) {
      for (const g of selection.querySelectorAll("g.sectors")) {
        const rear = g.querySelector("polygon.rear");
        const lines = g.querySelector("path.diagonals");
        parts.push(svgEl("g", { class: "sectors", "data-for": g.dataset.for },
          ...(rear ? polylines(svg, sampleShape(rear, svg), "rear") : []),
          ...(lines ? pathLines(svg, lines).flatMap((points) => polylines(svg, points, "diagonal")) : [])));
      }
      for (const g of selection.querySelectorAll("g.halo")) {
        const shape = g.querySelector("path, rect, circle");
        if (shape) parts.push(svgEl("g", { class: "halo", "data-for": g.dataset.for, "data-distance-mm": g.dataset.distanceMm },
          ...polylines(svg, sampleShape(shape, svg), "ring")));
      }
      for (const [i, g] of [...selection.querySelectorAll("g.range")].entries()) {
        const shape = g.querySelector("path, rect, circle");
        const text = g.querySelector("text.band-label");
        if (!shape) continue;
        parts.push(svgEl("g", { class: `range band-${Math.min(i, 3)}`, "data-band": g.dataset.band, "data-reach-mm": g.dataset.reachMm,
          "data-label": text ? text.textContent : null },
          ...polylines(svg, sampleShape(shape, svg), "ring"), text ? labelAt(svg, text, "band-label") : null));
      }
      for (const g of selection.querySelectorAll("g.command")) {
        const shape = g.querySelector("path, rect, circle");
        if (shape) parts.push(svgEl("g", { class: "command", "data-for": g.dataset.for, "data-radius-mm": g.dataset.radiusMm },
          ...polylines(svg, sampleShape(shape, svg), "ring")));
      }
    }
    for (const g of svg.querySelectorAll("g.base.selected[data-base], g.base.target[data-base]")) {
      const footprint = g.querySelector(".footprint");
      const px = footprint && toPixel(...footprintCentre(svg, footprint));
      if (!px) continue;
      parts.push(svgEl("circle", { class: g.classList.contains("selected") ? "base-mark selected" : "base-mark target",
        "data-base": g.dataset.base, "data-unit": g.dataset.unit, cx: fixed(px[0]), cy: fixed(px[1]), r: 6 }));
    }
    const measure = svg.querySelector("g.measure");
    if (measure) {
      const line = measure.querySelector("line");
      const text = measure.querySelector("text");
      const ends = ["1", "2"].map((k) => mapToTable(svg, Number(line.getAttribute(`x${k}`)), Number(line.getAttribute(`y${k}`))));
      const steps = segment(ends[0], ends[1], 16);
      parts.push(svgEl("g", { class: "measure", "data-a": measure.dataset.a, "data-b": measure.dataset.b,
        "data-distance-mm": measure.dataset.distanceMm, "data-label": text ? text.textContent : null },
        ...polylines(svg, steps, "line"), text ? labelAt(svg, text, "length") : null));
    }
    layer.replaceChildren(...parts);
  }

  // ------------------------------------------------------------------------------------------
  // Map

  function mapQuery() {
    const query = new URLSearchParams();
    if (state.select) query.set("select", state.select);
    if (state.target) query.set("target", state.target);
    if (state.line) query.set("line", state.line.join(","));
    if (state.unit) query.set("unit", state.unit);
    return query.toString();
  }

  let shownMap = "";

  const refreshMap = singleFlight(async () => {
    const response = await fetch(`/api/map.svg?${mapQuery()}`);
    const text = await response.text();
    const box = $("map");
    if (!response.ok) {
      let message = text;
      try {
        message = JSON.parse(text).error || text;
      } catch (_) {
        /* not JSON: show the text */
      }
      box.replaceChildren(h("p", { class: "error" }, message));
      shownMap = "";
      drawOverlay();
      return;
    }
    if (text === shownMap) return; // the table has not changed: keep the drawing (and hover)
    shownMap = text;
    box.innerHTML = text;
    const svg = box.querySelector("svg");
    if (svg) {
      zoom.whole = (svg.getAttribute("viewBox") || "").split(/[ ,]+/).map(Number);
      applyZoom();
      spreadLabels(svg);
    }
    markPicked();
    drawOverlay();
  }, 150);

  // ------------------------------------------------------------------------------------------
  // Zoom and pan: the wheel, a pinch, a drag, the + / − / whole-table buttons. The view is kept
  // as the SVG's viewBox and put back on every new drawing of the map.

  const zoom = { whole: null, view: null };

  function applyZoom() {
    const svg = $("map").querySelector("svg");
    if (!svg || !zoom.whole || zoom.whole.length !== 4) return;
    const v = zoom.view || zoom.whole;
    svg.setAttribute("viewBox", v.map((n) => n.toFixed(2)).join(" "));
    $("map").dataset.zoom = (zoom.whole[2] / v[2]).toFixed(3);
  }

  /** The map's point (its own units) under a point of the window. */
  function mapPoint(x, y) {
    const svg = $("map").querySelector("svg");
    const m = svg && svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(x, y).matrixTransform(m.inverse());
    return [p.x, p.y];
  }

  /** Zoom by `factor` (2: twice as close) keeping the map's point under (x, y) where it is. */
  function zoomAt(factor, x, y) {
    if (!zoom.whole) return;
    const v = zoom.view || zoom.whole;
    const at = mapPoint(x, y) || [v[0] + v[2] / 2, v[1] + v[3] / 2];
    const w = Math.min(zoom.whole[2], Math.max(zoom.whole[2] / 12, v[2] / factor));
    const scale = w / v[2];
    const h2 = v[3] * scale;
    zoom.view = w >= zoom.whole[2] ? null : [at[0] - (at[0] - v[0]) * scale, at[1] - (at[1] - v[1]) * scale, w, h2];
    applyZoom();
  }

  function zoomCentre(factor) {
    const box = $("map").getBoundingClientRect();
    zoomAt(factor, box.left + box.width / 2, box.top + box.height / 2);
  }

  /** Move the view by a drag of (dx, dy) window pixels. */
  function panBy(dx, dy) {
    if (!zoom.view) return;
    const svg = $("map").querySelector("svg");
    const m = svg && svg.getScreenCTM();
    if (!m) return;
    zoom.view = [zoom.view[0] - dx / m.a, zoom.view[1] - dy / m.d, zoom.view[2], zoom.view[3]];
    applyZoom();
  }

  /** Labels that do not overlap: each base's id is moved down (then up) off the labels placed
   * before it, a step of its own height at a time. */
  function spreadLabels(svg) {
    const placed = [];
    const hit = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    for (const label of svg.querySelectorAll("g.base text.label")) {
      let box;
      try {
        box = label.getBBox();
      } catch (_) {
        continue;
      }
      if (!box.width) continue;
      const y0 = Number(label.getAttribute("y"));
      const step = box.height * 1.05;
      let shift = 0;
      for (let i = 0; i < 12; i++) {
        const candidate = { x: box.x, y: box.y + shift, width: box.width, height: box.height };
        if (!placed.some((p) => hit(p, candidate))) break;
        shift = i % 2 === 0 ? step * (i / 2 + 1) : -step * ((i + 1) / 2);
      }
      if (shift) label.setAttribute("y", String(y0 + shift));
      placed.push({ x: box.x, y: box.y + shift, width: box.width, height: box.height });
    }
  }

  /** The unit of a base, as the map says (a unit's id is its own). */
  function unitOf(id) {
    const group = $("map").querySelector(`g.base[data-base="${CSS.escape(id)}"]`);
    return group ? group.dataset.unit : id;
  }

  /** Every base and unit id on the map. */
  function knownIds() {
    const ids = new Set();
    for (const group of $("map").querySelectorAll("g.base[data-base]")) {
      ids.add(group.dataset.base);
      ids.add(group.dataset.unit);
    }
    return ids;
  }

  function markPicked() {
    for (const group of $("map").querySelectorAll("g.base[data-base]")) {
      const id = group.dataset.base;
      group.classList.toggle("picked-select", id === state.select);
      group.classList.toggle("picked-target", id === state.target);
    }
  }

  // A click is read from where the pointer went down and up, not from the element it hit: the
  // map is redrawn with every frame, so the element under a slow click may be gone by its end.
  let pressed = null;
  const pointers = new Map(); // pointerId -> {x, y}: the fingers (or mouse) on the map now
  let pinch = null;

  function onMapDown(event) {
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = { d: Math.hypot(a.x - b.x, a.y - b.y) };
      pressed = null; // two fingers: a pinch, never a pick
      return;
    }
    pressed = { id: event.pointerId, x: event.clientX, y: event.clientY, moved: false };
  }

  function onMapMove(event) {
    const last = pointers.get(event.pointerId);
    if (!last) return;
    const now = { x: event.clientX, y: event.clientY };
    pointers.set(event.pointerId, now);
    if (pointers.size === 2 && pinch) {
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      if (pinch.d > 0 && d > 0) zoomAt(d / pinch.d, (a.x + b.x) / 2, (a.y + b.y) / 2);
      pinch.d = d;
      return;
    }
    if (pressed && pressed.id === event.pointerId) {
      if (Math.hypot(now.x - pressed.x, now.y - pressed.y) > 12) pressed.moved = true;
      if (pressed.moved) panBy(now.x - last.x, now.y - last.y);
    }
  }

  function onMapUp(event) {
    pointers.delete(event.pointerId);
    if (pointers.size < 2) pinch = null;
    const down = pressed;
    pressed = null;
    if (!down || down.id !== event.pointerId || down.moved) return;
    if (Math.hypot(event.clientX - down.x, event.clientY - down.y) > 12) return; // a drag or scroll
    const group = baseAt(event.clientX, event.clientY);
    if (group) pick(group.dataset.base);
  }

  function onMapWheel(event) {
    event.preventDefault();
    zoomAt(Math.pow(1.2, -event.deltaY / 100), event.clientX, event.clientY);
  }

  /** The base under a point: its footprint first, else the nearest footprint within a finger's
   * reach (44 px), since bases are small and fingers are not. A label never picks: it may lie
   * over another base. */
  const REACH_PX = 44;

  function baseAt(x, y) {
    const hits = document.elementsFromPoint(x, y).filter((el) => $("map").contains(el));
    const footprint = hits.find((el) => el.classList.contains("footprint") && el.closest("g.base[data-base]"));
    if (footprint) return footprint.closest("g.base[data-base]");
    return nearestBase(x, y, REACH_PX);
  }

  function nearestBase(x, y, reachPx) {
    let best = null;
    let bestDistance = reachPx;
    for (const shape of $("map").querySelectorAll("g.base[data-base] .footprint")) {
      const box = shape.getBoundingClientRect();
      const dx = Math.max(box.left - x, 0, x - box.right);
      const dy = Math.max(box.top - y, 0, y - box.bottom);
      const distance = Math.hypot(dx, dy);
      if (distance < bestDistance) {
        bestDistance = distance;
        best = shape.closest("g.base[data-base]");
      }
    }
    return best;
  }

  /** First click selects, second picks the target; a click after both starts again. */
  function pick(id) {
    if (!state.select || state.target) {
      state.select = id;
      state.target = null;
      state.asked = null;
    } else if (id === state.select) {
      state.select = null;
    } else {
      state.target = id;
    }
    state.line = null;
    state.panel = state.select;
    state.fromSuggest = false;
    afterPick();
  }

  function afterPick() {
    state.overriding = null;
    state.reporting = null;
    showAsk();
    showUnit();
    markPicked();
    showLiveView();
    refreshMap();
    $("clear").hidden = !state.select;
    if (!state.select) {
      $("pick").textContent = "Click a base, then another.";
      clearAnswer();
    } else if (!state.target) {
      $("pick").textContent = `${state.select} selected: click another base.`;
      clearAnswer();
      $("question").replaceChildren(h("p", null, `${state.select}: click another base.`));
    } else {
      $("pick").textContent = `${state.select} and ${state.target}: click a base to start again.`;
      refreshAnswer();
    }
  }

  function clearAnswer() {
    state.question = null;
    $("question").replaceChildren();
    $("measure").replaceChildren();
    $("card").replaceChildren();
  }

  // ------------------------------------------------------------------------------------------
  // Answer: the measurement and the resolution card

  /** A question: a player's is asked by POST and logged (its answer gets a log_id to confirm);
   * a spectator's by GET, answered the same and never written. */
  const resolve = (action, args) =>
    canChange()
      ? post("/api/resolve", { action, args })
      : api(`/api/resolve?action=${encodeURIComponent(action)}&args=${args.map(encodeURIComponent).join(",")}`);

  const refreshAnswer = singleFlight(async () => {
    const a = state.select;
    const b = state.target;
    if (!a || !b) return;
    const action = pairAction();
    const hasShoot = action !== "measure";
    let [measured, shot] = await Promise.all([
      resolve("measure", [a, b]).catch((error) => error),
      hasShoot ? resolve(action, [a, b]).catch((error) => error) : Promise.resolve(null),
    ]);
    // One answer per question: the measurement, the map's line and the card name the pair the
    // card measured (a unit shoots from its nearest base, not always the one clicked).
    let pair = pairOf(shot);
    const shotLength = shot && !(shot instanceof Error) && shot.distance ? shot.distance.value : null;
    if (!pair && shotLength !== null && !(measured instanceof Error) && measured.distance.value !== shotLength) {
      // The card measured unit to unit without naming the bases: the units' nearest pair.
      const units = [unitOf(a), unitOf(b)];
      const between = await resolve("measure", units).catch((error) => error);
      if (!(between instanceof Error) && between.distance.value === shotLength) pair = pairOf(between);
    }
    pair = pair || pairOf(measured) || [a, b];
    const measuredPair = pairOf(measured);
    if (!(measured instanceof Error) && measuredPair && pair.join() !== measuredPair.join()) {
      measured = await resolve("measure", pair).catch((error) => error);
    }
    if (a !== state.select || b !== state.target || state.fromSuggest) return; // picked again
    if (action !== pairAction()) return; // another action asked meanwhile: its own run answers it
    showLine(pair);
    state.question = { action, args: [a, b] };
    const key = questionKey(state.question);
    if (state.overriding === key) return; // a note is being written
    if (state.reporting === key) return; // dice are being entered
    // Another question replaces the card: a note or dice begun on the card it replaces go with
    // it, so asking that question again answers it afresh instead of holding a card not on show.
    state.overriding = null;
    state.reporting = null;
    $("question").replaceChildren(
      h("p", null, h("b", null, a), action === "shoot" ? " shoots at " : action === "measure" ? " and " : ` ${action} `, h("b", null, b)),
    );
    $("measure").replaceChildren(measured instanceof Error ? errorBox(measured) : measureView(measured));
    $("card").replaceChildren(shot ? (shot instanceof Error ? errorBox(shot) : card(shot, state.question, pair)) : "");
    $("card").dataset.frame = state.frame ?? "";
  }, 500);

  /** The action the card answers for the clicked pair: the one chosen, else shoot, else measure. */
  function pairAction() {
    const two = offered(2).map((a) => a.name);
    if (state.asked && two.includes(state.asked)) return state.asked;
    if (state.actions.includes("shoot")) return "shoot";
    return "measure";
  }

  /** The actions that take `n` clicked units or bases (from the ruleset's own list). */
  const offered = (n) => state.arity.filter((a) => a.least <= n && n <= a.most);

  /** Ask anything: the actions of what is clicked - none (the whole table), one piece, two. */
  function showAsk() {
    const n = state.select ? (state.target ? 2 : 1) : 0;
    const args = [state.select, state.target].filter(Boolean);
    const list = n === 0 ? offered(0) : [...offered(n), ...offered(0)];
    const current = n === 2 ? pairAction() : null;
    $("ask").replaceChildren(...(list.length ? [
      h("span", { class: "hint" }, n === 0 ? "ask about the table: " : `ask about ${args.join(" and ")}: `),
      ...list.map((a) => h("button", {
        type: "button", class: a.name === current ? "ask-action current" : "ask-action",
        "data-action": a.name, "aria-pressed": a.name === current ? "true" : null,
        title: a.usage, onclick: () => askAction(a, args),
      }, a.name)),
    ] : []));
  }

  function askAction(action, args) {
    if (action.least <= 2 && 2 <= action.most && args.length === 2) {
      state.asked = action.name;
      state.fromSuggest = false;
      showAsk();
      refreshAnswer();
      return;
    }
    const used = action.most === 0 ? [] : args.slice(0, action.most);
    showAsked({ kind: action.name, args: used, result: null, summary: "" }, "asked");
  }

  /** The map draws its measuring line between this pair (and says the same length). */
  function showLine(pair) {
    const next = pair ? pair.join(",") : "";
    if ((state.line ? state.line.join(",") : "") === next) return;
    state.line = pair;
    refreshMap();
  }

  function errorBox(error) {
    return h("p", { class: "error", role: "alert" }, error.message);
  }

  function measureView(m) {
    const pair = pairOf(m);
    const rows = [
      ["between", h("span", { class: "pair" }, pair ? pair.join(" and ") : `${m.a} and ${m.b}`)],
      ["distance", h("span", null,
        h("span", { class: "distance" }, length(m.distance)),
        m.uncertainty ? h("span", { class: "uncertainty" }, ` ± ${length(m.uncertainty)}`) : null,
        converted(m.distance))],
    ];
    if (m.boxes !== undefined) rows.push(["boxes", h("span", { class: "boxes" }, m.boxes)]);
    if (m.aspect) rows.push(["aspect", h("span", null, h("span", { class: "aspect" }, m.aspect),
      ` (${m.a || "A"} relative to ${m.b || "B"}'s facing)`)]);
    if (m.in_sight !== undefined) {
      const blocked = m.sight && m.sight.blocked_by && m.sight.blocked_by.length
        ? ` (blocked by ${m.sight.blocked_by.join(", ")})` : "";
      const rays = m.sight && m.sight.rays ? `, ${m.sight.clear} of ${m.sight.rays} sight lines clear` : "";
      rows.push(["sight", h("span", null,
        h("span", { class: "sight" }, m.in_sight ? "in sight" : "out of sight"), rays, blocked)]);
    }
    return h("dl", { class: "facts" }, rows.map(([k, v]) => [h("dt", null, k), h("dd", null, v)]));
  }

  /** Every "too close to call" the rules flagged anywhere in an answer. */
  function tooClose(data) {
    let found = false;
    (function walk(node) {
      if (found || node === null || typeof node !== "object") return;
      if (node.verdict === "too close to call") found = true;
      const flag = node.too_close_to_call;
      if (flag === true || (Array.isArray(flag) && flag.length)) found = true;
      for (const value of Object.values(node)) walk(value);
    })(data);
    return found;
  }

  // ------------------------------------------------------------------------------------------
  // Confirm or override: what the table agreed, recorded in the game log against the answer
  // shown (its `log_id`). Without a log_id (no game log in this server) there is nothing to do.

  const questionKey = (q) => (q ? `${q.action} ${(q.args || []).join(" ")}` : "");

  function decisionRow(r, question) {
    const id = r.log_id;
    if (!Number.isInteger(id) || !question) return null;
    const row = h("div", { class: "decide", "data-log-id": id });
    row.refused = r.allowed === false;
    fillDecision(row, id, questionKey(question));
    return row;
  }

  function fillDecision(row, id, key) {
    const done = state.decisions.get(key);
    if (done) {
      const said = done.decision === "confirm" ? "confirmed ✓" : "overridden";
      const edits = done.step ? done.step.edits : [];
      row.replaceChildren(h("div", { class: "decided-block" },
        h("span", { class: `decided ${done.decision}` }, said,
          done.note ? h("span", { class: "decided-note" }, `: ${done.note}`) : null),
        edits.length ? h("ul", { class: "applied" }, edits.map((e) => h("li", null, editWords(e)))) : null));
      return;
    }
    const message = h("span", { class: "decide-msg", "aria-live": "polite" });
    const viewOnly = !canChange();
    const form = row.reportForm || null;
    row.replaceChildren(
      h("button", {
        type: "button", class: "change confirm", disabled: viewOnly,
        onclick: () => {
          if (form && !form.complete()) {
            message.textContent = form.missing();
            return;
          }
          // No dice to report (a move, a charge): an empty result still applies the action's
          // outcome (the unit has moved); for a question without one (measure) it changes nothing.
          // A refused action (a shot out of range) has no outcome: the table's agreement is
          // recorded, nothing is settled.
          const result = form ? form.values() : row.refused ? null : {};
          decide(row, id, key, { decision: "confirm", result }, message);
        },
      }, form ? "Confirm and apply" : "Confirm"),
      h("button", {
        type: "button", class: "change override", disabled: viewOnly,
        onclick: () => overrideForm(row, id, key),
      }, "Override…"),
      message);
    showAccess();
  }

  function overrideForm(row, id, key) {
    state.overriding = key;
    const form = row.reportForm || null;
    const rows = form ? form.preview().map((e) => overrideRow(e)) : [];
    const note = h("input", {
      type: "text", class: "override-note", maxlength: 500, required: true,
      placeholder: "what the table agreed instead", "aria-label": "override note",
    });
    const message = h("span", { class: "decide-msg", "aria-live": "polite" });
    const cancel = () => {
      state.overriding = null;
      fillDecision(row, id, key);
    };
    row.replaceChildren(h("form", {
      class: "override-form",
      onsubmit: (event) => {
        event.preventDefault();
        const changes = rows.map((r) => r.change()).filter(Boolean);
        const choice = { decision: "override", note: note.value.trim() };
        if (changes.length) choice.changes = changes;
        decide(row, id, key, choice, message);
      },
    }, rows.length ? h("div", { class: "override-changes" },
      h("p", { class: "hint" }, "set by hand instead (untick to leave a value as it is):"),
      rows.map((r) => r.el)) : null,
    note, h("button", { type: "submit", class: "change save-override" }, "Save override"),
    h("button", { type: "button", class: "quiet", onclick: cancel }, "cancel"), message));
    note.focus();
  }

  async function decide(row, id, key, choice, message) {
    for (const button of row.querySelectorAll("button")) button.disabled = true;
    message.textContent = "saving...";
    try {
      const body = { resolution: id, decision: choice.decision };
      if (choice.note) body.note = choice.note;
      if (choice.result) body.result = choice.result;
      if (choice.changes) body.changes = choice.changes;
      const saved = await post("/api/results", body);
      state.decisions.set(key, {
        decision: choice.decision,
        note: choice.note || "",
        step: saved.step,
        lines: saved.lines || [],
      });
      state.overriding = null;
      state.reporting = null;
      fillDecision(row, id, key);
      const form = row.parentElement && row.parentElement.querySelector(".report-form");
      if (form) form.remove();
      loadState();
    } catch (error) {
      message.textContent = plainText(error.message);
      for (const button of row.querySelectorAll("button")) button.disabled = false;
      showAccess();
    }
  }

  /** The resolution card: band, dice, need, exact odds, modifiers, effects, reasons, and the
   * table's decision about it. */
  function card(r, question, measuredPair) {
    const parts = [];
    const who = [r.shooter || r.a || r.leader || r.unit, r.target || r.b].filter(Boolean).join(" → ");
    const verdict = r.allowed === undefined ? "" : r.allowed ? "allowed" : "not allowed";
    parts.push(h("h3", { class: "card-head" }, `${r.action}${who ? `: ${who}` : ""}`,
      verdict ? h("span", { class: `allowed ${r.allowed ? "yes" : "no"}` }, verdict) : null));
    if (tooClose(r)) {
      parts.push(h("p", { class: "too-close", role: "alert" },
        "too close to call: the margin is inside the measurement's uncertainty; measure by hand"));
    }
    const facts = [];
    if (r.distance) facts.push(["distance", h("span", null, h("span", { class: "distance" }, length(r.distance)), converted(r.distance))]);
    const pair = pairOf(r) || (r.distance ? measuredPair : null);
    if (pair) facts.push(["between", h("span", { class: "pair" }, pair.join(" and "))]);
    if (r.boxes !== undefined) facts.push(["boxes", h("span", { class: "boxes" }, r.boxes)]);
    if (r.band !== undefined) facts.push(["band", h("span", null, h("span", { class: "band" }, r.band), r.band_name ? ` (${r.band_name})` : "", source(r.band_source))]);
    if (r.weapon) facts.push(["weapon", typeof r.weapon === "object" ? r.weapon.name || JSON.stringify(r.weapon) : r.weapon]);
    if (r.cover !== undefined) facts.push(["cover", typeof r.cover === "object" ? r.cover.cover : r.cover]);
    if (r.shooters && r.shooters.fire !== undefined) facts.push(["firing", `${r.shooters.fire} of ${r.shooters.figures} (${r.shooters.rule})`]);
    if (facts.length) parts.push(h("dl", { class: "facts" }, facts.map(([k, v]) => [h("dt", null, k), h("dd", null, v)])));
    const thresholds = thresholdList(r);
    if (thresholds.length) parts.push(thresholdTable(thresholds, r));
    if (Array.isArray(r.rolls) && r.rolls.length) parts.push(rollTable(r.rolls));
    const mods = Array.isArray(r.modifiers) ? r.modifiers : [];
    if (mods.length) parts.push(h("h4", null, "dice"), modifierList(mods));
    const effects = effectRows(r);
    if (effects.length) {
      parts.push(h("h4", null, "effects"), h("table", { class: "effects" },
        h("tbody", null, effects.map(([k, v, s]) => h("tr", null, h("th", null, k), h("td", null, v, source(s)))))));
    }
    const outcomes = outcomeRows(r);
    if (outcomes.length) parts.push(h("h4", null, "chances"), h("div", { class: "outcomes" }, outcomes));
    const reasons = Array.isArray(r.reasons) ? r.reasons : [];
    if (reasons.length) {
      parts.push(h("h4", null, "why"), h("ul", { class: "reasons" }, reasons.map((x) =>
        typeof x === "object" ? h("li", null, x.reason, source(x.source)) : h("li", null, x))));
    }
    const decision = decisionRow(r, question);
    if (decision && Array.isArray(r.report_form) && r.report_form.length && !state.decisions.get(questionKey(question))) {
      const form = reportForm(r.report_form, question);
      decision.reportForm = form;
      parts.push(form.el);
      fillDecision(decision, r.log_id, questionKey(question));
    }
    else if (decision && !decision.refused && question.action !== "measure" && canChange() &&
        !state.decisions.get(questionKey(question))) {
      // No dice to report (a move, a charge): still say what Confirm will change, if anything.
      const preview = h("div", { class: "preview", "aria-live": "polite" });
      parts.push(preview);
      post("/api/outcome", { action: question.action, args: question.args, result: {} })
        .then((answer) => {
          const edits = answer.edits || [];
          if (edits.length) {
            preview.replaceChildren(h("p", { class: "hint" }, "Confirm will apply:"),
              h("ul", { class: "will-apply" }, edits.map((e) => h("li", null, editWords(e)))));
          }
        })
        .catch(() => {}); // an action whose result changes nothing: nothing to show
    }
    parts.push(decision);
    parts.push(h("details", { class: "raw" }, h("summary", null, "the whole answer (JSON, citations and long odds in words)"),
      h("pre", null, JSON.stringify(r, null, 2))));
    return h("article", { class: "resolution" }, parts);
  }

  /** Thresholds (a length against a rule's limit) at the top of an answer or in a list. */
  function thresholdList(r) {
    const found = [];
    for (const [key, value] of Object.entries(r)) {
      if (value && typeof value === "object" && !Array.isArray(value) && value.verdict) found.push([words(key), value]);
      if (Array.isArray(value)) {
        for (const item of value) {
          if (item && typeof item === "object" && item.verdict && item.limit !== undefined) {
            found.push([item.band || item.label || words(key), item]);
          }
        }
      }
    }
    return found;
  }

  /** One row a threshold, saying what it compares: "range 62.7 cm: medium band, 30.0-90.0 cm
   * (within, 27.3 cm to spare, ± 0.3 cm)". */
  function thresholdTable(list, r) {
    return h("ul", { class: "thresholds" }, list.map(([label, t]) => {
      const measured = t.measured !== undefined ? t.measured : t.boxes;
      const margin = t.margin !== undefined ? t.margin : t.margin_boxes;
      const isBand = label === "band threshold" && r && typeof r.band === "string";
      const range = r && r.band_range ? `, ${length(r.band_range.from).replace(/[^0-9.]+$/, "")}-${length(r.band_range.to)}` : "";
      const what = isBand ? `range ${length(measured)}: ${r.band} band${range}` : `${label} ${length(measured)}`;
      const marginText = margin && typeof margin === "object" ? length({ ...margin, value: Math.abs(margin.value) }) : margin;
      const side = t.verdict === "within" ? "to spare" : t.verdict === "beyond" ? "too far" : "margin";
      const detail = [
        t.limit !== undefined ? `${t.verdict} ${length(t.limit)}` : t.verdict,
        margin !== undefined ? `${marginText} ${side}` : null,
        t.uncertainty ? `± ${length(t.uncertainty)}` : null,
      ].filter(Boolean).join(", ");
      return h("li", { class: t.verdict === "too close to call" ? "threshold close" : "threshold" },
        h("span", { class: "what" }, what), " ", h("span", { class: "verdict" }, `(${detail})`));
    }));
  }

  /** One block a roll: `to hit: 4D8, need 4+, 5/8 a die (62.5%)`, then its note and modifiers. */
  function rollTable(rolls) {
    return h("ol", { class: "rolls" }, rolls.map((roll) => {
      const exact = roll.p_success_exact;
      return h("li", { class: "roll" },
        h("div", { class: "roll-line" },
          h("span", { class: "purpose" }, roll.purpose), ": ",
          h("span", { class: "dice" }, `${roll.dice}D${roll.sides}`), ", ",
          roll.need === null
            ? h("span", { class: "need" }, "read on the table")
            : ["need ", h("span", { class: "need" }, `${roll.need}+`)],
          exact === null || exact === undefined
            ? null
            : [", ", h("span", { class: "odds", title: `exactly ${exact}` }, percent(roll.p_success), " a die"),
               String(exact).replace("/", "").length <= 4 ? [" (", h("span", { class: "exact" }, exact), ")"] : null]),
        roll.note ? h("div", { class: "note" }, roll.note, source(roll.source)) : source(roll.source),
        roll.modifiers && roll.modifiers.length ? modifierList(roll.modifiers) : null);
    }));
  }

  function modifierList(mods) {
    return h("ul", { class: "modifiers" }, mods.map((m) =>
      h("li", { class: "modifier" }, h("b", null, signed(m.value)), " ", m.reason, source(m.source))));
  }

  /** The sheet's effect table as the answer gives it (per face, per hit, or in words). */
  function effectRows(r) {
    const rows = [];
    if (Array.isArray(r.effects)) {
      for (const e of r.effects) {
        const faces = Array.isArray(e.faces) ? e.faces.join(", ") : e.faces;
        rows.push([faces, e.effect, e.source]);
      }
    }
    const perHit = r.damage && r.damage.per_hit;
    if (perHit && typeof perHit === "object") {
      for (const [name, p] of Object.entries(perHit)) rows.push([name, `${percent(p.value)} a hit`, null]);
    }
    if (r.effect && typeof r.effect === "object") rows.push(["effect", r.effect.reason || JSON.stringify(r.effect), r.effect.source]);
    else if (typeof r.effect === "string") rows.push(["effect", r.effect, r.effect_source]);
    if (r.save && typeof r.save === "object" && r.save.need !== undefined) {
      rows.push(["save", `${r.save.need}+${r.save.why ? `: ${r.save.why}` : ""}`, r.save.source]);
    }
    if (r.then && typeof r.then === "object") {
      const p = r.then.p ? ` (${r.then.p.value !== undefined ? percent(r.then.p.value) : r.then.p.exact})` : "";
      rows.push([words(r.then.situation || "then") + p, r.then.on_fail || JSON.stringify(r.then), r.then.source]);
    }
    return rows;
  }

  /** Distributions of hits, kills, ... in any of the shapes the rulesets give them. */
  function outcomeRows(r) {
    const out = [];
    for (const [key, value] of Object.entries(r)) {
      const dist = distribution(value);
      if (!dist) continue;
      const mean = value && value.mean !== undefined
        ? (typeof value.mean === "object" ? value.mean.value.toFixed(2) : Number(value.mean).toFixed(2))
        : null;
      out.push(h("details", { class: "outcome" },
        h("summary", null, words(key), mean !== null ? `: expected ${mean}` : ""),
        h("table", { class: "distribution" },
          h("tbody", null, dist.filter(([, , p]) => p > 0).map(([k, exact, p]) =>
            h("tr", null, h("th", null, k), h("td", { title: `exactly ${exact}` }, percent(p))))))));
    }
    return out;
  }

  function distribution(value) {
    if (Array.isArray(value) && value.length && value.every((x) => x && typeof x === "object" && "k" in x && "exact" in x)) {
      return value.map((x) => [x.k, x.exact, x.value]);
    }
    if (!value || typeof value !== "object" || !Array.isArray(value.distribution)) return null;
    const d = value.distribution;
    if (d.length && typeof d[0] === "object") return d.map((x, k) => [k, x.exact, x.value]);
    const exact = value.exact || value.distribution_exact;
    if (!Array.isArray(exact) || exact.length !== d.length) return null;
    return d.map((p, k) => [k, exact[k], p]);
  }

  // ------------------------------------------------------------------------------------------
  // Sequence of play and suggestions

  function showPhases(phases, current) {
    if (current !== state.phase) state.decisions.clear(); // a new phase, new decisions
    state.phases = phases;
    state.phase = current;
    $("phases").replaceChildren(...phases.map((phase) => h("li", null,
      h("button", {
        type: "button",
        class: phase === current ? "change phase current" : "change phase",
        disabled: !canChange(),
        "aria-current": phase === current ? "step" : null,
        "data-phase": phase,
        onclick: () => choosePhase(phase),
      }, phase))));
    loadSuggest();
  }

  async function choosePhase(phase) {
    try {
      await post("/api/phase", { phase });
      setPhase = { phase, until: Date.now() + PHASE_SETTLE_MS };
      showPhases(state.phases, phase);
      loadState();
    } catch (error) {
      $("suggest").replaceChildren(h("li", { class: "error" }, error.message));
    }
  }

  let lastSuggest = 0;

  const loadSuggest = singleFlight(async () => {
    lastSuggest = Date.now();
    const phase = state.phase;
    $("suggest-head").textContent = phase ? `Suggested for ${phase}` : "Suggested (all phases)";
    let answer;
    try {
      answer = await api(phase ? `/api/suggest?phase=${encodeURIComponent(phase)}` : "/api/suggest");
    } catch (error) {
      $("suggest").replaceChildren(h("li", { class: "error" }, error.message));
      return;
    }
    const items = Array.isArray(answer.items) ? answer.items : [];
    $("suggest").replaceChildren(...(items.length ? items.map((item) => h("li", null,
      h("button", { type: "button", class: "suggestion", "data-key": [item.kind, ...item.args].join(" "), onclick: () => showSuggestion(item) },
        h("span", { class: "kind" }, item.kind), " ", item.summary))) : [h("li", { class: "hint" }, "nothing to resolve in this phase")]));
  });

  function showSuggestion(item) {
    showAsked(item, "suggested");
  }

  function showAsked(item, how) {
    state.overriding = null; // the card on show is replaced: nothing on it holds still any more
    state.reporting = null;
    state.fromSuggest = true;
    state.question = { action: item.kind, args: item.args };
    // The map follows the card: the item's first two ids are highlighted and its measured pair
    // is the line drawn.
    const known = knownIds();
    const ids = item.args.filter((x) => known.has(x));
    state.select = ids[0] || null;
    state.target = ids[1] || null;
    state.line = pairOf(item.result);
    markPicked();
    showLiveView();
    refreshMap();
    $("pick").textContent = state.select ? `${[state.select, state.target].filter(Boolean).join(" and ")}: ${how === "asked" ? "asked" : "from the suggestion"}; click a base to start again.` : "Click a base, then another.";
    showAsk();
    $("question").replaceChildren(h("p", null, `${how}: `, h("b", null, [item.kind, ...item.args].join(" "))));
    $("measure").replaceChildren();
    const question = state.question;
    $("card").replaceChildren(item.result ? card(item.result, question) : h("p", null, item.summary || "asking..."));
    $("clear").hidden = false;
    if (canChange() || !item.result) {
      // The suggest list is anybody's to read: a player asks the item alone, logged, to get
      // the log_id that Confirm needs and the form for the dice. A question asked from clicks
      // is asked here, by anybody.
      resolve(item.kind, item.args).then((answer) => {
        const current = state.question;
        if (!state.fromSuggest || questionKey(current) !== questionKey(question)) return;
        if (item.result && !Number.isInteger(answer.log_id)) return;
        if (state.overriding === questionKey(question)) return;
        if (state.reporting === questionKey(question)) return;
        showLine(pairOf(answer) || state.line);
        $("card").replaceChildren(card(answer, question));
      }).catch((error) => {
        if (!item.result && state.fromSuggest && questionKey(state.question) === questionKey(question)) {
          $("card").replaceChildren(errorBox(error));
        } else console.warn(error);
      });
    }
  }


  // ------------------------------------------------------------------------------------------
  // What the dice showed: the resolution's report form, in the sheet's own terms. Each change
  // of a value asks the server what it would change (POST /api/outcome, nothing written), and
  // Confirm sends the values with the decision: the server applies what they lead to.

  const valueWords = (v) => (v === true ? "yes" : v === false ? "no" : v === null || v === undefined ? "unset" : String(v));

  function editWords(e) {
    const what = e.scope === "game" ? e.field : `${e.target} ${e.field.replace(/_/g, " ")}`;
    return `${what}: ${valueWords(e.before)} → ${valueWords(e.after)}`;
  }

  function reportForm(reports, question) {
    const key = questionKey(question);
    const values = {};
    const controls = [];
    const preview = h("div", { class: "preview", "aria-live": "polite" });
    let previewed = [];
    for (const r of reports) {
      const label = h("span", { class: "report-label" }, r.label, source(r.source));
      let control;
      if (r.kind === "count") {
        // A count the ruleset gives no starting value for is a die's face (1 to 6): it starts
        // unset, so the form asks for it instead of sending a face no die shows, and goes no
        // lower than 1.
        const unset = !Number.isInteger(r.default);
        const bottom = unset ? 1 : 0;
        values[r.name] = unset ? null : r.default;
        const shown = h("output", { class: "count-value", "data-report": r.name }, unset ? "–" : values[r.name]);
        const step = (d) => () => {
          const top = Number.isInteger(r.maximum) ? r.maximum : Infinity;
          const now = values[r.name] === null ? bottom - (d > 0 ? 1 : 0) : values[r.name];
          values[r.name] = Math.max(bottom, Math.min(top, now + d));
          shown.textContent = values[r.name];
          changed();
        };
        control = h("span", { class: "stepper" },
          h("button", { type: "button", class: "step minus", "aria-label": `fewer ${r.name}`, onclick: step(-1) }, "−"),
          shown,
          h("button", { type: "button", class: "step plus", "aria-label": `more ${r.name}`, onclick: step(1) }, "+"),
          Number.isInteger(r.maximum) ? h("span", { class: "hint" }, ` of ${r.maximum}`) : null);
      } else if (r.kind === "flag") {
        values[r.name] = r.default === true;
        const button = h("button", {
          type: "button", class: "toggle", "data-report": r.name, "aria-pressed": String(values[r.name]),
          onclick: () => {
            values[r.name] = !values[r.name];
            button.setAttribute("aria-pressed", String(values[r.name]));
            button.textContent = values[r.name] ? "yes" : "no";
            changed();
          },
        }, values[r.name] ? "yes" : "no");
        control = button;
      } else if (r.kind === "choice") {
        values[r.name] = typeof r.default === "string" ? r.default : null;
        const select = h("select", { "data-report": r.name, "aria-label": r.label,
          onchange: () => { values[r.name] = select.value || null; changed(); } },
        h("option", { value: "" }, "choose…"),
        r.choices.map((c) => h("option", { value: c, selected: c === values[r.name] }, c)));
        control = select;
      } else {
        values[r.name] = Array.isArray(r.default) ? [...r.default] : [];
        control = h("span", { class: "base-picks" }, r.bases.map((b) => {
          const box = h("input", { type: "checkbox", value: b, checked: values[r.name].includes(b),
            onchange: () => {
              values[r.name] = r.bases.filter((x) => x === b ? box.checked : values[r.name].includes(x));
              changed();
            } });
          return h("label", { class: "base-pick" }, box, ` ${b}`);
        }));
      }
      controls.push(h("div", { class: "report", "data-report": r.name }, label, control));
    }
    const missing = () => {
      const open = reports.filter((r) => values[r.name] === null || values[r.name] === undefined).map((r) => r.name);
      return open.length ? `say what the dice showed first: ${open.join(", ")}` : "";
    };
    let asked = 0;
    async function changed() {
      state.reporting = key;
      if (missing()) {
        preview.replaceChildren(h("p", { class: "hint" }, missing()));
        previewed = [];
        return;
      }
      const mine = ++asked;
      try {
        const answer = await post("/api/outcome", { action: question.action, args: question.args, result: values });
        if (mine !== asked) return;
        previewed = answer.edits || [];
        preview.replaceChildren(previewed.length
          ? h("div", null, h("p", { class: "hint" }, "Confirm will apply:"),
            h("ul", { class: "will-apply" }, previewed.map((e) => h("li", null, editWords(e)))))
          : h("p", { class: "hint" }, "this changes nothing the sheet keeps"));
      } catch (error) {
        if (mine === asked) preview.replaceChildren(h("p", { class: "error" }, error.message));
      }
    }
    const el = h("form", { class: "report-form", onsubmit: (event) => event.preventDefault() },
      h("h4", null, "what the dice showed"), controls, preview);
    if (canChange()) setTimeout(changed, 0);
    return {
      el,
      values: () => JSON.parse(JSON.stringify(values)),
      complete: () => !missing(),
      missing,
      preview: () => previewed,
    };
  }

  /** One row of the override form: a previewed change whose value the table may set. */
  function overrideRow(e) {
    const field = state.game && state.game.fields ? state.game.fields[e.field] : null;
    const use = h("input", { type: "checkbox", checked: true, "aria-label": `set ${e.target} ${e.field}` });
    let input;
    if (typeof e.after === "boolean") {
      input = h("input", { type: "checkbox", checked: e.after });
    } else if (Number.isInteger(e.after)) {
      input = h("input", { type: "number", min: 0, step: 1, value: e.after, class: "num" });
    } else if (field && field.choices && field.choices.length) {
      input = h("select", null, field.choices.map((c) => h("option", { value: c, selected: c === e.after }, c)));
    } else {
      input = h("input", { type: "text", value: e.after === null ? "" : String(e.after) });
    }
    const el = h("label", { class: "override-change" }, use, ` ${e.target} ${e.field.replace(/_/g, " ")} `, input);
    const change = () => {
      if (!use.checked) return null;
      let value;
      if (input.type === "checkbox") value = input.checked;
      else if (input.type === "number") value = parseInt(input.value, 10);
      else value = input.value;
      return { [e.scope]: e.scope === "game" ? "game" : e.target, field: e.field, value };
    };
    return { el, change };
  }

  // ------------------------------------------------------------------------------------------
  // The game in play: turn, phase and who acts, each unit's state, undo, end and new game.

  let lastState = 0;

  const loadState = singleFlight(async () => {
    lastState = Date.now();
    let game;
    try {
      game = await api("/api/state");
    } catch (error) {
      $("game-msg").textContent = plainText(error.message);
      return;
    }
    const before = state.game;
    state.game = game;
    showGame(game);
    const settled = phaseSettled(game.phase, false);
    if (before && (before.turn !== game.turn || before.phase !== game.phase) && game.phase !== state.phase && settled) {
      showPhases(state.phases.length ? state.phases : game.phases.map((p) => p.name), game.phase);
    }
    showUnit();
  }, 250);

  function phaseInfo(game, name) {
    return (game.phases || []).find((p) => p.name === name) || { name };
  }

  function showGame(game) {
    $("game-id").textContent = `game ${game.game}${game.resumed ? " (resumed)" : ""}${game.ended ? ", ended" : ""}`;
    $("turn").textContent = `Turn ${game.turn}`;
    const info = phaseInfo(game, game.phase);
    $("phase-title").replaceChildren(game.phase ? h("span", { class: "phase-now", title: info.quote ? `“${info.quote}” (${info.source})` : null },
      `· ${info.title || game.phase}`) : "");
    const acting = game.acting_sides && game.acting_sides.length ? game.acting_sides.join(", ") : "";
    $("acting").textContent = game.acting ? `acting: ${game.acting === "all" ? "every side" : `side ${game.acting}`}${acting ? ` (${acting})` : ""}` : "";
    $("sides-rule").textContent = plainText(game.sides_rule || "");
    const undo = game.undo;
    $("undo").textContent = undo ? `Undo ${undoWords(undo)}` : "Undo";
    $("undo").dataset.can = undo ? "yes" : "no";
    $("next-phase").dataset.can = game.phase && !game.ended ? "yes" : "no";
    $("end-game").dataset.can = game.ended ? "no" : "yes";
    for (const id of ["undo", "next-phase", "end-game"]) {
      $(id).disabled = !canChange() || $(id).dataset.can !== "yes";
    }
    $("new-game").disabled = !canChange();
    showBaseLists();
  }

  /** Bases taken off the table (to put back) and bases the camera has lost (to hold where they
   * were last seen, e.g. inside a building): neither is on the map to be clicked. */
  function showBaseLists() {
    const game = state.game;
    if (!game) return;
    const removed = game.removed || [];
    const missing = (state.missing || []).filter((b) => !removed.includes(b));
    $("taken-off").replaceChildren(
      removed.length ? h("p", null, "taken off the table: ",
        removed.map((b) => h("span", { class: "taken" }, b, " ",
          h("button", { type: "button", class: "change quiet put-back", "data-base": b, disabled: !canChange(),
            onclick: () => setBase(b, { removed: false }) }, "put back")))) : "",
      missing.length ? h("p", null, "not seen by the camera: ",
        missing.map((b) => h("span", { class: "taken" }, b, " ",
          h("button", { type: "button", class: "change quiet hold-missing", "data-base": b, disabled: !canChange(),
            title: "keep it on the map where it was last seen", onclick: () => setBase(b, { held: true }) }, "hold")))) : "");
  }

  function undoWords(step) {
    const kinds = { set: "the value set", outcome: "the confirmed result", override: "the override", phase: "the change of phase" };
    const first = step.edits && step.edits[0] ? ` (${editWords(step.edits[0])}${step.edits.length > 1 ? ", …" : ""})` : "";
    return `${kinds[step.kind] || step.kind}${first}`;
  }

  async function gameAction(path, body, done) {
    $("game-msg").textContent = "saving...";
    try {
      const answer = await post(path, body || {});
      setPhase = null; // undone, ended or begun afresh: the server's phase from now on
      $("game-msg").textContent = done ? done(answer) : "";
      $("unit-msg").textContent = ""; // a refusal there was about the game as it stood
      state.decisions.clear();
      await loadState();
      refreshMap();
      loadSuggest();
      if (state.select && state.target && !state.fromSuggest) refreshAnswer();
    } catch (error) {
      $("game-msg").textContent = plainText(error.message);
    }
  }

  /** The phase after the one the sequence of play shows as current. Clicks are taken one after
   * another, each from the phase the last one set: the game's state (`state.game`) is read again
   * only after a phase is saved, so moving on from it would lose a click made meanwhile. */
  let phaseChange = Promise.resolve();

  function nextPhase() {
    phaseChange = phaseChange.then(() => {
      const game = state.game;
      if (!game || !game.phase) return undefined;
      const names = (game.phases || []).map((p) => p.name);
      const current = names.includes(state.phase) ? state.phase : game.phase;
      return choosePhase(names[(names.indexOf(current) + 1) % names.length]);
    });
  }

  /** The unit of the selected base, its state as buttons built from the ruleset's fields. */
  function showUnit() {
    const game = state.game;
    const panel = $("unit-panel");
    const base = state.panel;
    const unitId = game && base ? (game.bases || {})[base] || (game.units[base] ? base : null) : null;
    if (!game || !unitId || !game.units[unitId]) {
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    $("unit-name").textContent = unitId === base ? unitId : `${unitId} (base ${base})`;
    const values = game.units[unitId];
    const rows = [];
    for (const [name, field] of Object.entries(game.fields || {})) {
      const value = values[name];
      const title = field.quote ? `“${field.quote}” (${field.source})` : field.source;
      const label = h("span", { class: "field-label", title }, field.label || name.replace(/_/g, " "));
      let control;
      if (field.kind === "count") {
        const now = Number.isInteger(value) ? value : 0;
        control = h("span", { class: "stepper" },
          h("button", { type: "button", class: "change step minus", "aria-label": `${name} minus one`, disabled: !canChange() || now <= 0,
            onclick: () => setUnitState(unitId, { [name]: now - 1 }) }, "−"),
          h("output", { class: "count-value", "data-field": name }, now),
          h("button", { type: "button", class: "change step plus", "aria-label": `${name} plus one`, disabled: !canChange(),
            onclick: () => setUnitState(unitId, { [name]: now + 1 }) }, "+"));
      } else if (field.kind === "flag") {
        control = h("button", { type: "button", class: "change toggle", "data-field": name, "aria-pressed": String(value === true),
          disabled: !canChange(), onclick: () => setUnitState(unitId, { [name]: !(value === true) }) }, value === true ? "yes" : "no");
      } else {
        const select = h("select", { class: "change", "data-field": name, "aria-label": name, disabled: !canChange(),
          onchange: () => setUnitState(unitId, { [name]: select.value }) },
        value === undefined || value === null ? h("option", { value: "" }, "not set") : null,
        (field.choices || []).map((c) => h("option", { value: c, selected: c === value }, c)));
        control = select;
      }
      rows.push(h("div", { class: "field", "data-field": name }, label, control));
    }
    $("unit-fields").replaceChildren(...(rows.length ? rows : [h("p", { class: "hint" }, "this sheet keeps no state for units")]));
    const actions = [];
    if (base && (game.bases || {})[base]) {
      const held = (game.held || []).includes(base);
      actions.push(
        h("button", { type: "button", class: "change quiet take-off", disabled: !canChange(),
          onclick: () => setBase(base, { removed: true }) }, `take ${base} off the table`),
        h("button", { type: "button", class: "change quiet hold", "aria-pressed": String(held), disabled: !canChange(),
          title: "keep it on the map where it was last seen while the camera cannot see it (inside a building)",
          onclick: () => setBase(base, { held: !held }) }, held ? `stop holding ${base}` : `hold ${base} in place`));
    }
    $("base-actions").replaceChildren(...actions);
  }

  async function setUnitState(unit, values) {
    await changeState({ unit, set: values }, $("unit-msg"));
  }

  async function setBase(base, values) {
    await changeState({ base, set: values }, $("game-msg"));
  }

  async function changeState(body, message) {
    message.textContent = "saving...";
    try {
      await post("/api/state", body);
      message.textContent = "";
      await loadState();
      refreshMap();
      if (state.select && state.target && !state.fromSuggest) refreshAnswer();
    } catch (error) {
      message.textContent = plainText(error.message);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Dispute snapshots

  async function takeSnapshot() {
    const button = $("snap");
    button.disabled = true;
    $("snap-msg").textContent = "saving...";
    try {
      const saved = await post("/api/snapshot", state.question || {});
      $("snap-msg").textContent = `saved ${saved.id}`;
      await loadSnapshots();
    } catch (error) {
      $("snap-msg").textContent = plainText(error.message);
    } finally {
      button.disabled = !canChange();
    }
  }

  async function loadSnapshots() {
    const answer = await api("/api/snapshots");
    const list = Array.isArray(answer) ? answer : answer.snapshots || [];
    const newest = [...list].sort((a, b) => (b.created || 0) - (a.created || 0));
    $("snapshots").replaceChildren(...(newest.length ? newest.map((s) => {
      const id = encodeURIComponent(s.id);
      const when = typeof s.created === "number" ? new Date(s.created * 1000).toLocaleTimeString() : s.created || "";
      const asked = s.question ? `${s.question.action} ${(s.question.args || []).join(" ")}` : "the table";
      return h("li", { class: "snapshot", "data-id": s.id },
        h("span", { class: "snap-id" }, s.id), " ", h("span", { class: "hint" }, when), " ",
        h("span", { class: "snap-question" }, asked), " ",
        h("a", { href: `/snapshots/${id}.png`, target: "_blank" }, "picture"), " ",
        h("a", { href: `/snapshots/${id}.json`, target: "_blank" }, "answer"));
    }) : [h("li", { class: "hint" }, "none yet")]));
  }

  // ------------------------------------------------------------------------------------------

  async function start() {
    startAccess().catch((error) => console.warn(error));
    await loadSheets();
    $("map").addEventListener("pointerdown", onMapDown);
    $("map").addEventListener("pointerup", onMapUp);
    $("map").addEventListener("pointermove", onMapMove);
    $("map").addEventListener("pointercancel", (event) => {
      pointers.delete(event.pointerId);
      pinch = null;
      pressed = null;
    });
    $("map").addEventListener("wheel", onMapWheel, { passive: false });
    $("zoom-in").addEventListener("click", () => zoomCentre(1.5));
    $("zoom-out").addEventListener("click", () => zoomCentre(1 / 1.5));
    $("zoom-reset").addEventListener("click", () => {
      zoom.view = null;
      applyZoom();
    });
    $("clear").addEventListener("click", () => {
      state.select = null;
      state.panel = null;
      state.target = null;
      state.fromSuggest = false;
      afterPick();
    });
    $("snap").addEventListener("click", takeSnapshot);
    $("replay-play").addEventListener("click", () => replayDo({ do: "play" }));
    $("replay-pause").addEventListener("click", () => replayDo({ do: "pause" }));
    $("replay-step").addEventListener("click", () => replayDo({ do: "step" }));
    $("replay-speed").addEventListener("change", () => replayDo({ speed: Number($("replay-speed").value) }));
    $("next-photo").addEventListener("click", nextPhoto);
    $("next-phase").addEventListener("click", nextPhase);
    $("undo").addEventListener("click", () => gameAction("/api/state/undo", {}, (a) => `undone (step ${a.undone})`));
    $("end-game").addEventListener("click", () => {
      if (window.confirm("End this game? It is closed in the log; a new game starts from the game file.")) {
        gameAction("/api/game/end", {}, (a) => `game ${a.game} ended`);
      }
    });
    $("new-game").addEventListener("click", () => {
      if (window.confirm("Start a new game from the game file? This game is ended.")) {
        gameAction("/api/game/new", {}, (a) => `game ${a.game} started`);
      }
    });
    for (const input of document.querySelectorAll('#unit-switch input[name="unit"]')) {
      input.addEventListener("change", () => setUnit(input.value));
    }
    listen();
    try {
      showStatus(await api("/api/status"));
    } catch (error) {
      $("st-error").hidden = false;
      $("st-error").textContent = plainText(error.message);
    }
    refreshMap();
    loadState();
    loadReplay();
    loadSnapshots().catch((error) => console.warn(error));
  }

  start();
})();
