// The page of mcp-elicit's web renderer: draws the prompts the local server holds and sends
// back what the person chose. It checks nothing itself: every message about an answer comes
// from the server, which reads the values with the same form model as the terminal.
// Everything a server wrote is put in the page as text (textContent), never as markup.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const current = $("current");
  const queueSection = $("queue");
  const queueHeading = $("queue-heading");
  const queueList = $("queue-list");
  const said = $("said");
  const noticeList = $("notices");
  const connection = $("connection");

  // The page's words in the page's language: the server puts the translations this script
  // needs in #strings (a JSON data block, never run); a word missing there shows as written.
  const STRINGS = JSON.parse(($("strings") || {}).textContent || "{}");
  const _ = (text) => STRINGS[text] || text;
  // A template's {fields}, filled: with text (fmt), or with nodes, such as a server's name in
  // its own span (fill), so that each language keeps its own word order.
  const FIELD = /\{(\w+)\}/g;
  const fmt = (template, values) => template.replace(FIELD, (m, k) => (k in values ? String(values[k]) : m));
  function fill(template, nodes) {
    const out = [];
    let last = 0;
    for (const m of template.matchAll(FIELD)) {
      out.push(template.slice(last, m.index), m[1] in nodes ? nodes[m[1]] : m[0]);
      last = m.index + m[0].length;
    }
    out.push(template.slice(last));
    return out.filter((part) => part !== "");
  }
  const serverName = (prompt) => h("span", { class: "server", text: prompt.server });

  const state = {
    version: -1,
    prompts: [],
    shown: null, // the id of the prompt drawn in #current ("" for the empty page)
    answered: new Set(), // ids this page answered (so their going is not news)
    notices: new Set(),
    closed: false,
    busy: false,
  };

  // -- building the document -------------------------------------------------------------

  function h(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "checked" || key === "value" || key === "selected") node[key] = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined && child !== false) node.append(child);
    }
    return node;
  }

  let saying = 0;
  function say(text) {
    // Emptied first, so that saying the same thing twice is announced twice.
    said.textContent = "";
    window.clearTimeout(saying);
    saying = window.setTimeout(() => { said.textContent = text; }, 50);
  }

  // What was said of the last question ("Submitted.") is not said under the next one.
  function hush() {
    window.clearTimeout(saying);
    said.textContent = "";
  }

  function firstLine(text) {
    const line = text.split("\n")[0];
    return line.length > 140 ? `${line.slice(0, 139)}…` : line;
  }

  // -- talking to the local server ---------------------------------------------------------

  async function post(path, body) {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      cache: "no-store",
    });
    let data = {};
    try { data = await response.json(); } catch { /* an empty or plain-text refusal */ }
    return { status: response.status, data };
  }

  const sleep = (ms) => new Promise((resolve) => { window.setTimeout(resolve, ms); });

  async function poll() {
    // One request always open: the server answers when something changes. It is also how the
    // server knows this page is still open (closing the tab cancels what it shows).
    while (!state.closed) {
      try {
        const response = await fetch(`api/state?since=${state.version}`, { cache: "no-store" });
        if (response.status === 204) continue;
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const data = await response.json();
        connection.textContent = _("Connected");
        connection.classList.remove("lost");
        apply(data);
      } catch {
        connection.textContent = _("Lost the connection to mcp-elicit; trying again…");
        connection.classList.add("lost");
        await sleep(1000);
      }
    }
  }

  function apply(data) {
    state.version = data.version;
    // A state sent just before this page's own answer arrived must not bring the answered
    // question back for a moment.
    state.prompts = data.prompts.filter((p) => !state.answered.has(p.id));
    drawNotices(data.notices);
    if (data.closed) {
      state.closed = true;
      state.prompts = [];
      drawQueue();
      drawEnded(); // after drawQueue: its title wins
      return;
    }
    drawCurrent();
    drawQueue();
  }

  // -- what is on the page -----------------------------------------------------------------

  function drawCurrent() {
    const first = state.prompts[0];
    const id = first ? first.id : "";
    if (id === state.shown) return; // keep what the person is in the middle of
    if (state.shown && !state.answered.has(state.shown)) {
      say(_("The question you were looking at is no longer waiting: it was withdrawn, or answered in another tab."));
    } else if (first) {
      hush();
    }
    state.shown = id;
    current.replaceChildren(first ? drawPrompt(first) : drawEmpty());
    // Start the person at the new question (screen readers read it; Tab goes to its first field).
    $("prompt-heading").focus();
  }

  function drawPrompt(prompt) {
    if (prompt.kind === "form") return drawForm(prompt);
    if (prompt.kind === "url") return drawConsent(prompt);
    return drawWaiting(prompt);
  }

  function drawEmpty() {
    return h("article", { class: "prompt empty" },
      h("h1", { id: "prompt-heading", tabindex: "-1", text: _("Nothing to answer right now") }),
      h("p", { text: _("Questions from MCP servers appear here as they come. Keep this tab open.") }));
  }

  function drawEnded() {
    state.shown = null;
    current.replaceChildren(h("article", { class: "prompt empty" },
      h("h1", { id: "prompt-heading", tabindex: "-1", text: _("This session has ended") }),
      h("p", { text: _("mcp-elicit is no longer asking anything here. You can close this tab.") })));
    document.title = _("Session ended — mcp-elicit");
    connection.textContent = _("Session ended");
  }

  function drawQueue() {
    // The tab's title counts what is waiting, for a person looking at another tab.
    document.title = state.prompts.length
      ? fmt(_("({n}) Questions waiting — mcp-elicit"), { n: state.prompts.length })
      : _("No questions waiting — mcp-elicit");
    const rest = state.prompts.slice(1);
    queueSection.hidden = rest.length === 0;
    queueHeading.textContent = fmt(_("{n} more waiting"), { n: rest.length });
    const words = {
      form: _("{server} — a form: {message}"),
      url: _("{server} — a link to open: {message}"),
      wait: _("{server} — waiting for you to finish: {message}"),
    };
    queueList.replaceChildren(...rest.map((prompt) => h("li", {},
      ...fill(words[prompt.kind], { server: serverName(prompt), message: firstLine(prompt.message) }))));
  }

  function drawNotices(notices) {
    for (const notice of notices) {
      if (state.notices.has(notice.number)) continue;
      state.notices.add(notice.number);
      noticeList.append(h("li", { class: `notice notice-${notice.level}`, text: notice.text }));
    }
  }

  function asker(prompt, words) {
    return h("p", { class: "asker" }, ...fill(words, { server: serverName(prompt) }));
  }

  function actions(...buttons) {
    return h("div", { class: "actions" }, ...buttons);
  }

  function button(text, onclick, primary) {
    return h("button", { type: onclick ? "button" : "submit", class: primary ? "primary" : null, onclick }, text);
  }

  function cancelButton(prompt) {
    return h("button", {
      type: "button",
      "aria-keyshortcuts": "Escape",
      onclick: () => answer(prompt, "cancel"),
    }, _("Cancel"), " ", h("kbd", { text: "Esc" }));
  }

  // -- answering -------------------------------------------------------------------------

  const SAID = {
    accept: _("Submitted."), decline: _("Declined."), cancel: _("Cancelled."), done: _("Done."),
  };

  async function answer(prompt, action, extra) {
    if (state.busy || state.shown !== prompt.id) return null;
    state.busy = true;
    try {
      const reply = await post("api/answer", { id: prompt.id, action, ...(extra || {}) });
      if (reply.status === 200 || reply.status === 409) { // answered, or gone meanwhile
        state.answered.add(prompt.id);
        if (reply.status === 409) say(reply.data.message);
        else say(prompt.kind === "url" && action === "accept" ? _("Opened the link.") : SAID[action]);
        // The next one at once; the state request confirms it a moment later.
        state.prompts = state.prompts.filter((p) => p.id !== prompt.id);
        drawCurrent();
        drawQueue();
      }
      return reply;
    } catch {
      say(_("Could not reach mcp-elicit: try again."));
      return null;
    } finally {
      state.busy = false;
    }
  }

  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented || event.isComposing) return;
    const prompt = state.prompts.find((p) => p.id === state.shown);
    if (!prompt) return;
    event.preventDefault();
    answer(prompt, "cancel", { key: "Escape" });
  });

  // -- forms -----------------------------------------------------------------------------

  function drawForm(prompt) {
    const touched = new Set();
    const fields = prompt.fields.map((field, index) => drawField(field, index));
    // A free-text question takes files too: checked by the server as they are chosen.
    const files = prompt.attach ? drawAttach(prompt.attach, () => changed(null, 0)) : null;
    const whole = h("p", { id: "form-error", class: "error", hidden: true });
    const summary = h("p", { class: "summary", hidden: true });
    let timer = 0;
    let asked = 0;

    let note;
    if (files) note = h("p", { class: "legend-note", text: _("Type an answer, attach files, or both.") });
    else if (prompt.fields.length) note = h("p", { class: "legend-note", text: _("Fields marked “required” need an answer.") });
    else note = h("p", { text: _("This request has no fields: answer, decline or cancel it.") });

    const form = h("form", { novalidate: true, "aria-labelledby": "prompt-heading" },
      note,
      ...fields.map((f) => f.node),
      files ? files.node : null,
      whole,
      summary,
      actions(button(_("Review answers"), null, true),
        button(_("Decline"), () => answer(prompt, "decline")),
        cancelButton(prompt)),
      h("p", { class: "explain" },
        ...fill(_("Decline tells {server} no. Cancel dismisses the question without answering; so does closing this page."), { server: serverName(prompt) })));

    const review = h("section", { class: "review", "aria-labelledby": "review-heading", hidden: true });

    function values() {
      const out = {};
      prompt.fields.forEach((field, index) => { out[field.name] = fields[index].value(); });
      return out;
    }

    // What is sent to check: the values, and what each chosen file is (never its bytes).
    function checking() {
      const body = { id: prompt.id, values: values() };
      if (files) body.attachments = files.described();
      return body;
    }

    function show(problems, all) {
      let first = null;
      const wrong = [];
      prompt.fields.forEach((field, index) => {
        const message = problems[field.name];
        const visible = Boolean(message) && (all || touched.has(index));
        fields[index].showError(visible ? message : null);
        if (visible) wrong.push(field.label);
        if (visible && first === null) first = fields[index];
      });
      if (files) {
        const message = problems.attachments;
        const visible = Boolean(message) && (all || touched.has(null));
        files.showError(visible ? message : null);
        if (visible) wrong.push(prompt.attach.label);
        if (visible && first === null) first = files;
      }
      const overall = problems[""];
      whole.hidden = !overall;
      whole.textContent = overall || "";
      // The summary by the buttons is kept up to date once shown, and goes when all is well.
      if (!wrong.length) summary.hidden = true;
      else if (!summary.hidden) summary.textContent = fixing(wrong);
      return first;
    }

    function fixing(labels) {
      const template = labels.length === 1 ? _("One answer needs fixing: {labels}.") : _("{n} answers need fixing: {labels}.");
      return fmt(template, { n: labels.length, labels: labels.join(_(", ")) });
    }

    async function check() {
      const mine = ++asked;
      try {
        const reply = await post("api/validate", checking());
        if (mine === asked && reply.status === 200) show(reply.data.problems, false);
      } catch { /* the next keystroke asks again */ }
    }

    function changed(index, wait) {
      touched.add(index);
      window.clearTimeout(timer);
      timer = window.setTimeout(check, wait);
    }
    fields.forEach((field, index) => {
      field.node.addEventListener("input", () => changed(index, 250));
      field.node.addEventListener("change", () => changed(index, 0));
    });

    async function toReview() {
      if (state.busy) return;
      window.clearTimeout(timer);
      asked += 1; // an answer to an earlier check must not redraw over this one
      let reply;
      try {
        reply = await post("api/validate", checking());
      } catch {
        say(_("Could not reach mcp-elicit: try again."));
        return;
      }
      if (reply.status === 409) {
        say(reply.data.message);
        return;
      }
      const problems = reply.data.problems || {};
      const count = Object.keys(problems).length;
      if (count) {
        prompt.fields.forEach((_, index) => touched.add(index));
        touched.add(null);
        summary.hidden = false;
        const first = show(problems, true);
        // Focus goes to the first field to fix; its message is read with it.
        if (first) first.focus();
        return;
      }
      show({}, true);
      drawReview(reply.data.review);
    }

    function drawReview(lines) {
      const rows = lines.map((line) => [h("dt", { text: line.label }), h("dd", { text: answerText(line) })]);
      if (files) {
        const chosen = files.chosen();
        rows.push([h("dt", { text: _("Attached files") }), h("dd", {},
          chosen.length
            ? h("ul", { class: "review-files" }, ...chosen.map((file) => h("li", { text: fileLine(file) })))
            : _("(none)"))]);
      }
      review.replaceChildren(
        h("h2", { id: "review-heading", tabindex: "-1", text: _("Review your answers") }),
        h("p", { text: fmt(_("Nothing is sent to {server} until you choose Submit."), { server: prompt.server }) }),
        rows.length
          ? h("dl", {}, ...rows)
          : h("p", { text: _("(this form has no fields)") }),
        actions(
          button(_("Submit"), submit, true),
          button(_("Edit answers"), edit),
          button(_("Decline"), () => answer(prompt, "decline")),
          cancelButton(prompt)));
      form.hidden = true;
      review.hidden = false;
      $("review-heading").focus();
    }

    function edit() {
      review.hidden = true;
      form.hidden = false;
      const first = fields[0];
      if (first) first.focus(); else $("prompt-heading").focus();
    }

    async function submit() {
      const extra = { values: values() };
      if (files) {
        // Read only now, once the server has said the files may go.
        if (state.busy) return;
        if (files.chosen().length) say(_("Sending…"));
        try {
          extra.attachments = await files.read();
        } catch (failed) {
          edit();
          touched.add(null);
          files.showError(fmt(_("Error: {message}"), { message: failed.message }));
          say(_("Nothing was sent: a file could not be read."));
          files.focus();
          return;
        }
      }
      const reply = await answer(prompt, "accept", extra);
      if (reply && reply.status === 422) {
        edit();
        summary.hidden = false;
        const first = show(reply.data.problems, true);
        say(_("Nothing was sent: fix these, then submit again."));
        if (first) first.focus();
      }
    }

    form.addEventListener("submit", (event) => {
      event.preventDefault(); // Enter in a box, or the Review button
      toReview();
    });

    return h("article", { class: "prompt" },
      asker(prompt, _("{server} asks:")),
      h("h1", { id: "prompt-heading", tabindex: "-1", class: "message", text: prompt.message }),
      prompt.findings.length
        ? h("ul", { class: "findings" }, ...prompt.findings.map((text) => h("li", { text })))
        : null,
      form,
      review);
  }

  // A review line's answer: a date, a moment or a number as the page's language writes it
  // (Intl), from the answer as sent, which is what the server gets. English pages show them
  // as typed, as they always have (2026-05-01 is English's own way too); so does anything
  // Intl cannot read.
  function answerText(line) {
    const lang = document.documentElement.lang;
    const answer = line.answer;
    if (/^en(-|$)/i.test(lang)) return line.value;
    try {
      if (line.kind === "date" && typeof answer === "string" && /^\d{4}-\d{2}-\d{2}$/.test(answer)) {
        const day = new Date(`${answer}T00:00:00Z`);
        if (!Number.isNaN(day.getTime())) {
          return new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeZone: "UTC" }).format(day);
        }
      }
      if (line.kind === "datetime" && typeof answer === "string") {
        const moment = new Date(answer);
        if (!Number.isNaN(moment.getTime())) {
          const shown = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "long" }).format(moment);
          return fmt(_("{moment} ({sent})"), { moment: shown, sent: line.value });
        }
      }
      if ((line.kind === "integer" || line.kind === "number") && typeof answer === "number"
        && !/e/i.test(String(answer))) {
        return new Intl.NumberFormat(lang, { maximumFractionDigits: 20 }).format(answer);
      }
    } catch { /* a language Intl does not know: as typed */ }
    return line.value;
  }

  // One field: its node, how to read its value, show its error, and focus it.
  function drawField(field, index) {
    const id = `f${index}`;
    const help = field.help ? h("p", { id: `${id}-help`, class: "help", text: field.help }) : null;
    const hint = h("p", { id: `${id}-hint`, class: "hint", text: field.hint });
    const error = h("p", { id: `${id}-error`, class: "error", hidden: true });
    const described = [help ? `${id}-help` : null, `${id}-hint`, `${id}-error`].filter(Boolean).join(" ");
    const badge = field.required ? h("span", { class: "required", text: _("required") }) : null;
    const title = [h("span", { class: "label-text", text: field.label }), badge ? " " : null, badge];
    let inputs = [];
    let node;
    let value;

    if (field.widget === "checkbox") {
      const box = h("input", { type: "checkbox", id, checked: field.initial === true, "aria-describedby": described });
      inputs = [box];
      node = h("div", { class: "field check" }, h("div", { class: "option" }, box, h("label", { for: id }, ...title)), help, hint, error);
      // Untouched, an optional yes/no without a default is no answer, not "no".
      let ticked = false;
      box.addEventListener("change", () => { ticked = true; });
      value = () => (field.unanswered && !ticked ? null : box.checked);
    } else if (field.widget === "radio" || field.widget === "checkboxes") {
      const multi = field.widget === "checkboxes";
      const choices = field.choices.slice();
      if (!multi && !field.required && field.initial === "") choices.push({ value: "", label: _("No answer") });
      const options = choices.map((choice, n) => {
        const box = h("input", {
          type: multi ? "checkbox" : "radio",
          id: `${id}-${n}`,
          name: id,
          value: choice.value,
          checked: multi ? field.initial.includes(choice.value) : choice.value === field.initial,
        });
        inputs.push(box);
        return h("div", { class: "option" }, box, h("label", { for: `${id}-${n}`, text: choice.label }));
      });
      node = h("fieldset", { class: "field group", id: `${id}-group`, "aria-describedby": described },
        h("legend", {}, ...title), help, hint, h("div", { class: "options" }, ...options), error);
      value = multi
        ? () => inputs.filter((box) => box.checked).map((box) => box.value)
        : () => (inputs.find((box) => box.checked) || { value: "" }).value;
    } else if (field.widget === "select") {
      const empty = field.initial === "" ? [h("option", { value: "", text: field.required ? _("Choose one…") : _("No answer") })] : [];
      const select = h("select", { id, "aria-describedby": described, "aria-required": field.required ? "true" : null },
        ...empty,
        ...field.choices.map((choice) => h("option", { value: choice.value, selected: choice.value === field.initial, text: choice.label })));
      inputs = [select];
      node = h("div", { class: "field" }, h("label", { for: id }, ...title), help, hint, select, error);
      value = () => select.value;
    } else {
      const box = h(field.widget === "textarea" ? "textarea" : "input", {
        type: field.widget === "textarea" ? null : "text",
        id,
        value: field.initial,
        placeholder: field.placeholder,
        inputmode: field.inputmode,
        autocomplete: "off",
        spellcheck: field.kind === "text" ? null : "false",
        "aria-describedby": described,
        "aria-required": field.required ? "true" : null,
      });
      inputs = [box];
      node = h("div", { class: "field" }, h("label", { for: id }, ...title), help, hint, box, error);
      value = () => box.value;
    }

    return {
      node,
      value,
      showError(message) {
        error.hidden = !message;
        error.textContent = message || "";
        node.classList.toggle("invalid", Boolean(message));
        for (const input of inputs) {
          if (message) input.setAttribute("aria-invalid", "true");
          else input.removeAttribute("aria-invalid");
        }
      },
      focus() {
        const target = inputs.find((box) => box.checked) || inputs[0];
        if (target) target.focus();
      },
    };
  }

  // The files attached to a free-text answer: a file input (more can be added in turn), the
  // list of what was chosen with a Remove button for each, and the server's message about them.
  function drawAttach(attach, onchange) {
    const id = "attach";
    const chosen = [];
    const hint = h("p", { id: `${id}-hint`, class: "hint", text: attach.hint });
    const error = h("p", { id: `${id}-error`, class: "error", hidden: true });
    const input = h("input", {
      type: "file",
      id,
      accept: attach.accept,
      multiple: true,
      "aria-describedby": `${id}-hint ${id}-list-heading ${id}-error`,
    });
    const listHeading = h("p", { id: `${id}-list-heading`, class: "files-heading", text: _("No files attached.") });
    const list = h("ul", { id: `${id}-list`, class: "files", "aria-labelledby": `${id}-list-heading`, hidden: true });
    const node = h("div", { class: "field attach" },
      h("label", { for: id }, h("span", { class: "label-text", text: attach.label })),
      hint, input, listHeading, list, error);

    function drawList() {
      list.hidden = chosen.length === 0;
      listHeading.textContent = chosen.length === 0
        ? _("No files attached.")
        : fmt(chosen.length === 1 ? _("1 file attached:") : _("{n} files attached:"), { n: chosen.length });
      list.replaceChildren(...chosen.map((file, n) => h("li", { class: "file" },
        h("span", { class: "file-name", text: file.name }),
        " ",
        h("span", { class: "file-size", text: fmt(_("({size})"), { size: sizeText(file.size) }) }),
        h("button", {
          type: "button",
          class: "remove",
          "aria-label": fmt(_("Remove {name}"), { name: file.name }),
          onclick: () => remove(n),
        }, _("Remove")))));
    }

    function remove(n) {
      const [file] = chosen.splice(n, 1);
      drawList();
      say(fmt(_("Removed {name}."), { name: file.name }));
      // Focus stays in the list (the next file's button), else goes back to the file input.
      const buttons = list.querySelectorAll("button.remove");
      (buttons[Math.min(n, buttons.length - 1)] || input).focus();
      onchange();
    }

    input.addEventListener("change", () => {
      const added = Array.from(input.files || []);
      // Emptied, so that the same file can be chosen again after it was removed.
      input.value = "";
      if (!added.length) return;
      chosen.push(...added);
      drawList();
      say(fmt(_("Attached {names}."), { names: added.map((file) => file.name).join(_(", ")) }));
      onchange();
    });

    return {
      node,
      chosen: () => chosen.slice(),
      described: () => chosen.map((file) => ({ name: file.name, mimeType: file.type, size: file.size })),
      read: () => Promise.all(chosen.map(async (file) => ({
        name: file.name, mimeType: file.type, data: await base64(file),
      }))),
      showError(message) {
        error.hidden = !message;
        error.textContent = message || "";
        node.classList.toggle("invalid", Boolean(message));
        if (message) input.setAttribute("aria-invalid", "true");
        else input.removeAttribute("aria-invalid");
      },
      focus() { input.focus(); },
    };
  }

  // A file's bytes in base64: read as a data: URL (done by the browser, fast for large files),
  // whose data follows the first comma.
  function base64(file) {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => {
        const url = String(reader.result);
        resolve(url.slice(url.indexOf(",") + 1));
      };
      reader.onerror = () => reject(new Error(fmt(_("{name} could not be read: attach it again"), { name: file.name })));
      reader.readAsDataURL(file);
    });
  }

  // In the units of the limit the page states (a MB of 1024 × 1024 bytes).
  function sizeText(bytes) {
    const number = (n, digits) => n.toLocaleString(document.documentElement.lang, { maximumFractionDigits: digits, minimumFractionDigits: digits });
    if (bytes < 1024) return fmt(bytes === 1 ? _("1 byte") : _("{n} bytes"), { n: number(bytes, 0) });
    if (bytes < 1024 * 1024) return fmt(_("{n} KB"), { n: number(bytes / 1024, 1) });
    return fmt(_("{n} MB"), { n: number(bytes / (1024 * 1024), 1) });
  }

  function fileLine(file) {
    return fmt(_("{name} ({size})"), { name: file.name, size: sizeText(file.size) });
  }

  // -- links (URL mode) ------------------------------------------------------------------

  function drawConsent(prompt) {
    const warned = prompt.warnings.length > 0;
    const rows = [];
    if (prompt.required_by) rows.push([_("Needed by"), h("span", { text: prompt.required_by })]);
    rows.push([_("Domain"), prompt.domain
      ? h("strong", { class: "domain", text: prompt.domain })
      : h("span", { class: "no-domain", text: fmt(_("none ({why})"), { why: prompt.domain_note }) })]);
    rows.push([_("Full link"), h("code", { class: "url", text: prompt.shown_url })]);
    if (prompt.host) rows.push([_("Host"), h("span", { text: prompt.host })]);

    const buttons = actions(
      button(warned ? _("Open link anyway") : _("Open link"), open, !warned),
      button(_("Decline"), () => answer(prompt, "decline")),
      cancelButton(prompt));
    const copy = h("input", {
      type: "text", readonly: true, id: "copy-url", value: prompt.open_url,
      spellcheck: "false", autocomplete: "off",
    });
    copy.addEventListener("focus", () => copy.select());
    // Shown when the browser would not open a tab: nothing has been sent yet.
    const notOpened = h("div", { class: "not-opened", hidden: true },
      h("p", { class: "error", id: "not-opened-heading", tabindex: "-1",
        text: _("Your browser did not open the link (a pop-up blocker may have stopped it). Nothing has been sent yet.") }),
      h("div", { class: "field" }, h("label", { for: "copy-url", text: _("Copy the link and open it yourself:") }), copy),
      actions(
        button(_("I opened it myself"), () => answer(prompt, "accept"), true),
        button(_("Try again"), open),
        cancelButton(prompt)));

    function open() {
      if (state.busy || state.shown !== prompt.id) return;
      // Only here, from the person's click: nothing loads the link before. The new tab starts
      // empty and is cut off from this page (opener = null) before it loads the link, with
      // no referrer (this page's policy): the site gets neither a handle on this page nor its
      // address, which holds the token. A browser that refuses the tab gives null: then the
      // person is told, and shown the link to open themselves; nothing is answered yet.
      const tab = window.open("about:blank", "_blank");
      if (!tab) {
        buttons.hidden = true;
        notOpened.hidden = false;
        say(_("Your browser did not open the link."));
        $("not-opened-heading").focus();
        return;
      }
      tab.opener = null;
      tab.location.replace(prompt.open_url);
      answer(prompt, "accept");
    }

    return h("article", { class: "prompt link" },
      asker(prompt, prompt.sign_in ? _("{server} asks you to sign in:") : _("{server} asks you to open a link:")),
      h("h1", { id: "prompt-heading", tabindex: "-1", class: "message", text: prompt.message }),
      prompt.sign_in
        ? h("p", { class: "sign-in-note", text: _("This is the server's own sign-in (MCP authorization), not a question from a tool. The link opens its authorization server's sign-in page; your browser then comes back to mcp-elicit on this machine (127.0.0.1). Check the domain is who you expect to sign in with.") })
        : null,
      h("dl", { class: "link-facts" }, ...rows.map(([term, detail]) => [h("dt", { text: term }), h("dd", {}, detail)])),
      warned
        ? h("ul", { class: "warnings" }, ...prompt.warnings.map((text) => h("li", { text })))
        : null,
      h("p", { class: "explain", text: _("Nothing has been opened or loaded yet. Open link opens it in a new tab; mcp-elicit itself never loads it.") }),
      // With warnings, opening is not the suggested choice: no emphasis, and it says so.
      buttons,
      notOpened);
  }

  function drawWaiting(prompt) {
    if (prompt.sign_in) {
      return h("article", { class: "prompt waiting" },
        asker(prompt, _("{server} is waiting for you")),
        h("h1", { id: "prompt-heading", tabindex: "-1", text: _("Waiting for you to sign in") }),
        h("p", { class: "message", text: prompt.message }),
        h("p", { class: "explain", text: _("Finish signing in on the page that opened. This ends by itself when your browser comes back; Cancel gives up.") }),
        actions(cancelButton(prompt)));
    }
    return h("article", { class: "prompt waiting" },
      asker(prompt, _("{server} is waiting for you")),
      h("h1", { id: "prompt-heading", tabindex: "-1", text: _("Waiting for you to finish on the page") }),
      h("p", { class: "message", text: prompt.message }),
      h("p", {}, ...fill(_("The link: {url}"), { url: h("code", { class: "url", text: prompt.url }) })),
      prompt.held
        ? h("p", { class: "explain" },
          ...fill(_("{server} goes on once you have finished there. I'm done asks it again now; Cancel tells it you gave up."), { server: serverName(prompt) }))
        : h("p", { class: "explain" },
          ...fill(_("When you have finished there, choose I'm done. This also ends by itself when {server} confirms."), { server: serverName(prompt) })),
      actions(button(_("I'm done"), () => answer(prompt, "done"), true), cancelButton(prompt)));
  }

  poll();
})();
