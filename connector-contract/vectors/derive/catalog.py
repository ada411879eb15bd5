"""A small handmade hera.tool-catalog/1 and the client's structural checks on it.

The catalog is written out as JSON text with number literals kept as typed (`Num`), so the
catalog_hash vectors can show that numbers count exactly as written (section 3.8). Safety objects
are produced by `safety()`, which applies the section 3.5 normalization invariants.
"""

import json

from jsontext import Num

NORMAL_PROFILES = {"core", "scene", "assets", "ui", "diagnostics", "testing", "full"}
SCOPE = {"read_only": "none", "package_change": "package_environment",
         "external_process": "external_process", "arbitrary_code": "unity_editor_and_project"}


def safety(risk="unspecified", read_only=False, destructive=False, idempotent=False,
           may_reload_domain=False, requires_play_mode=False, requires_confirmation=False,
           reversible=False, supports_cancellation=False, inherit=None):
    if risk == "unspecified":
        if read_only:
            risk = "read_only"
        elif destructive:
            risk = "destructive"
        elif inherit:
            risk = inherit
    ro = risk == "read_only"
    destr = destructive or risk in ("destructive", "unspecified")
    idem = (idempotent or ro) and risk != "unspecified"
    conf = requires_confirmation or destr or risk in ("arbitrary_code", "package_change",
                                                      "external_process")
    return {"risk_class": risk, "read_only": ro, "destructive": destr, "idempotent": idem,
            "may_reload_domain": may_reload_domain, "requires_play_mode": requires_play_mode,
            "requires_confirmation": conf, "reversible": reversible,
            "supports_cancellation": supports_cancellation,
            "side_effect_scope": SCOPE.get(risk, "unity_project"), "rules": []}


def rule(operation, when, s):
    out = {"operation": operation, "when": {k: {"const": v} for k, v in when.items()}}
    out.update(s)
    return out


def output_schema(data=None):
    return {"type": "object", "properties": {
        "data": data or {"type": "object", "properties": {}},
        "message": {"type": "string"}, "success": {"type": "boolean"}}}


def action(name, description, s, props=None, required=()):
    props = dict(props or {})
    props["action"] = {"const": name, "type": "string"}
    return {"name": name, "description": description, "aliases": [],
            "input_schema": {"additionalProperties": False, "properties": props,
                             "required": sorted(set(required) | {"action"}), "type": "object"},
            "output_schema": output_schema(), "safety": s}


def tool(name, description, profiles, s, actions=(), props=None, mode="strict", kind="builtin",
         examples=()):
    return {"name": name,
            "title": " ".join(w.capitalize() for w in name.split("_")),
            "description": description,
            "source": {"kind": kind,
                       "assembly": "HeraAgent.Editor" if kind == "builtin" else "Game.Editor",
                       "type": ("HeraAgent.Tools." if kind == "builtin" else "Game.Tools.")
                       + "".join(w.capitalize() for w in name.split("_"))},
            "contract_mode": mode, "profiles": sorted(profiles), "aliases": [],
            "examples": [{"call": c, "description": d} for c, d in examples],
            "input_schema": {"additionalProperties": False, "properties": dict(props or {}),
                             "required": [], "type": "object"},
            "output_schema": output_schema(), "actions": list(actions), "safety": s}


