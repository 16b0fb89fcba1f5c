"""The mapping of CONTRACT.md section 3, the same as the Java API dev.baton.consumer.SnapshotPrompts and
../node/prompts.js: framing.system_prompt and the brick (separated by a blank line) as the leading system
message, then the snapshot's messages one-to-one (call_id -> id, tool -> function.name,
arguments -> function.arguments)."""


def system_text(system_prompt, brick):
    return f"{system_prompt}\n\n{brick}" if brick else system_prompt


def chat_request(snapshot, model):
    messages = [{"role": "system",
                 "content": system_text(snapshot["framing"]["system_prompt"], snapshot["brick"])}]
    for m in snapshot["messages"]:
        out = {"role": m["role"]}
        if m.get("name") is not None:
            out["name"] = m["name"]
        out["content"] = m["content"]
        if m.get("tool_calls"):
            out["tool_calls"] = [{"id": c["call_id"], "type": "function",
                                  "function": {"name": c["tool"], "arguments": c["arguments"]}}
                                 for c in m["tool_calls"]]
        if m.get("tool_call_id") is not None:
            out["tool_call_id"] = m["tool_call_id"]
        messages.append(out)
    return {"model": model, "messages": messages}


def cli_prompt(snapshot):
    return system_text(snapshot["framing"]["system_prompt"], snapshot["brick"])


def for_target(snapshot, model):
    """One output line: chat_request for LOCAL targets, cli_prompt for CLAUDE_CLI targets."""
    line = {"snapshot_id": snapshot["snapshot_id"], "target": snapshot["target"]}
    if snapshot["target"] == "CLAUDE_CLI":
        line["cli_prompt"] = cli_prompt(snapshot)
    else:
        line["chat_request"] = chat_request(snapshot, model)
    return line
