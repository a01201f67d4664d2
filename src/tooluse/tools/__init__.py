"""Function tools and everything an agent can be given to call.

`FunctionTool` and `@function_tool`, the invoker that validates and calls a
decorated function (`_invocation`, sync functions in `_threads`), what a tool
returns and what the model is told when it fails (`_outputs`, `_errors`,
`_returns`), hosted tools declared for the provider (`_hosted`), toolsets
(`_toolsets`) and the items answered locally (`_local`).

Imports: `tooluse.core`, `tooluse.exceptions`, `tooluse.schema`, `tooluse.guardrails`.
"""
