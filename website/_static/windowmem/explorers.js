/* The lessons' explorers on the course website, with no kernel.
 *
 * windowmem computed every state of each explorer's controls when the site was built
 * (scripts/site_live.py writes them to _static/windowmem/<lesson>_explorer.js, which
 * registers them in window.WM_EXPLORERS). This file only draws them: the same HTML as
 * the Python views (windowmem.explorer.window_html and budget_html), with the styles
 * those modules export. tests/browser/test_site_live_browser.py compares the two. Plain
 * script, no modules and no fetch, so it works from file:// as well as over http.
 */
(function () {
  "use strict";

  const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };

  /** Python's html.escape(text). */
  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
  }

  /** Python's f"{n:,}" for an integer. */
  function commas(n) {
    const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return n < 0 ? "-" + digits : digits;
  }

  /** Python's f"{x:.2f}" for x >= 0: toFixed, except that an exact tie rounds to even. */
  function fixed2(x) {
    const hundredths = x * 100;
    if (Number.isInteger(x * 8) && !Number.isInteger(hundredths)) {
      // x is k/8 with k odd: exactly halfway between two hundredths.
      const low = Math.floor(hundredths);
      return ((low % 2 === 0 ? low : low + 1) / 100).toFixed(2);
    }
    return x.toFixed(2);
  }

  /** Flat [first, count, ...] runs back to the numbers they hold. */
  function unrun(runs) {
    const out = [];
    for (let i = 0; i < runs.length; i += 2) {
      for (let k = 0; k < runs[i + 1]; k += 1) out.push(runs[i] + k);
    }
    return out;
  }

  /** windowmem.turn_ranges.turn_runs: "2–6", "1–3, 5" or "none". */
  function turnRuns(turns) {
    const sorted = [...new Set(turns)].sort((a, b) => a - b);
    const spans = [];
    for (const t of sorted) {
      if (spans.length && t === spans[spans.length - 1][1] + 1) spans[spans.length - 1][1] = t;
      else spans.push([t, t]);
    }
    if (!spans.length) return "none";
    return spans.map(([a, b]) => (a === b ? String(a) : `${a}\u2013${b}`)).join(", ");
  }

  // ---- the window explorer (lesson 3): window_view + render_window_html -------------

  /** What window_view computes for one state, from the stored row and the live fact. */
  function windowView(data, name, window, turn, fact) {
    const conversation = data.conversations[name];
    const row = conversation.states[conversation.windows[window][turn - 1]];
    const [visibleRuns, partialRuns, sentRuns, inWindow, tokens, bill] = row;
    const visible = unrun(visibleRuns);
    const partial = new Set(unrun(partialRuns));
    const visibleSet = new Set(visible);
    const evicted = [];
    for (let t = 1; t < turn; t += 1) if (!visibleSet.has(t)) evicted.push(t);
    const sent = unrun(sentRuns).map((i) => conversation.messages[i]);
    const needle = fact.trim();
    const says = (i) => conversation.messages[i][1].includes(needle);
    return {
      title: name,
      window,
      turn,
      turnCount: conversation.turn_count,
      compact: conversation.compact,
      timeline: conversation.previews.map((preview, i) => {
        const n = i + 1;
        let status = "evicted";
        if (n === turn) status = "current";
        else if (n > turn) status = "later";
        else if (partial.has(n)) status = "partial";
        else if (visibleSet.has(n)) status = "visible";
        return [n, status, preview];
      }),
      visible,
      evicted,
      sent,
      inWindow,
      tokens,
      bill,
      fact: needle,
      factVisible: needle ? sent.some((m) => m[1].includes(needle)) : null,
      factTurns: needle
        ? conversation.turns.map((ids, i) => (ids.some(says) ? i + 1 : 0)).filter((t) => t)
        : [],
    };
  }

  function renderWindowHtml(view, s, counterName) {
    const section = (title) => `<div style="${s.section}">${title}</div>`;
    const turnWord = (turns) => (!turns.length ? "" : turns.length === 1 ? "turn " : "turns ");
    const visible = turnRuns(view.visible);
    const evicted = turnRuns(view.evicted);
    const markStyle = view.compact ? s.compact_mark : s.mark;
    const marks = view.timeline
      .map(
        ([n, status, preview]) =>
          `<span class="wm-turn wm-${status}" style="${markStyle}${s.status_style[status]}" ` +
          `title="turn ${n} (${s.status_label[status]})${view.compact ? "" : ": " + esc(preview)}">${n}</span>`
      )
      .join(" ");
    const key = Object.entries(s.status_label)
      .map(
        ([status, label]) =>
          `<span style="${s.mark}min-width:0;padding:0 5px;${s.status_style[status]}">&nbsp;</span>${label}`
      )
      .join(" &middot; ");
    const timeline =
      `<div class="wm-timeline" data-visible-turns="${esc(visible)}" style="margin:4px 0">${marks}</div>` +
      `<div class="wm-key" style="font-size:12px;color:#57606a">${key}</div>` +
      `<div>In the window: ${turnWord(view.visible)}<b class="wm-visible-turns">${esc(visible)}</b>` +
      " &middot; out of the window (n8n still stores them): " +
      `${turnWord(view.evicted)}<b class="wm-evicted-turns">${esc(evicted)}</b></div>`;
    const highlight = (text) => {
      const escaped = esc(text);
      if (!view.fact) return escaped;
      const hit = esc(view.fact);
      return escaped.split(hit).join(`<mark class="wm-hit" style="background:#fff8c5">${hit}</mark>`);
    };
    const rows = view.sent
      .map(([role, content, owner]) => {
        const isNew = owner === view.turn;
        const where =
          owner === null ? "sent beside the buffer" : isNew ? "new message" : `turn ${owner}`;
        return (
          `<tr class="${isNew ? "wm-new" : ""}" style="background:${isNew ? "#ddf4ff" : "#fff"}">` +
          `<td style="${s.cell};width:1%;font-weight:600;white-space:nowrap;color:${s.role_colour[role] || "#1f2328"}">${role}</td>` +
          `<td style="${s.cell}">${highlight(content)}</td>` +
          `<td style="${s.cell};width:1%;white-space:nowrap;color:#57606a">${where}</td></tr>`
        );
      })
      .join("");
    const messages =
      '<div class="wm-messages" tabindex="0" aria-label="the messages" style="max-height:400px;overflow:auto;border:1px solid #d0d7de;border-radius:6px">' +
      `<table style="border-collapse:collapse;table-layout:auto;width:100%;margin:0;font-size:13px">${rows}</table></div>`;
    let fact = "<div>Type a fact to follow it through the window.</div>";
    if (view.factVisible !== null) {
      const said = view.factTurns.length
        ? `said in turn ${turnRuns(view.factTurns)}`
        : "not said in this conversation";
      const verdict = view.factVisible
        ? '<b style="color:#1a7f37">the model can see it on this call</b>'
        : '<b style="color:#cf222e">the model cannot see it on this call</b>';
      fact =
        `<div class="wm-fact" data-fact-visible="${view.factVisible}">` +
        `&ldquo;${esc(view.fact)}&rdquo; (${said}): ${verdict}</div>`;
    }
    const owners = view.sent.map((m) => m[2]);
    const partsSent = [
      ["system", owners.length > 0 && owners[0] === null],
      ["buffer", view.inWindow > 0],
      ["new message", owners.length > 0 && owners[owners.length - 1] === view.turn],
    ]
      .filter(([, present]) => present)
      .map(([part]) => part)
      .join(" + ");
    const figure = (label, number, note, css) =>
      `<div style="${s.figure}">${label}<b class="${css}" style="${s.number}">${number}</b>${note}</div>`;
    const figures =
      figure(
        "messages loaded from the buffer",
        String(view.inWindow),
        `from <span class="wm-interactions-in-window">${view.visible.length}</span> interaction(s)`,
        "wm-messages-in-window"
      ) +
      figure("messages sent on this call", String(view.sent.length), partsSent, "") +
      figure(`${esc(counterName)} this call`, commas(view.tokens), "", "wm-tokens-this-call") +
      figure(`running input tokens, turns 1&ndash;${view.turn}`, commas(view.bill), "", "wm-running-bill");
    const headline =
      `<b>${esc(view.title || "conversation")}</b>: Context Window Length <b>${view.window}</b>` +
      `${view.window === 0 ? " (0 loads every message)" : ""}, answering turn <b>${view.turn}</b> of ${view.turnCount}`;
    return (
      `<div class="wm-explorer" data-window="${view.window}" data-turn="${view.turn}" style="${s.root}">` +
      `<div style="${s.headline}">${headline}</div>` +
      `${section("Timeline")}${timeline}` +
      `${section("Messages and interactions")}<div>${figures}</div>` +
      `${section("Fact")}${fact}` +
      `${section("The message array the model receives")}${messages}` +
      "</div>"
    );
  }

  // ---- the token-budget explorer (lesson 6): budget_view + render_budget_html --------

  function budgetView(data, budget, choice, step) {
    const run = data.runs[choice][data.budgets.indexOf(budget)];
    const [finalInput, finalAnswered, steps] = run;
    const row = steps[step];
    const [number, event, detail, entryList, used, scale, held, input, calls, reads, compactions] = row;
    return {
      corpus: data.corpus,
      budget,
      choice,
      step: number,
      stepCount: steps.length,
      event: data.texts[event],
      detail: data.texts[detail],
      entries: data.entry_lists[entryList].map((i) => {
        const [kind, tokens, label, facts] = data.entries[i];
        return { kind, tokens, label: data.texts[label], facts };
      }),
      used,
      scale,
      questions: data.questions,
      held,
      input,
      calls,
      reads,
      compactions,
      finalInput,
      finalAnswered,
    };
  }

  function renderBudgetHtml(view, s) {
    const colour = (kind, holdsAFact) =>
      kind === "read" && !holdsAFact ? s.factless_read : s.segment_colour[kind];
    const section = (title) => `<h4 style="${s.section}">${title}</h4>`;
    let left = 0;
    const segments = view.entries
      .map((entry) => {
        const factless = entry.kind === "read" && !entry.facts.length ? " wm-nofact" : "";
        const html =
          `<div class="wm-seg wm-seg-${entry.kind}${factless}" style="${s.segment};` +
          `left:${fixed2((100 * left) / view.scale)}%;width:${fixed2((100 * entry.tokens) / view.scale)}%;` +
          `background:${colour(entry.kind, entry.facts.length > 0)}"` +
          ` title="${esc(entry.label)}: ${entry.tokens} tokens"></div>`;
        left += entry.tokens;
        return html;
      })
      .join("");
    const limit =
      `<div class="wm-limit" style="${s.limit};left:${fixed2((100 * view.budget) / view.scale)}%" ` +
      `title="budget: ${view.budget} tokens"></div>`;
    const key = s.key
      .map(
        ([kind, extra, label]) =>
          `<span style="margin-right:12px"><i class="wm-seg-${kind}${extra}" ` +
          `style="${s.key_swatch};background:${colour(kind, !extra)}"></i>${label}</span>`
      )
      .join("");
    const bar =
      `<div class="wm-bar" data-used="${view.used}" data-budget="${view.budget}" style="${s.bar}">` +
      `${segments}${limit}</div>` +
      `<div class="wm-bar-key">${key}<span>dashed red line: the budget</span></div>`;
    const figure = (label, number, note, css, over) =>
      `<div class="${over ? "wm-figure wm-over" : "wm-figure"}" style="${s.figure}">${label}` +
      `<b class="${css}" style="${over ? `${s.number};${s.over}` : s.number}">${number}</b>${note}</div>`;
    const over = view.used > view.budget;
    const size = view.questions.length;
    const figures =
      '<div class="wm-figures">' +
      figure(
        "call's size / budget",
        `${commas(view.used)} / ${commas(view.budget)}`,
        over ? "over budget: the policy acts next" : "tokens",
        "wm-used",
        over
      ) +
      figure("facts held", `${view.held.length} / ${size}`, "questions answerable now", "wm-facts-held", false) +
      figure(
        "input bill so far",
        commas(view.input),
        `${view.calls} call(s), ${view.reads} read(s), ${view.compactions} compaction(s)`,
        "wm-running-bill",
        false
      ) +
      figure(
        "whole task",
        commas(view.finalInput),
        `${view.finalAnswered} of ${size} answered at the end`,
        "wm-final-bill",
        false
      ) +
      "</div>";
    const held = new Set(view.held);
    const dots = view.questions
      .map((q, i) => {
        const n = i + 1;
        return (
          `<span class="wm-dot ${held.has(n) ? "wm-held" : "wm-gone"}" ` +
          `style="${s.dot};${held.has(n) ? s.held : s.gone}" title="Q${n}: ${esc(q)}">Q${n}</span>`
        );
      })
      .join("");
    const header = ["entry", "what", "tokens", "facts"].map((name) => `<th style="${s.cell}">${name}</th>`).join("");
    const rows = view.entries
      .map(
        (e) =>
          `<tr><td style="${s.cell}">${e.kind}</td><td style="${s.cell}">${esc(e.label)}</td>` +
          `<td class="wm-num" style="${s.cell};text-align:right">${e.tokens}</td>` +
          `<td style="${s.cell}">${e.facts.map((n) => `Q${n}`).join(", ") || "\u2014"}</td></tr>`
      )
      .join("");
    const entries =
      `<div class="wm-entries" tabindex="0" aria-label="the context's entries" style="${s.entries}"><table style="${s.table}"><tr>${header}</tr>` +
      `${rows}</table></div>`;
    const headline =
      `<b>${esc(view.corpus)}</b> task, policy <b>${esc(view.choice)}</b>, budget ` +
      `<b>${commas(view.budget)}</b> tokens \u00b7 step <b>${view.step}</b> of ${view.stepCount - 1}: ` +
      `<i>${esc(view.event)}</i>, ${esc(view.detail)}`;
    return (
      `<div class="wm-budget" data-budget="${view.budget}" data-step="${view.step}" ` +
      `data-choice="${esc(view.choice)}" style="${s.root}">` +
      `<div class="wm-headline" style="${s.headline}">${headline}</div>` +
      section("The call's size against the budget") +
      bar +
      figures +
      section("Facts the window holds") +
      `<div class="wm-dots">${dots}</div>` +
      section("What the call carries: system prompt, task text, window") +
      entries +
      "</div>"
    );
  }

  // ---- controls ----------------------------------------------------------------------

  let controlCount = 0;

  /** A labelled control: <label for=…>text</label> then the element, in one span. */
  function labelled(text, element, css) {
    controlCount += 1;
    element.id = `wm-control-${controlCount}`;
    element.classList.add(css);
    const label = document.createElement("label");
    label.htmlFor = element.id;
    label.textContent = text;
    const box = document.createElement("span");
    box.className = "wm-site-control";
    box.append(label, element);
    return box;
  }

  function slider(min, max, value, step) {
    const input = document.createElement("input");
    input.type = "range";
    input.min = String(min);
    input.max = String(max);
    input.step = String(step || 1);
    input.value = String(value);
    return input;
  }

  /** A slider with its value written beside it (the widgets show theirs too). */
  function sliderWithValue(text, input, css) {
    const box = labelled(text, input, css);
    const shown = document.createElement("output");
    shown.className = "wm-site-value";
    shown.htmlFor = input.id;
    const update = () => {
      shown.textContent = input.value;
    };
    input.addEventListener("input", update);
    input.wmUpdate = update;
    update();
    box.append(shown);
    return box;
  }

  function select(options, value) {
    const element = document.createElement("select");
    for (const option of options) element.add(new Option(option, option));
    element.value = value;
    return element;
  }

  function show(output, html) {
    output.wmHtml = html;
    output.innerHTML = html;
  }

  function windowExplorer(root, data, controls, output) {
    const names = Object.keys(data.conversations);
    const conversation = select([...names, data.own], data.start);
    const fact = document.createElement("input");
    fact.type = "text";
    fact.value = data.fact;
    fact.placeholder = "e.g. #6023";
    const windowSlider = slider(0, data.max_window, data.window);
    const first = data.conversations[data.start];
    const turn = slider(1, first.turn_count, Math.min(Math.max(data.turn, 1), first.turn_count));
    controls.append(
      labelled("Conversation", conversation, "wm-conversation"),
      labelled("Fact", fact, "wm-fact-text"),
      sliderWithValue("Window length", windowSlider, "wm-window"),
      sliderWithValue("Turn", turn, "wm-turn-slider")
    );
    const refresh = () => {
      if (conversation.value === data.own) {
        show(output, `<div class="wm-explorer wm-needs-kernel" style="font-weight:600">${esc(data.needs_kernel)}</div>`);
        return;
      }
      const view = windowView(data, conversation.value, Number(windowSlider.value), Number(turn.value), fact.value);
      show(output, renderWindowHtml(view, data.styles, data.counter_name));
    };
    conversation.addEventListener("change", () => {
      const chosen = data.conversations[conversation.value];
      if (chosen) {
        // As the widgets do: the turn slider's range follows the conversation, and a
        // conversation with a fact of its own puts it in the fact box.
        turn.max = String(chosen.turn_count);
        turn.value = String(Math.min(Number(turn.value), chosen.turn_count));
        turn.wmUpdate();
        if (conversation.value in data.facts) fact.value = data.facts[conversation.value];
      }
      refresh();
    });
    for (const control of [windowSlider, turn, fact]) control.addEventListener("input", refresh);
    root.wmState = (name, w, t, f) => renderWindowHtml(windowView(data, name, w, t, f), data.styles, data.counter_name);
    refresh();
  }

  function budgetExplorer(root, data, controls, output) {
    const budgets = data.budgets;
    const budget = slider(budgets[0], budgets[budgets.length - 1], data.budget, budgets[1] - budgets[0]);
    const policy = select(Object.keys(data.runs), data.choice);
    const last = () => data.runs[policy.value][budgets.indexOf(Number(budget.value))][2].length - 1;
    const step = slider(0, last(), data.step === null ? last() : Math.min(data.step, last()));
    controls.append(
      sliderWithValue("Budget (tokens)", budget, "wm-budget-slider"),
      labelled("Policy", policy, "wm-policy"),
      sliderWithValue("Step", step, "wm-step-slider")
    );
    const refresh = () => {
      const view = budgetView(data, Number(budget.value), policy.value, Math.min(Number(step.value), last()));
      show(output, renderBudgetHtml(view, data.styles));
    };
    let stepMax = Number(step.max);
    const onRunChange = () => {
      // As the widgets do: a slider left at the end stays at the end.
      const atEnd = Number(step.value) === stepMax;
      stepMax = last();
      step.max = String(stepMax);
      step.value = String(atEnd ? stepMax : Math.min(Number(step.value), stepMax));
      step.wmUpdate();
      refresh();
    };
    budget.addEventListener("input", onRunChange);
    policy.addEventListener("change", onRunChange);
    step.addEventListener("input", refresh);
    root.wmState = (b, c, k) => renderBudgetHtml(budgetView(data, b, c, k), data.styles);
    refresh();
  }

  const KINDS = { window: windowExplorer, budget: budgetExplorer };

  function start(root) {
    const data = (window.WM_EXPLORERS || {})[root.dataset.explorer];
    const output = root.querySelector(".wm-site-output");
    if (!data || !KINDS[data.kind]) return; // the snapshot stays
    const controls = root.querySelector(".wm-site-controls");
    KINDS[data.kind](root, data, controls, output);
    root.classList.add("wm-site-live");
  }

  function startAll() {
    for (const root of document.querySelectorAll(".wm-site-explorer")) start(root);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", startAll);
  else startAll();
})();