def handmade_tools():
    console_safety = safety("read_only")
    console_safety["rules"] = [rule("clear", {"clear": True},
                                    safety("destructive", idempotent=True))]
    exec_safety = safety("arbitrary_code")
    exec_safety["rules"] = [rule("compile_only", {"compile_only": True},
                                 safety("write", idempotent=True))]
    scene_safety = safety("destructive")
    scene_safety["rules"] = [rule("quick_close",
                                  {"options": {"force": True, "paths": ["A", "B"]}},
                                  safety("write"))]
    settings_safety = safety("destructive")
    settings_safety["rules"] = [
        rule("audit", {"verbose": True}, safety("read_only")),
        rule("force", {"force": True}, safety("destructive")),
        rule("preview", {"dry_run": True}, safety("read_only")),
        rule("preview_forced", {"dry_run": True, "force": True}, safety("write")),
        rule("preview_player", {"action": "set_player", "dry_run": True},
             safety("write", idempotent=True, reversible=True)),
    ]
    return [
        tool("console", "Reads the Editor console; `clear` empties it.",
             ["core", "diagnostics", "full"], console_safety,
             props={"clear": {"type": "boolean"},
                    "limit": {"maximum": Num("1e3"), "minimum": Num("-0"), "type": "integer"}},
             examples=[("console {\"limit\":10}", "Last ten entries.")]),
        tool("exec", "Compiles and runs C# inside the Editor.", ["advanced"], exec_safety,
             props={"code": {"type": "string"}, "compile_only": {"type": "boolean"}}),
        tool("scene", "Opens, saves and closes scenes \u2014 \u00abd\u00e9j\u00e0 vu\u00bb\u2028"
             "second line.", ["core", "full", "scene"], scene_safety,
             actions=[
                 action("close", "Closes a loaded scene.", safety("destructive"),
                        {"path": {"type": "string"}}, ["path"]),
                 action("info", "", safety("read_only")),
             ],
             props={"action": {"enum": ["close", "info"], "type": "string"},
                    "ratio": {"exclusiveMinimum": Num("0.0"), "maximum": Num("1.10"),
                              "type": "number"},
                    "\ue000": {"type": "string"}, "\U0001d400": {"type": "string"}}),
        tool("settings", "Project settings.", ["diagnostics", "full"], settings_safety,
             actions=[
                 action("get_player", "Reads player settings.", safety("read_only")),
                 action("set_player", "Writes player settings.",
                        safety("destructive", may_reload_domain=True)),
             ]),
    ]


def legacy_in_core():
    return tool("zz_legacy", "A custom legacy tool that declared the core profile.", ["core"],
                safety("write"), mode="legacy", kind="custom")


def dump(v, indent=0):
    """Pretty JSON text that keeps `Num` literals and dict order (deliberately not sorted)."""
    pad = "  " * indent
    if isinstance(v, Num):
        return str(v)
    if isinstance(v, dict):
        if not v:
            return "{}"
        inner = [pad + "  " + json.dumps(k, ensure_ascii=False) + ": " + dump(x, indent + 1)
                 for k, x in v.items()]
        return "{\n" + ",\n".join(inner) + "\n" + pad + "}"
    if isinstance(v, list):
        if not v:
            return "[]"
        return "[\n" + ",\n".join(pad + "  " + dump(x, indent + 1) for x in v) + "\n" + pad + "]"
    return json.dumps(v, ensure_ascii=False)


def compact(v):
    """Compact JSON text, `Num` literals and dict order kept."""
    if isinstance(v, Num):
        return str(v)
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + compact(x)
                              for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(compact(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


def structure_problems(cat):
    """Section 3.10 checks a client makes (the hash is checked separately)."""
    import re
    problems = []
    h = re.compile(r"sha256:[0-9a-f]{64}")
    u16 = lambda s: s.encode("utf-16-be", "surrogatepass")
    def sorted_unique(names):
        return all(u16(a) < u16(b) for a, b in zip(names, names[1:]))
    if cat.get("schema_version") != "hera.tool-catalog/1":
        problems.append("schema_version")
    for k in ("catalog_hash", "project_id"):
        if not h.fullmatch(cat.get(k, "")):
            problems.append(k)
    if not cat.get("domain_epoch"):
        problems.append("domain_epoch")
    tools = cat.get("tools", [])
    if not tools or not sorted_unique([t["name"] for t in tools]):
        problems.append("tools")
    for t in tools:
        arbitrary = any(s["risk_class"] == "arbitrary_code"
                        for s in [t["safety"]] + t["safety"]["rules"]
                        + [a["safety"] for a in t["actions"]])
        if not t["name"] or not t["title"] or not all(t["source"].values()):
            problems.append(t["name"] + ": identity")
        if t["contract_mode"] not in ("strict", "legacy"):
            problems.append(t["name"] + ": contract_mode")
        if not sorted_unique(t["profiles"]):
            problems.append(t["name"] + ": profiles")
        if (t["contract_mode"] == "legacy" or arbitrary) and NORMAL_PROFILES & set(t["profiles"]):
            problems.append(t["name"] + ": normal profile")
        if not sorted_unique([a["name"] for a in t["actions"]]) or not all(
                a["name"] for a in t["actions"]):
            problems.append(t["name"] + ": actions")
    return problems
