// Reads tooluse.ui's AG-UI endpoint with the official client, @ag-ui/client's HttpAgent.
// Usage: node ag_ui_client.mjs URL THREAD_ID STEPS_JSON
// STEPS_JSON: a list of {"user": "text"} or {"decide": "approve" | "reject"}; prints, per
// step, the event types, the outcome, the interrupts, the error and the agent's messages.
import { HttpAgent, buildResumeArray } from "@ag-ui/client";

const [url, threadId, stepsJson] = process.argv.slice(2);
const agent = new HttpAgent({ url, threadId });
const report = [];
let interrupts = [];
let counter = 0;

for (const step of JSON.parse(stepsJson)) {
  const seen = { types: [], outcome: null, interrupts: [], error: null };
  const params = { runId: `run-${++counter}` };
  if (step.user !== undefined) {
    agent.addMessage({ id: `user-${counter}`, role: "user", content: step.user });
  } else {
    const answer =
      step.decide === "approve"
        ? { status: "resolved", payload: { approved: true } }
        : { status: "cancelled" };
    params.resume = buildResumeArray(
      interrupts,
      Object.fromEntries(interrupts.map((each) => [each.id, answer])),
    );
  }
  const subscriber = {
    onEvent: ({ event }) => void seen.types.push(event.type),
    onRunFinishedEvent: (params) => {
      seen.outcome = params.outcome;
      interrupts = params.outcome === "interrupt" ? params.interrupts : [];
      seen.interrupts = interrupts.map((each) => ({
        id: each.id,
        toolCallId: each.toolCallId,
        message: each.message,
        metadata: each.metadata,
      }));
    },
    onRunErrorEvent: ({ event }) => void (seen.error = { message: event.message, code: event.code }),
  };
  try {
    await agent.runAgent(params, subscriber);
  } catch (error) {
    seen.thrown = String(error && error.message ? error.message : error);
  }
  seen.messages = agent.messages.map((m) => ({
    role: m.role,
    content: m.content ?? null,
    toolCalls: (m.toolCalls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
    toolCallId: m.toolCallId ?? null,
  }));
  report.push(seen);
}
console.log(JSON.stringify(report));
