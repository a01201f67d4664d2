// tooluse web: a chat with one agent over its AG-UI endpoint, and a timeline of each run.
// No framework and no CDN: this file, app.css and index.html are the whole page.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const log = $("log");
  const timeline = $("timeline");
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromHash) sessionStorage.setItem("tooluse-token", fromHash);
  const token = sessionStorage.getItem("tooluse-token");
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const threadId = `thread-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  const cards = new Map(); // tool call id -> its card, across runs (a resumed run answers old calls)
  const decisions = new Map(); // interrupt id -> resume entry, until every interrupt is answered
  let interrupts = [];
  let agentName = "";
  let runs = 0;

  const HINTS = {
    thread_busy: "Wait for the run in progress to finish, then send again.",
    paused_run: "Approve or reject the waiting call first.",
    no_paused_run: "Nothing waits for approval any more: send a new message.",
    unknown_call: "Reload the page to start a new conversation.",
    forged_tool_output: "Reload the page to start a new conversation.",
    no_new_message: "Type a message before sending.",
  };

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function show(node) {
    log.append(node);
    log.scrollTop = log.scrollHeight;
    return node;
  }

  function pretty(text) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }

  function toolCard(id, name) {
    const card = element("details", "tool");
    card.dataset.callId = id;
    const summary = element("summary", "", name);
    const status = element("span", "status", "calling…");
    summary.append(status);
    const body = element("div", "body");
    body.append(element("div", "muted", "arguments"));
    const args = body.appendChild(element("pre", "args", ""));
    body.append(element("div", "muted", "result"));
    const result = body.appendChild(element("pre", "result", "…"));
    card.append(summary, body);
    const entry = { card, status, args, result, raw: "", name };
    cards.set(id, entry);
    show(card);
    return entry;
  }

  function setBusy(busy) {
    $("go").disabled = busy;
    $("input").disabled = busy;
  }

  function newRun(label) {
    runs += 1;
    const box = element("div", "run");
    box.dataset.run = String(runs);
    const title = box.appendChild(element("h3", "", `Run ${runs}: ${label}`));
    timeline.prepend(box);
    return { box, title, start: performance.now(), text: null, tokens: 0 };
  }

  function row(run, label, seconds, detail, kind) {
    const line = element("div", "row");
    line.append(element("span", "", label));
    const bar = element("div", `bar ${kind}`);
    bar.dataset.seconds = String(seconds);
    bar.title = `${seconds.toFixed(3)} s`;
    line.append(bar, element("span", "muted", detail));
    run.box.append(line);
    // bars are drawn against the run's longest turn or call
    const bars = [...run.box.querySelectorAll(".bar")];
    const longest = Math.max(...bars.map((each) => Number(each.dataset.seconds)), 1e-9);
    for (const each of bars) each.style.width = `${Math.max(1, (Number(each.dataset.seconds) / longest) * 100)}%`;
  }

  function handle(event, run) {
    switch (event.type) {
      case "STEP_STARTED":
        if (agentName && event.stepName !== agentName) {
          show(element("div", "handoff", `↪ handoff: ${agentName} → ${event.stepName}`));
        }
        agentName = event.stepName;
        $("agent").textContent = `agent: ${agentName}`;
        break;
      case "TEXT_MESSAGE_START":
        run.text = show(element("div", "msg assistant", ""));
        break;
      case "TEXT_MESSAGE_CONTENT":
        if (!run.text) run.text = show(element("div", "msg assistant", ""));
        run.text.textContent += event.delta;
        log.scrollTop = log.scrollHeight;
        break;
      case "TEXT_MESSAGE_END":
        run.text = null;
        break;
      case "TOOL_CALL_START":
        toolCard(event.toolCallId, event.toolCallName);
        break;
      case "TOOL_CALL_ARGS": {
        const entry = cards.get(event.toolCallId);
        entry.raw += event.delta;
        entry.args.textContent = entry.raw;
        break;
      }
      case "TOOL_CALL_END": {
        const entry = cards.get(event.toolCallId);
        entry.args.textContent = pretty(entry.raw);
        entry.status.textContent = "running…";
        break;
      }
      case "TOOL_CALL_RESULT": {
        const entry = cards.get(event.toolCallId) || toolCard(event.toolCallId, "tool");
        entry.result.textContent = typeof event.content === "string" ? event.content : JSON.stringify(event.content);
        entry.status.textContent = "done";
        entry.status.className = "status done";
        entry.card.querySelector(".approval")?.remove();
        break;
      }
      case "CUSTOM":
        if (event.name === "tooluse.call") {
          const { call_id: id, duration_seconds: seconds } = event.value;
          row(run, `call ${cards.get(id)?.name || id}`, seconds, `${seconds.toFixed(3)} s`, "call");
        } else if (event.name === "tooluse.usage") {
          const turn = event.value;
          run.tokens += turn.total_tokens || 0;
          row(run, `turn ${turn.turn} · ${turn.agent || ""}`, turn.duration_seconds || 0,
            `${(turn.duration_seconds || 0).toFixed(3)} s · ${turn.total_tokens} tok`, "turn");
        }
        break;
      case "RUN_FINISHED":
        finish(run, event);
        break;
      case "RUN_ERROR": {
        const box = show(element("div", "error"));
        box.append(element("strong", "", "Error: "), document.createTextNode(event.message));
        const hint = HINTS[event.code] || "See the server's terminal for details, fix the cause, and send again.";
        box.append(element("div", "hint", hint));
        run.title.textContent += " · failed";
        break;
      }
      default:
        break;
    }
  }

  function finish(run, event) {
    const seconds = (performance.now() - run.start) / 1000;
    const outcome = event.outcome || { type: "success" };
    run.title.textContent += ` · ${seconds.toFixed(2)} s · ${run.tokens} tokens`;
    interrupts = outcome.type === "interrupt" ? outcome.interrupts : [];
    decisions.clear();
    for (const interrupt of interrupts) askApproval(interrupt);
    if (interrupts.length) run.title.textContent += " · waiting for approval";
  }

  function askApproval(interrupt) {
    const entry = cards.get(interrupt.toolCallId) || toolCard(interrupt.toolCallId, interrupt.metadata?.toolName || "tool");
    entry.status.textContent = "waiting for approval";
    entry.status.className = "status waiting";
    entry.card.open = true;
    const bar = element("div", "approval");
    const approve = element("button", "approve", "Approve");
    const reject = element("button", "reject", "Reject");
    const decide = (approved) => {
      approve.disabled = reject.disabled = true;
      decisions.set(interrupt.id, {
        interruptId: interrupt.id,
        status: "resolved",
        payload: { approved },
      });
      entry.status.textContent = approved ? "approved" : "rejected";
      if (decisions.size === interrupts.length) {
        const resume = [...decisions.values()];
        decisions.clear();
        interrupts = [];
        run("resumed", { messages: [], resume });
      }
    };
    approve.addEventListener("click", () => decide(true));
    reject.addEventListener("click", () => decide(false));
    bar.append(approve, reject);
    entry.card.querySelector(".body").prepend(bar);
  }

  async function run(label, extra) {
    setBusy(true);
    const current = newRun(label);
    const body = {
      threadId,
      runId: `run-${runs}-${Date.now().toString(36)}`,
      state: {},
      tools: [],
      context: [],
      forwardedProps: {},
      ...extra,
    };
    try {
      const response = await fetch("api/ag-ui", { method: "POST", headers, body: JSON.stringify(body) });
      if (!response.ok) {
        handle({ type: "RUN_ERROR", message: `${response.status}: ${await response.text()}`, code: "http" }, current);
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const chunk = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          for (const line of chunk.split("\n")) {
            if (line.startsWith("data: ")) handle(JSON.parse(line.slice(6)), current);
          }
        }
      }
    } catch (error) {
      handle({ type: "RUN_ERROR", message: String(error), code: "network" }, current);
    } finally {
      setBusy(interrupts.length > 0);
    }
  }

  $("send").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("input").value.trim();
    if (!text) return;
    $("input").value = "";
    show(element("div", "msg user", text));
    const id = `user-${Date.now().toString(36)}`;
    run(text.length > 30 ? `${text.slice(0, 29)}…` : text, { messages: [{ id, role: "user", content: text }] });
  });

  fetch("api/info", { headers })
    .then((response) => (response.ok ? response.json() : null))
    .then((info) => {
      if (!info) return;
      agentName = info.agent;
      $("agent").textContent = `agent: ${info.agent}`;
      $("model").textContent = info.model;
    })
    .catch(() => undefined);
})();
