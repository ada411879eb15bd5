"""Interop driver: the Python SDK (`mcp`, pinned in requirements.txt).

    python py_sdk.py --home DIR [--cwd DIR] [--mode auto|legacy|2026-07-28] [--expect-protocol V] -- SERVER_BIN ARGS...

The default `auto` sends `server/discover` (2026-07-28) with `initialize` pipelined right behind
it and keeps whichever era the server answers. The scenario is the same as the JS drivers'
(lib/flow.mjs); the outcome is ONE JSON line on stdout, which tests/interop.rs parses.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from importlib.metadata import version as package_version
from typing import Any

import jsonschema
from jsonschema import validators as schema_validators
from mcp import Client, StdioServerParameters
from mcp import types

EXPECTED_TOOLS = ["tool_call", "tool_describe", "tool_search"]
REQUEST_TIMEOUT_S = 60.0
DEADLINE_S = 240.0


def parse_args(argv: list[str]) -> argparse.Namespace:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        raise SystemExit("usage: --home DIR [--cwd DIR] [--mode M] [--expect-protocol V] -- SERVER_BIN [ARGS...]")
    sep = argv.index("--")
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", required=True)
    parser.add_argument("--cwd")
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--expect-protocol")
    ns = parser.parse_args(argv[:sep])
    ns.command = argv[sep + 1]
    ns.args = argv[sep + 2 :]
    return ns


def server_env(home: str) -> dict[str, str]:
    """Everything the server needs, named explicitly: the SDK passes only a few variables by default."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "HERA_MCP_ENABLED": "1"}
    for key, value in os.environ.items():
        if (key.startswith("HERA_") or key.startswith("RUST_")) and key != "HERA_MCP_ENABLED":
            env[key] = value
    return env


def compile_schema(schema: Any) -> tuple[Any, str | None]:
    """A validator for `schema` in its own dialect (2020-12 when it names none, as MCP specifies)."""
    if not isinstance(schema, dict):
        return None, f"outputSchema is not an object: {json.dumps(schema)}"
    cls = schema_validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        return None, f"outputSchema is not a valid schema: {e.message}"
    return cls(schema, format_checker=cls.FORMAT_CHECKER), None


def validation_errors(validator: Any, value: Any) -> str | None:
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    return "; ".join(f"/{'/'.join(str(p) for p in e.absolute_path)} {e.message}" for e in errors[:5])


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def error_code(structured: Any) -> str | None:
    if isinstance(structured, dict):
        code = structured.get("code")
        if isinstance(code, str) and code:
            return code
        inner = structured.get("error")
        if isinstance(inner, dict) and isinstance(inner.get("code"), str) and inner["code"]:
            return inner["code"]
    return None


