// Reads tooluse.ui's Vercel AI endpoint with the `ai` package's own parsers, as useChat
// does: parseJsonEventStream with uiMessageChunkSchema, then readUIMessageStream.
// Usage: node vercel_client.mjs URL CHAT_ID STEPS_JSON
// STEPS_JSON: a list of {"user": "text"} or {"decide": "approve" | "reject"}; prints, per
// step, the protocol header, the chunk types, the assistant message and any error.
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } from "ai";

const [url, chatId, stepsJson] = process.argv.slice(2);
const messages = [];
const report = [];
let counter = 0;

for (const step of JSON.parse(stepsJson)) {
  const seen = { chunks: [], errors: [] };
  let continued;
  if (step.user !== undefined) {
    messages.push({ id: `user-${++counter}`, role: "user", parts: [{ type: "text", text: step.user }] });
  } else {
    continued = structuredClone(messages.at(-1)); // the reported step keeps what it showed
    messages[messages.length - 1] = continued;
    for (const part of continued.parts) {
      if (part.state === "approval-requested") {
        part.state = "approval-responded";
        part.approval = { id: part.approval.id, approved: step.decide === "approve" };
      }
    }
  }
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: chatId, messages, trigger: "submit-message" }),
  });
  seen.header = response.headers.get("x-vercel-ai-ui-message-stream");
  const chunks = parseJsonEventStream({ stream: response.body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) throw result.error;
        seen.chunks.push(result.value.type);
        controller.enqueue(result.value);
      },
    }),
  );
  let last;
  for await (const message of readUIMessageStream({
    message: continued ? structuredClone(continued) : undefined,
    stream: chunks,
    onError: (error) => seen.errors.push(String(error && error.message ? error.message : error)),
  })) {
    last = message;
  }
  if (last) {
    if (continued) messages[messages.length - 1] = last;
    else messages.push(last);
  }
  seen.message = last ?? null;
  report.push(seen);
}
console.log(JSON.stringify(report));
