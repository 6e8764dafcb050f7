/* The lessons' self-checks on the course website, with no kernel.
 *
 * scripts/site_live.py exports each lesson's check book (windowmem.explorer.check_site) to
 * _static/windowmem/<lesson>_checks.js: for every check, the feedback lines the notebook's
 * check() prints for the expected answer and each foreseen mistake, keyed by a hash of the
 * answer's key, and which forms of an answer the book forgives. This file reads what the
 * learner typed as the notebook would get it (a Python literal if it is one, else the text),
 * writes its key the way check_site.answer_key does, and shows the line stored for it.
 * tests/browser/test_site_live_browser.py holds it to the notebook's feedback.
 */
(function () {
  "use strict";

  // ---- reading the typed text as check_site.site_answer does (ast.literal_eval) -------

  const TOKEN = /\s*(?:([+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)|'([^'\\\n]*)'|"([^"\\\n]*)"|(True|False|None)\b|([[\](),]))/y;

  /** The Python literal *text* writes ({t, v}), or null when it is not one. */
  function literal(text) {
    const tokens = [];
    TOKEN.lastIndex = 0;
    let at = 0;
    while (at < text.length) {
      TOKEN.lastIndex = at;
      const m = TOKEN.exec(text);
      if (!m) return /^\s*$/.test(text.slice(at)) ? finish() : null;
      at = TOKEN.lastIndex;
      if (m[1] !== undefined) {
        if (/^[+-]?0\d/.test(m[1]) && !/[.eE]/.test(m[1])) return null; // Python refuses 007
        tokens.push({ t: "n", v: Number(m[1]) });
      } else if (m[2] !== undefined || m[3] !== undefined) tokens.push({ t: "s", v: m[2] ?? m[3] });
      else if (m[4] !== undefined) tokens.push(m[4] === "None" ? { t: "none" } : { t: "b", v: m[4] === "True" });
      else tokens.push({ p: m[5] });
    }
    return finish();

    function finish() {
      let i = 0;
      const item = () => {
        const token = tokens[i];
        if (!token) throw new Error("end");
        i += 1;
        if (token.p === "[" || token.p === "(") {
          const close = token.p === "[" ? "]" : ")";
          const { items, comma } = sequence(close);
          if (!tokens[i] || tokens[i].p !== close) throw new Error("unclosed");
          i += 1;
          // (3) is 3; (3,) and [3] are sequences.
          return close === ")" && items.length === 1 && !comma ? items[0] : { t: "l", v: items };
        }
        if (token.p) throw new Error("stray");
        return token;
      };
      const sequence = (close) => {
        const items = [];
        let comma = false;
        while (tokens[i] && tokens[i].p !== close) {
          items.push(item());
          if (tokens[i] && tokens[i].p === ",") {
            comma = true;
            i += 1;
          } else break;
        }
        return { items, comma };
      };
      try {
        const { items, comma } = sequence("end");
        if (i !== tokens.length || !items.length) return null;
        return comma ? { t: "l", v: items } : items[0];
      } catch (error) {
        return null;
      }
    }
  }

  /** check_site.site_answer: the literal, or the text itself; null for nothing typed. */
  function siteAnswer(text) {
    const stripped = text.trim();
    if (!stripped) return null;
    return literal(stripped) || { t: "s", v: stripped };
  }

  // ---- the forms a forgiving book reads (asked of the book at build time) ------------

  /** check_site.fold: case, repeated spaces, a trailing period and a leading "the" left out. */
  function fold(text) {
    const folded = text.split(/\s+/).filter(Boolean).join(" ").toLowerCase().replace(/\.+$/, "").trim();
    return folded.startsWith("the ") ? folded.slice(4) : folded;
  }

  const DIGITS = /^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/;
  const SCALES = { thousand: 1000, million: 1000000 };

  /** A number written in digits or (with *words*) in words, or null. */
  function numberFromText(text, words) {
    let folded = fold(text);
    // answer_forms.number_from_text: a dollar or number sign in front is form, not substance.
    for (const sign of ["us$", "$", "#"]) {
      if (folded.startsWith(sign)) {
        folded = folded.slice(sign.length).trim();
        break;
      }
    }
    if (DIGITS.test(folded)) return Number(folded.replace(/,/g, ""));
    const parts = folded.split(/[\s-]+/).filter((w) => w && w !== "and");
    if (!parts.length) return null;
    let total = 0;
    let group = 0;
    for (const word of parts) {
      if (Object.prototype.hasOwnProperty.call(words, word)) group += words[word];
      else if (word === "hundred" && Object.keys(words).length) group = (group || 1) * 100;
      else if (SCALES[word] && Object.keys(words).length) {
        total += (group || 1) * SCALES[word];
        group = 0;
      } else return null;
    }
    return total + group;
  }

  function listFromText(text, words) {
    const items = text.trim().replace(/^[[\]()]+|[[\]()]+$/g, "").split(/[\s,;]+/).filter(Boolean);
    const numbers = items.map((item) => numberFromText(item, words));
    return items.length > 1 && numbers.every((n) => n !== null) ? numbers.map((v) => ({ t: "n", v })) : null;
  }

  const YES = new Set(["yes", "true", "y"]);
  const NO = new Set(["no", "false", "n"]);

  /** check_site.answer_key, with the forms the book forgives read from the typed text. */
  function answerKey(value, kind, forms, words) {
    const named = forms.words ? words : {};
    if (kind === "bool") {
      if (value.t === "b") return value.v ? "bTrue" : "bFalse";
      if (value.t === "s" && forms.yes) {
        const folded = fold(value.v);
        if (YES.has(folded)) return "bTrue";
        if (NO.has(folded)) return "bFalse";
      }
      return null;
    }
    if (kind === "number") {
      if (value.t === "n") return `n${value.v}`;
      if (value.t === "s" && forms.text) {
        const n = numberFromText(value.v, named);
        return n === null ? null : `n${n}`;
      }
      return null;
    }
    if (kind === "text") {
      return value.t === "s" ? `s${forms.fold ? fold(value.v) : value.v}` : null;
    }
    let items = value.t === "l" ? value.v : null;
    if (value.t === "s" && forms.text) items = listFromText(value.v, named);
    if (!items) return null;
    const keys = items.map((item) => answerKey(item, kind.slice(0, -1), forms, words));
    if (keys.includes(null)) return null;
    // A set written as a list (Expectation.any_order): sorted as Python's sorted() sorts them.
    if (forms.any_order) keys.sort();
    return `l[${keys.join(",")}]`;
  }

  /** check_site.fnv1a: 32-bit FNV-1a over UTF-16 code units, in hex. */
  function fnv1a(text) {
    let hash = 0x811c9dc5;
    for (let i = 0; i < text.length; i += 1) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    return hash.toString(16).padStart(8, "0");
  }

  /** The line the notebook's check() prints for *text*. */
  function feedback(book, checkId, text) {
    const check = book.checks[checkId];
    const value = siteAnswer(text);
    if (value === null || value.t === "none") return check.unanswered;
    const key = answerKey(value, check.kind, check.forms, book.words);
    if (key === null) return check.form;
    const line = check.answers[fnv1a(key)];
    return line === undefined ? check.hint : line;
  }

  function start(form) {
    const book = (window.WM_CHECKS || {})[form.dataset.lesson];
    if (!book || !book.checks[form.dataset.check]) return;
    const input = form.querySelector("input");
    const output = form.querySelector("output");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      output.textContent = feedback(book, form.dataset.check, input.value);
    });
    form.classList.add("wm-site-live");
  }

  window.wmCheckFeedback = (lesson, checkId, text) => feedback(window.WM_CHECKS[lesson], checkId, text);

  function startAll() {
    for (const form of document.querySelectorAll("form.wm-site-check")) start(form);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", startAll);
  else startAll();
})();