class Scenario:
    """The steps; each records ok/failed with a reason and never raises."""

    def __init__(self, report: dict[str, Any]) -> None:
        self.report = report
        self.validators: dict[str, Any] = {}

    async def step(self, name: str, body) -> bool:
        started = time.monotonic()
        entry: dict[str, Any] = {"step": name, "ok": False}
        try:
            reason = await body(entry)
            if isinstance(reason, str):
                entry["reason"] = reason
            else:
                entry["ok"] = True
        except Exception as e:  # noqa: BLE001 - a failed step is data, not a crash
            entry["reason"] = f"threw: {type(e).__name__}: {e}"
        entry["ms"] = int((time.monotonic() - started) * 1000)
        self.report["steps"].append(entry)
        return entry["ok"]

    def check(self, entry: dict[str, Any], result: types.CallToolResult, tool: str, expect_error: bool) -> str | None:
        entry["is_error"] = bool(result.is_error)
        structured = result.structured_content
        if expect_error and not result.is_error:
            return f"expected isError:true, got a success: {text_of(result)[:300]}"
        if not expect_error and result.is_error:
            return f"expected success, got isError:true: {text_of(result)[:500]}"
        if structured is None:
            return "no structuredContent although the tool advertises an outputSchema"
        invalid = validation_errors(self.validators[tool], structured)
        if invalid:
            return f"structuredContent violates {tool}.outputSchema: {invalid}"
        entry["schema_valid"] = True
        if not text_of(result):
            return "no text content block (clients that ignore structuredContent would see nothing)"
        if not expect_error and isinstance(structured, dict) and structured.get("success") is False:
            return f"envelope says success:false: {json.dumps(structured)[:300]}"
        return None

    async def run(self, client: Client, expect_protocol: str | None) -> None:
        async def call(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
            return await client.call_tool(name, arguments, read_timeout_seconds=REQUEST_TIMEOUT_S)

        if expect_protocol:

            async def protocol(_entry):
                got = self.report.get("protocol_version")
                return None if got == expect_protocol else f"negotiated {got}, expected {expect_protocol}"

            await self.step("protocol", protocol)

        async def tools_list(entry):
            listed = await asyncio.wait_for(client.list_tools(), REQUEST_TIMEOUT_S)
            names = sorted(t.name for t in listed.tools)
            entry["tools"] = names
            if names != EXPECTED_TOOLS:
                return f"expected exactly {', '.join(EXPECTED_TOOLS)}, got {', '.join(names)}"
            for tool in listed.tools:
                if tool.output_schema is None:
                    return f"{tool.name} has no outputSchema"
                validator, problem = compile_schema(tool.output_schema)
                if problem:
                    return f"{tool.name}: {problem}"
                self.validators[tool.name] = validator
            entry["annotations"] = {
                t.name: (t.annotations.model_dump(by_alias=True, exclude_none=True) if t.annotations else None)
                for t in listed.tools
            }
            return None

        if not await self.step("tools/list", tools_list):
            return

        async def annotations(entry):
            a = next(s for s in self.report["steps"] if s["step"] == "tools/list")["annotations"]
            problems = []
            for safe in ("tool_search", "tool_describe"):
                x = a.get(safe) or {}
                if x.get("readOnlyHint") is not True or x.get("destructiveHint") is True or x.get("openWorldHint") is not False:
                    problems.append(
                        f"{safe} should be readOnlyHint:true, destructiveHint:false, openWorldHint:false (got {json.dumps(x)})"
                    )
            if (a.get("tool_call") or {}).get("readOnlyHint") is True:
                problems.append("tool_call must not claim readOnlyHint:true")
            entry["checked"] = ["tool_search", "tool_describe", "tool_call"]
            return "; ".join(problems) if problems else None

        await self.step("annotations", annotations)

        async def search(entry):
            result = await call("tool_search", {"query": "create a game object"})
            bad = self.check(entry, result, "tool_search", False)
            if bad:
                return bad
            if "manage_gameobject" not in json.dumps(result.structured_content):
                return f'"create a game object" did not find manage_gameobject: {json.dumps(result.structured_content)[:400]}'
            return None

        await self.step("tool_search", search)

        async def describe(entry):
            result = await call("tool_describe", {"name": "manage_gameobject", "action": "create"})
            bad = self.check(entry, result, "tool_describe", False)
            if bad:
                return bad
            if "primitive" not in json.dumps(result.structured_content):
                return f"describe manage_gameobject/create does not show the create parameters: {json.dumps(result.structured_content)[:400]}"
            return None

        await self.step("tool_describe", describe)

        async def scene_info(entry):
            result = await call("tool_call", {"name": "scene", "arguments": {"action": "info"}})
            return self.check(entry, result, "tool_call", False)

        await self.step("tool_call:scene.info", scene_info)

        created: dict[str, Any] = {}

        async def create(entry):
            result = await call("tool_call", {"name": "manage_gameobject", "arguments": {"action": "create", "name": "InteropCube"}})
            bad = self.check(entry, result, "tool_call", False)
            if bad:
                return bad
            structured = result.structured_content or {}
            data = structured.get("data") if isinstance(structured.get("data"), dict) else {}
            created["instance_id"] = entry["instance_id"] = data.get("instance_id")
            entry["operation_id"] = structured.get("operation_id")
            return None

        await self.step("tool_call:manage_gameobject.create", create)

        # The mutation really happened: a fresh read through the same surface sees the new object.
        async def verify(entry):
            result = await call("tool_call", {"name": "find_gameobjects", "arguments": {"name": "InteropCube"}})
            bad = self.check(entry, result, "tool_call", False)
            if bad:
                return bad
            seen = json.dumps(result.structured_content, separators=(",", ":"))
            iid = created.get("instance_id")
            wanted = '"InteropCube"' if iid is None else f'"instance_id":{iid}'
            return None if wanted in seen else f"the created object ({wanted}) is not found after the mutation: {seen[:400]}"

        await self.step("tool_call:find_gameobjects.verify", verify)

        async def bad_arguments(entry):
            result = await call(
                "tool_call",
                {"name": "manage_gameobject", "arguments": {"action": "create", "name": "InteropBad", "primitive": "dodecahedron"}},
            )
            bad = self.check(entry, result, "tool_call", True)
            if bad:
                return bad
            entry["code"] = error_code(result.structured_content)
            if not entry["code"]:
                return f"isError result has no structured code: {json.dumps(result.structured_content)[:300]}"
            # Repairable means it names the fault; an "editor not running" error would not.
            if "primitive" not in json.dumps(result.structured_content):
                return f'the error does not point at the bad parameter "primitive": {json.dumps(result.structured_content)[:400]}'
            return None

        await self.step("tool_call:bad_arguments", bad_arguments)


def accept_elicitation(counter: dict[str, int]):
    """An elicitation answer a human approving everything would give (defaults first)."""

    async def callback(_context, params) -> types.ElicitResult:
        counter["count"] += 1
        schema = getattr(params, "requested_schema", None) or {}
        content: dict[str, Any] = {}
        for key, prop in (schema.get("properties") or {}).items():
            if "default" in prop:
                content[key] = prop["default"]
            elif prop.get("type") == "boolean":
                content[key] = True
            elif prop.get("enum"):
                approve = [v for v in prop["enum"] if str(v).lower() in ("approve", "approved", "yes", "accept", "allow", "confirm")]
                content[key] = (approve or prop["enum"])[0]
            elif prop.get("type") in ("number", "integer"):
                content[key] = prop.get("minimum", 1)
            else:
                content[key] = "interop-approve"
        return types.ElicitResult(action="accept", content=content)

    return callback


async def main(ns: argparse.Namespace, report: dict[str, Any]) -> None:
    counter = {"count": 0}
    params = StdioServerParameters(command=ns.command, args=ns.args, env=server_env(ns.home), cwd=ns.cwd)
    client = Client(
        params,
        mode=ns.mode,
        elicitation_callback=accept_elicitation(counter),
        read_timeout_seconds=REQUEST_TIMEOUT_S,
        client_info=types.Implementation(name="hera-interop-py-sdk", version=report["client"]["version"]),
    )
    started = time.monotonic()
    try:
        async with asyncio.timeout(REQUEST_TIMEOUT_S):
            await client.__aenter__()
    except BaseException as e:  # noqa: BLE001 - includes anyio/ExceptionGroup failures at connect
        report["steps"].append(
            {"step": "connect", "ok": False, "reason": f"{type(e).__name__}: {e}", "ms": int((time.monotonic() - started) * 1000)}
        )
        return
    try:
        report["protocol_version"] = client.protocol_version
        info = client.server_info
        report["server"] = {"name": info.name, "version": info.version} if info else None
        report["steps"].append({"step": "connect", "ok": True, "ms": int((time.monotonic() - started) * 1000)})
        await Scenario(report).run(client, ns.expect_protocol)
    finally:
        report["elicitations"] = counter["count"]
        try:
            await client.__aexit__(None, None, None)
        except BaseException as e:  # noqa: BLE001 - shutdown noise must not hide the summary
            print(f"py_sdk: close: {type(e).__name__}: {e}", file=sys.stderr)


def finish(report: dict[str, Any]) -> int:
    report["passed"] = sum(1 for s in report["steps"] if s["ok"])
    report["failed"] = len(report["steps"]) - report["passed"]
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()
    return 0 if report["failed"] == 0 and report["steps"] else 1


if __name__ == "__main__":
    ns = parse_args(sys.argv[1:])
    report: dict[str, Any] = {
        "driver": "py-sdk",
        "client": {"package": "mcp", "version": package_version("mcp")},
        "negotiation": ns.mode,
        "steps": [],
    }

    async def bounded() -> None:
        try:
            await asyncio.wait_for(main(ns, report), DEADLINE_S)
        except TimeoutError:
            report["steps"].append({"step": "deadline", "ok": False, "reason": f"driver exceeded {DEADLINE_S:.0f} s"})

    try:
        asyncio.run(bounded())
    except BaseException as e:  # noqa: BLE001
        report["steps"].append({"step": "driver", "ok": False, "reason": f"{type(e).__name__}: {e}"})
    sys.exit(finish(report))
